import FlowKit
import Foundation
import ProgressContract

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

/// The progress API over HTTP, through a transport: async-http-client
/// (`HTTPClientTransport`) or URLSession (`URLSessionTransport`).
public final class ProgressAPIClient: ProgressAPI {
  public let credentials: BackendCredentials
  /// The most one request may take, first byte to last.
  public let requestDeadline: TimeInterval
  /// The longest a request may wait for its next byte.
  public let idleTimeout: TimeInterval
  private let transport: any HTTPTransport

  /// `timeout` is the idle timeout (at least a second: Linux's URLSession counts in whole
  /// seconds and gives up at once below one); `requestDeadline` bounds each whole request
  /// and defaults to `timeout` (it may be shorter than a second, for tests).
  public init(
    credentials: BackendCredentials, transport: any HTTPTransport, timeout: TimeInterval = 15,
    requestDeadline: TimeInterval? = nil
  ) {
    self.credentials = credentials
    self.transport = transport
    let idle = max(timeout.isFinite ? timeout : 15, 1)
    let deadline = requestDeadline ?? timeout
    self.idleTimeout = idle
    self.requestDeadline = deadline.isFinite && deadline > 0 ? deadline : idle
  }

  public func createProgress(body: Data, idempotencyKey: String?) async throws(ProgressAPIError)
    -> ProgressRecord
  {
    try decode(
      await send("POST", APIPath.progress, body: body, idempotencyKey: idempotencyKey, expect: [201, 200]))
  }

  public func updateProgress(id: String, body: Data, idempotencyKey: String?) async throws(ProgressAPIError)
    -> ProgressRecord
  {
    try decode(
      await send(
        "PUT", APIPath.progress(id: escaped(id)), body: body, idempotencyKey: idempotencyKey, expect: [200]))
  }

  public func deleteProgress(id: String, idempotencyKey: String?) async throws(ProgressAPIError) {
    _ = try await send(
      "DELETE", APIPath.progress(id: escaped(id)), idempotencyKey: idempotencyKey, expect: [204, 200])
  }

  public func listProgress(_ query: ListQuery) async throws(ProgressAPIError) -> Page<ProgressRecord> {
    try decode(await send("GET", APIPath.progress, query: query.queryItems, expect: [200]))
  }

  public func createJournal(body: Data, idempotencyKey: String?) async throws(ProgressAPIError)
    -> JournalRecord
  {
    try decode(
      await send("POST", APIPath.journal, body: body, idempotencyKey: idempotencyKey, expect: [201, 200]))
  }

  public func listJournal(_ query: ListQuery) async throws(ProgressAPIError) -> Page<JournalRecord> {
    try decode(await send("GET", APIPath.journal, query: query.queryItems, expect: [200]))
  }

  public func createResource(_ resource: String, body: Data, idempotencyKey: String?)
    async throws(ProgressAPIError) -> ResourceRecord
  {
    try decode(
      await send(
        "POST", APIPath.resource(escaped(resource)), body: body, idempotencyKey: idempotencyKey, expect: [201]
      ))
  }

  public func updateResource(_ resource: String, id: String, body: Data, idempotencyKey: String?)
    async throws(ProgressAPIError) -> ResourceRecord
  {
    try decode(
      await send(
        "PUT", APIPath.resource(escaped(resource), id: escaped(id)), body: body,
        idempotencyKey: idempotencyKey,
        expect: [200]))
  }

  public func deleteResource(_ resource: String, id: String, idempotencyKey: String?)
    async throws(ProgressAPIError)
  {
    _ = try await send(
      "DELETE", APIPath.resource(escaped(resource), id: escaped(id)), idempotencyKey: idempotencyKey,
      expect: [204, 200])
  }

  public func listResource(_ resource: String, _ query: ListQuery) async throws(ProgressAPIError)
    -> Page<ResourceRecord>
  {
    let paging = ListQuery(limit: query.limit, offset: query.offset)
    return try decode(
      await send("GET", APIPath.resource(escaped(resource)), query: paging.queryItems, expect: [200]))
  }

  public func getResource(_ resource: String, id: String) async throws(ProgressAPIError) -> ResourceRecord {
    try decode(await send("GET", APIPath.resource(escaped(resource), id: escaped(id)), expect: [200]))
  }

  public func batch(_ items: [ProgressBatchItem]) async throws(ProgressAPIError) -> [ProgressBatchResult] {
    guard !items.isEmpty else { return [] }
    guard items.count <= ProgressBatchItem.maxPerBatch else {
      throw .badRequest("a batch holds at most \(ProgressBatchItem.maxPerBatch) items, got \(items.count)")
    }
    let (body, entryIDs) = try Self.batchBody(items)
    return try Self.batchResults(
      await send("POST", APIPath.progressBatch, body: body, expect: [200]), items: items, entryIDs: entryIDs)
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
    bytes += #"{"\#(BatchField.items)":["#.utf8
    for (index, item) in items.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      bytes += #"{"\#(BatchItemField.idempotencyKey)":"#.utf8
      appendJSONString(item.idempotencyKey, to: &bytes)
      bytes += #","\#(BatchItemField.method)":""#.utf8
      bytes += item.method.rawValue.utf8
      bytes.append(UInt8(ascii: "\""))
      if let id = item.id {
        bytes += #","\#(BatchItemField.id)":"#.utf8
        appendJSONString(id, to: &bytes)
      }
      if let resource = item.resource {
        bytes += #","\#(BatchItemField.resource)":"#.utf8
        appendJSONString(resource, to: &bytes)
      }
      var entryID: String?
      if let body = item.body {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
          throw .badRequest("items[\(index)].body is not a JSON object")
        }
        // A resource's body is the feature's own: only a progress row names its entry.
        if item.resource == nil { entryID = object[ProgressInputField.entryID.rawValue] as? String }
        bytes += #","\#(BatchItemField.body)":"#.utf8
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
    let results: [BatchAnswer.Result]
    do {
      results = try JSONDecoder().decode(BatchAnswer.self, from: answer.data).results
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
      let record: BatchRecord
      switch (item.resource, result.data, result.resource) {
      case (nil, let row?, _): record = .progress(row)
      case (_?, _, let row?): record = .resource(row)
      default: throw unfit("items[\(index)] succeeded (\(result.status)) without its row")
      }
      guard !record.id.isEmpty else {
        throw unfit("items[\(index)] succeeded (\(result.status)) without its row")
      }
      if item.method == .put, record.id != item.id {
        throw unfit("items[\(index)] updated \(record.id), not \(item.id ?? "-")")
      }
      if case .progress(let row) = record, let sent = entryIDs[index], let answered = row.entryID,
        sent != answered
      {
        throw unfit("items[\(index)] answered for entry \(answered), not \(sent)")
      }
      outcomes.append(.success(record))
    }
    return outcomes
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
      return try JSONDecoder().decode(DataEnvelope<Value>.self, from: answer.data).data
    } catch {
      throw .unexpected(status: answer.status, message: "the body is not the contract's: \(error)")
    }
  }

  private func send(
    _ method: String, _ path: String, body: Data? = nil, query: [URLQueryItem] = [],
    idempotencyKey: String? = nil, expect: Set<Int>
  ) async throws(ProgressAPIError) -> (status: Int, data: Data) {
    var components = URLComponents(
      url: credentials.baseURL.appendingPathComponent(String(path.dropFirst())),
      resolvingAgainstBaseURL: false)
    if !query.isEmpty { components?.queryItems = query }
    guard let url = components?.url else { throw .unexpected(status: 0, message: "bad URL for \(path)") }
    var headers = [
      APIHeader.apiKey: credentials.apiKey, APIHeader.authorization: "Bearer \(credentials.token)",
      "Accept": "application/json",
    ]
    if let idempotencyKey { headers[APIHeader.idempotencyKey] = idempotencyKey }
    if body != nil { headers["Content-Type"] = "application/json" }
    let request = HTTPExchangeRequest(
      method: method, url: url, headers: headers, body: body, idleTimeout: idleTimeout,
      deadline: requestDeadline)
    let answer: HTTPExchangeResponse
    switch await transport.send(request) {
    case .success(let response): answer = response
    case .failure(.timeout): throw .timeout
    case .failure(.offline): throw .offline
    case .failure(.unreachable(let message)): throw .unreachable(message)
    case .failure(.tooLarge): throw .tooLarge
    }
    let status = answer.status
    if expect.contains(status) { return (status, answer.body) }
    throw ProgressAPIError.classify(
      status: status, body: answer.body,
      retryAfter: ProgressAPIError.retryAfter(
        header: answer.header(APIHeader.retryAfter), serverDate: answer.header("Date")),
      location: answer.header("Location"))
  }
}
