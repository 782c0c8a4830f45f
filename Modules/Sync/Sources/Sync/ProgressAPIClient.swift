import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Where the backend is and who is asking.
public struct BackendCredentials: Sendable, Hashable {
  public var baseURL: URL
  public var apiKey: String
  /// The bearer token (an HS256 JWT whose `sub` is the user).
  public var token: String

  public init(baseURL: URL, apiKey: String, token: String) {
    self.baseURL = baseURL
    self.apiKey = apiKey
    self.token = token
  }
}

/// The progress API over HTTP (URLSession), for the outbox processor and the runner.
public final class ProgressAPIClient: ProgressAPI {
  public let credentials: BackendCredentials
  private let session: URLSession

  /// `timeout` bounds each request (at least a second: Linux's URLSession counts in
  /// whole seconds and gives up at once below one); `maxConnections` lets a concurrent
  /// processor use that many connections to the host.
  public init(credentials: BackendCredentials, timeout: TimeInterval = 15, maxConnections: Int = 4) {
    self.credentials = credentials
    let timeout = max(timeout, 1)
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeout
    configuration.timeoutIntervalForResource = timeout
    configuration.httpMaximumConnectionsPerHost = max(1, maxConnections)
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    session = URLSession(configuration: configuration)
  }

  deinit { session.finishTasksAndInvalidate() }

  public func createProgress(body: Data, idempotencyKey: String?) async throws(ProgressAPIError)
    -> ProgressRecord
  {
    try decode(
      await send("POST", "progress", body: body, idempotencyKey: idempotencyKey, expect: [201, 200]))
  }

  public func updateProgress(id: String, body: Data, idempotencyKey: String?) async throws(ProgressAPIError)
    -> ProgressRecord
  {
    try decode(
      await send("PUT", "progress/\(escaped(id))", body: body, idempotencyKey: idempotencyKey, expect: [200]))
  }

  public func deleteProgress(id: String, idempotencyKey: String?) async throws(ProgressAPIError) {
    _ = try await send(
      "DELETE", "progress/\(escaped(id))", idempotencyKey: idempotencyKey, expect: [204, 200])
  }

  public func listProgress(_ query: ListQuery) async throws(ProgressAPIError) -> Page<ProgressRecord> {
    try decode(await send("GET", "progress", query: query.queryItems, expect: [200]))
  }

  public func createJournal(body: Data, idempotencyKey: String?) async throws(ProgressAPIError)
    -> JournalRecord
  {
    try decode(await send("POST", "journal", body: body, idempotencyKey: idempotencyKey, expect: [201, 200]))
  }

  public func listJournal(_ query: ListQuery) async throws(ProgressAPIError) -> Page<JournalRecord> {
    try decode(await send("GET", "journal", query: query.queryItems, expect: [200]))
  }

  private struct Envelope<Value: Decodable>: Decodable {
    var data: Value
  }

  private struct ErrorEnvelope: Decodable {
    struct Detail: Decodable {
      var message: String
      var code: String?
    }
    var error: Detail
  }

  private func escaped(_ id: String) -> String {
    id.addingPercentEncoding(
      withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/")))
      ?? id
  }

  private func decode<Value: Decodable>(_ data: Data) throws(ProgressAPIError) -> Value {
    do {
      return try JSONDecoder().decode(Envelope<Value>.self, from: data).data
    } catch {
      throw .unexpected(status: 200, message: "the body is not the contract's: \(error)")
    }
  }

  private func send(
    _ method: String, _ path: String, body: Data? = nil, query: [URLQueryItem] = [],
    idempotencyKey: String? = nil, expect: Set<Int>
  ) async throws(ProgressAPIError) -> Data {
    var components = URLComponents(
      url: credentials.baseURL.appendingPathComponent("api/v1/\(path)"), resolvingAgainstBaseURL: false)
    if !query.isEmpty { components?.queryItems = query }
    guard let url = components?.url else { throw .unexpected(status: 0, message: "bad URL for \(path)") }
    var request = URLRequest(url: url)
    request.httpMethod = method
    request.setValue(credentials.apiKey, forHTTPHeaderField: "X-API-Key")
    request.setValue("Bearer \(credentials.token)", forHTTPHeaderField: "Authorization")
    request.setValue("application/json", forHTTPHeaderField: "Accept")
    if let idempotencyKey { request.setValue(idempotencyKey, forHTTPHeaderField: "Idempotency-Key") }
    if let body {
      request.httpBody = body
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    let data: Data
    let response: URLResponse
    do {
      (data, response) = try await session.data(for: request)
    } catch {
      throw Self.transportError(error)
    }
    guard let http = response as? HTTPURLResponse else {
      throw .unexpected(status: 0, message: "not an HTTP response")
    }
    let status = http.statusCode
    if expect.contains(status) { return data }
    let message =
      (try? JSONDecoder().decode(ErrorEnvelope.self, from: data).error.message)
      ?? HTTPURLResponse.localizedString(forStatusCode: status)
    switch status {
    case 400, 422: throw .badRequest(message)
    case 401, 403: throw .unauthorized(message)
    case 404: throw .notFound(message)
    case 500...599: throw .server(status: status, message: message)
    default: throw .unexpected(status: status, message: message)
    }
  }

  static func transportError(_ error: any Error) -> ProgressAPIError {
    guard let urlError = error as? URLError else {
      if error is CancellationError { return .timeout }
      return .unreachable("\(error)")
    }
    switch urlError.code {
    case .timedOut: return .timeout
    case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff: return .offline
    default: return .unreachable(urlError.localizedDescription)
    }
  }
}
