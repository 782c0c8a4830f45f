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

  public func batch(_ items: [ProgressBatchItem]) async throws(ProgressAPIError) -> [ProgressBatchResult] {
    guard !items.isEmpty else { return [] }
    guard items.count <= ProgressBatchItem.maxPerBatch else {
      throw .badRequest("a batch holds at most \(ProgressBatchItem.maxPerBatch) items, got \(items.count)")
    }
    let (body, entryIDs) = try Self.batchBody(items)
    return try Self.batchResults(
      await send("POST", "progress/batch", body: body, expect: [200]), items: items, entryIDs: entryIDs)
  }

  /// `{"items":[{"idempotency_key","method","id"?,"body"?}, …]}` with each body as the
  /// single call sends it; also each body's `entry_id`, to check the answer's order by.
  /// A body that is not a JSON object cannot be one item among others: the batch is
  /// refused as the backend would refuse it (400), so its items go alone.
  static func batchBody(_ items: [ProgressBatchItem]) throws(ProgressAPIError) -> (Data, [String?]) {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(items.count * 320)
    var entryIDs: [String?] = []
    entryIDs.reserveCapacity(items.count)
    bytes += #"{"items":["#.utf8
    for (index, item) in items.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      bytes += #"{"idempotency_key":"#.utf8
      appendJSONString(item.idempotencyKey, to: &bytes)
      bytes += #","method":""#.utf8
      bytes += item.method.rawValue.utf8
      bytes.append(UInt8(ascii: "\""))
      if let id = item.id {
        bytes += #","id":"#.utf8
        appendJSONString(id, to: &bytes)
      }
      var entryID: String?
      if let body = item.body {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
          throw .badRequest("items[\(index)].body is not a JSON object")
        }
        entryID = object["entry_id"] as? String
        bytes += #","body":"#.utf8
        bytes += body
      }
      entryIDs.append(entryID)
      bytes.append(UInt8(ascii: "}"))
    }
    bytes += "]}".utf8
    return (Data(bytes), entryIDs)
  }

  /// `text` as a JSON string literal.
  static func appendJSONString(_ text: String, to bytes: inout [UInt8]) {
    let hex = Array("0123456789abcdef".utf8)
    bytes.append(UInt8(ascii: "\""))
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"):
        bytes += [UInt8(ascii: "\\"), byte]
      case 0..<0x20:
        bytes += Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
      default:
        bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// A batch answer's `{"data":{"results":[{"status","data"?,"error"?}]}}`.
  private struct BatchAnswer: Decodable {
    struct Results: Decodable {
      var results: [Item]
    }

    struct Item: Decodable {
      var status: Int
      var data: ProgressRecord?
      /// The error envelope's message; nil without one (classified as not the backend's).
      var refusal: String?

      enum CodingKeys: String, CodingKey {
        case status, data, error
      }

      init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decode(Int.self, forKey: .status)
        data = try container.decodeIfPresent(ProgressRecord.self, forKey: .data)
        refusal =
          (try? container.decodeIfPresent(ProgressAPIError.Refusal.Detail.self, forKey: .error))?
          .message
      }
    }

    var data: Results
  }

  /// Each item's result, as its single call would have it; an answer that does not fit
  /// the items (unreadable, another count, a status no HTTP answer has, a success
  /// without its row or with another entry's) is `unexpected` for the whole batch.
  static func batchResults(
    _ answer: (status: Int, data: Data), items: [ProgressBatchItem], entryIDs: [String?]
  )
    throws(ProgressAPIError) -> [ProgressBatchResult]
  {
    func unfit(_ message: String) -> ProgressAPIError {
      .unexpected(status: answer.status, message: "the batch answer does not fit: \(message)")
    }
    let results: [BatchAnswer.Item]
    do {
      results = try JSONDecoder().decode(BatchAnswer.self, from: answer.data).data.results
    } catch {
      throw .unexpected(status: answer.status, message: "the body is not the contract's: \(error)")
    }
    guard results.count == items.count else {
      throw unfit("\(results.count) results for \(items.count) items")
    }
    var outcomes: [ProgressBatchResult] = []
    outcomes.reserveCapacity(items.count)
    for (index, (item, result)) in zip(items, results).enumerated() {
      guard (200...599).contains(result.status) else {
        throw unfit("items[\(index)] has status \(result.status)")
      }
      let expected: Set<Int> =
        switch item.method {
        case .post: [201, 200]
        case .put: [200]
        case .delete: [204, 200]
        }
      guard expected.contains(result.status) else {
        outcomes.append(.failure(ProgressAPIError.classify(status: result.status, refusal: result.refusal)))
        continue
      }
      guard item.method != .delete else {
        outcomes.append(.success(nil))
        continue
      }
      guard let record = result.data, !record.id.isEmpty else {
        throw unfit("items[\(index)] succeeded (\(result.status)) without its row")
      }
      if item.method == .put, record.id != item.id {
        throw unfit("items[\(index)] updated \(record.id), not \(item.id ?? "-")")
      }
      if let sent = entryIDs[index], let answered = record.entryID, sent != answered {
        throw unfit("items[\(index)] answered for entry \(answered), not \(sent)")
      }
      outcomes.append(.success(record))
    }
    return outcomes
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
