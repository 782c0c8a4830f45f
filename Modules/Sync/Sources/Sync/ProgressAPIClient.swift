import FlowKit
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
  /// The most one request may take, first byte to last. URLSession's own timeout is an
  /// idle timeout on Linux (every byte restarts it), so a backend dripping a byte a
  /// second would hold a sync for minutes; this bounds the whole exchange.
  public let requestDeadline: TimeInterval
  private let session: URLSession

  /// `timeout` is URLSession's idle timeout (at least a second: Linux's URLSession counts
  /// in whole seconds and gives up at once below one); `requestDeadline` bounds each
  /// whole request and defaults to `timeout` (it may be shorter than a second, for
  /// tests); `maxConnections` lets a concurrent processor use that many connections.
  public init(
    credentials: BackendCredentials, timeout: TimeInterval = 15, requestDeadline: TimeInterval? = nil,
    maxConnections: Int = 4
  ) {
    self.credentials = credentials
    let idle = max(timeout.isFinite ? timeout : 15, 1)
    let deadline = requestDeadline ?? timeout
    self.requestDeadline = deadline.isFinite && deadline > 0 ? deadline : idle
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = idle
    configuration.timeoutIntervalForResource = max(idle, self.requestDeadline)
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

  private func escaped(_ id: String) -> String {
    id.addingPercentEncoding(
      withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/")))
      ?? id
  }

  /// A success status whose body is not the contract's envelope (a captive portal's
  /// page, a truncated answer) is not a success: it is `unexpected`, which is transient.
  private func decode<Value: Decodable>(_ answer: (status: Int, data: Data)) throws(ProgressAPIError) -> Value
  {
    do {
      return try JSONDecoder().decode(Envelope<Value>.self, from: answer.data).data
    } catch {
      throw .unexpected(status: answer.status, message: "the body is not the contract's: \(error)")
    }
  }

  private func send(
    _ method: String, _ path: String, body: Data? = nil, query: [URLQueryItem] = [],
    idempotencyKey: String? = nil, expect: Set<Int>
  ) async throws(ProgressAPIError) -> (status: Int, data: Data) {
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
    let (data, response) = try await perform(request)
    guard let http = response as? HTTPURLResponse else {
      throw .unexpected(status: 0, message: "not an HTTP response")
    }
    let status = http.statusCode
    if expect.contains(status) { return (status, data) }
    throw ProgressAPIError.classify(
      status: status, body: data,
      retryAfter: ProgressAPIError.retryAfter(
        header: http.value(forHTTPHeaderField: "Retry-After"),
        serverDate: http.value(forHTTPHeaderField: "Date")))
  }

  /// Runs the request against `requestDeadline`: whichever ends first, the exchange or
  /// the deadline, resumes the caller, and the deadline cancels the URLSession task.
  /// A completion handler rather than `session.data(for:)`, so giving up never waits
  /// for a task that ignores cancellation.
  private func perform(_ request: URLRequest) async throws(ProgressAPIError) -> (Data, URLResponse) {
    let exchange = Exchange()
    let session = session
    let deadline = requestDeadline
    let result: Exchange.Answer = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let task = session.dataTask(with: request) { data, response, error in
          if let error {
            exchange.finish(.failure(error))
          } else if let data, let response {
            exchange.finish(.success((data, response)))
          } else {
            exchange.finish(.failure(URLError(.badServerResponse)))
          }
        }
        let timer = Task {
          try? await Task.sleep(for: .seconds(deadline))
          if !Task.isCancelled { exchange.finish(.failure(DeadlinePassed())) }
        }
        exchange.start(continuation, task: task, timer: timer)
      }
    } onCancel: {
      exchange.finish(.failure(CancellationError()))
    }
    switch result {
    case .success(let answer): return answer
    case .failure(let error): throw Self.transportError(error)
    }
  }

  private struct DeadlinePassed: Error {}

  /// One request's race: the first `finish` resumes the caller, cancels the task and
  /// the timer; later ones are ignored. `finish` may come before `start` (a task
  /// cancelled at once), so the outcome waits for the continuation.
  private final class Exchange: Sendable {
    typealias Answer = Result<(Data, URLResponse), any Error>
    private struct State {
      var continuation: CheckedContinuation<Answer, Never>?
      var task: URLSessionDataTask?
      var timer: Task<Void, Never>?
      var outcome: Answer?
      var resumed = false
    }
    private let state = Locked(State())

    func start(
      _ continuation: CheckedContinuation<Answer, Never>,
      task: URLSessionDataTask, timer: Task<Void, Never>
    ) {
      let early = state.withLock { state -> Answer? in
        state.continuation = continuation
        state.task = task
        state.timer = timer
        guard let outcome = state.outcome, !state.resumed else { return nil }
        state.resumed = true
        return outcome
      }
      if let early {
        timer.cancel()
        continuation.resume(returning: early)
      } else {
        task.resume()
      }
    }

    func finish(_ outcome: Answer) {
      let ready = state.withLock {
        state -> (CheckedContinuation<Answer, Never>, URLSessionDataTask?, Task<Void, Never>?)? in
        guard state.outcome == nil else { return nil }
        state.outcome = outcome
        guard let continuation = state.continuation, !state.resumed else { return nil }
        state.resumed = true
        return (continuation, state.task, state.timer)
      }
      guard let (continuation, task, timer) = ready else { return }
      timer?.cancel()
      if case .failure = outcome { task?.cancel() }
      continuation.resume(returning: outcome)
    }
  }

  static func transportError(_ error: any Error) -> ProgressAPIError {
    guard let urlError = error as? URLError else {
      if error is CancellationError || error is DeadlinePassed { return .timeout }
      return .unreachable("\(error)")
    }
    switch urlError.code {
    case .timedOut: return .timeout
    case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff: return .offline
    default: return .unreachable(urlError.localizedDescription)
    }
  }
}
