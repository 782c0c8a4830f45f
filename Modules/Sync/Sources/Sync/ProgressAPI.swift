import FlowKit
import Foundation
// The wire types (ProgressRecord, JournalRecord, Page) are the contract's; Sync's users see
// them as before.
@_exported import ProgressContract

/// The filters and page of a list request; dates are `YYYY-MM-DD`.
public struct ListQuery: Sendable, Hashable {
  public var type: String?
  public var from: String?
  public var to: String?
  public var limit: Int?
  public var offset: Int?

  public init(
    type: String? = nil, from: String? = nil, to: String? = nil, limit: Int? = nil, offset: Int? = nil
  ) {
    self.type = type
    self.from = from
    self.to = to
    self.limit = limit
    self.offset = offset
  }

  var queryItems: [URLQueryItem] {
    var items: [URLQueryItem] = []
    if let type { items.append(URLQueryItem(name: ListParameter.type.rawValue, value: type)) }
    if let from { items.append(URLQueryItem(name: ListParameter.from.rawValue, value: from)) }
    if let to { items.append(URLQueryItem(name: ListParameter.to.rawValue, value: to)) }
    if let limit { items.append(URLQueryItem(name: ListParameter.limit.rawValue, value: String(limit))) }
    if let offset { items.append(URLQueryItem(name: ListParameter.offset.rawValue, value: String(offset))) }
    return items
  }
}

/// Why a request failed, with the server's own message where it sent one.
///
/// How an answer is classified, in one place (`classify(status:body:retryAfter:)` for
/// HTTP answers, the transport's failures (timeout, offline, unreachable) for the rest, `isTransient` and
/// `endsPass` for what the outbox does):
///
/// | answer                                          | error          | outbox row                 |
/// |-------------------------------------------------|----------------|----------------------------|
/// | 400, 422 with the error envelope                | `badRequest`   | failed (never retried)     |
/// | 404 with the envelope                           | `notFound`     | failed (PUT → POST again,  |
/// |                                                 |                | DELETE → already gone)     |
/// | 409 with the envelope                           | `conflict`     | failed                     |
/// | 401, 403                                        | `unauthorized` | pending, ends the pass     |
/// | 429                                             | `rateLimited`  | pending ≥ Retry-After, ends the pass |
/// | 5xx                                             | `server`       | pending ≥ Retry-After      |
/// | 2xx whose body is not the contract (a captive   | `unexpected`   | pending, ends the pass     |
/// | portal's HTML, a truncated or empty body)       |                |                            |
/// | 3xx: no redirect is followed, so the key and    | `redirected`   | pending, ends the pass     |
/// | token never go to another origin                |                |                            |
/// | any other status, or a 4xx above without the    | `unexpected`   | pending                    |
/// | envelope (a proxy's page is not our refusal)    |                |                            |
/// | a body over 8 MiB (counted decompressed)        | `tooLarge`     | pending, ends the pass     |
/// | no whole answer within the deadline             | `timeout`      | pending, ends the pass     |
/// | connection refused or reset                     | `unreachable`  | pending, ends the pass     |
/// | no network                                      | `offline`      | untouched, ends the pass   |
///
/// Only a refusal the backend itself wrote is permanent: anything else may be a
/// middlebox, an outage or a bad moment, and parking a row as failed loses the change.
/// 401/403 stay transient (as before) because credentials get fixed without the row
/// changing; they end the pass so one bad token does not cost a request per row.
public enum ProgressAPIError: Error, Sendable, Hashable, CustomStringConvertible {
  /// 400, 413 or 422 with the error envelope: the request is wrong and sending it again will not help.
  case badRequest(String)
  /// 401 or 403: the API key or token is missing, expired or forged.
  case unauthorized(String)
  /// 404 with the error envelope: no such row for this user.
  case notFound(String)
  /// 409 with the error envelope: the backend refuses the change as it stands.
  case conflict(String)
  /// 429: too many requests; `retryAfter` is the server's `Retry-After` in seconds, if it gave one.
  case rateLimited(message: String, retryAfter: TimeInterval? = nil)
  /// 5xx: the server failed; worth trying again later, not before `retryAfter` if it gave one.
  case server(status: Int, message: String, retryAfter: TimeInterval? = nil)
  /// No whole answer within the request deadline.
  case timeout
  /// The device has no network (or the runner's `network: offline`).
  case offline
  /// Nothing answered at the address (server down, connection refused or reset).
  case unreachable(String)
  /// Any other status, or a body that is not the contract's (status 0: no HTTP answer at all).
  case unexpected(status: Int, message: String)
  /// A 3xx: the backend sent the request elsewhere (`location`, when it said where),
  /// and no redirect is followed, so the credentials never leave the configured origin.
  case redirected(status: Int, location: String?)
  /// The answer's body passed `HTTPExchangeResponse.maxBodyBytes`, counted decompressed.
  case tooLarge

  /// Whether a later attempt may succeed without the request changing.
  public var isTransient: Bool {
    switch self {
    case .badRequest, .notFound, .conflict: false
    case .unauthorized, .rateLimited, .server, .timeout, .offline, .unreachable, .unexpected, .redirected,
      .tooLarge:
      true
    }
  }

  /// Whether the backend is out of reach (or not answering as itself), so the rest of a
  /// pass would fail the same way.
  public var endsPass: Bool {
    switch self {
    // A backend that redirects, or sends bodies too large, does so for every row.
    case .timeout, .offline, .unreachable, .unauthorized, .rateLimited, .redirected, .tooLarge: true
    // A 2xx that is not our JSON is a captive portal or a proxy: every row would get it.
    case .unexpected(let status, _): (200..<300).contains(status)
    case .server, .badRequest, .notFound, .conflict: false
    }
  }

  /// The least the server asked to wait before the next request, if it said; always
  /// within 0…`maxRetryAfter`, whatever the case was built with.
  public var retryAfter: TimeInterval? {
    switch self {
    case .rateLimited(_, let retryAfter?), .server(_, _, let retryAfter?):
      retryAfter.isNaN ? nil : min(max(retryAfter, 0), Self.maxRetryAfter)
    default: nil
    }
  }

  /// The error for an HTTP answer whose status the request did not expect. `retryAfter`
  /// is the parsed `Retry-After` header (see `retryAfter(header:serverDate:now:)`),
  /// `location` the `Location` header.
  public static func classify(
    status: Int, body: Data, retryAfter: TimeInterval? = nil, location: String? = nil
  ) -> ProgressAPIError {
    if (300..<400).contains(status) { return .redirected(status: status, location: location) }
    return classify(status: status, refusal: Refusal(body)?.message, retryAfter: retryAfter)
  }

  /// The same for an answer whose error envelope was read already (a batch item's):
  /// `refusal` is the envelope's message, nil when the answer carried none.
  static func classify(status: Int, refusal: String?, retryAfter: TimeInterval? = nil) -> ProgressAPIError {
    let message = refusal ?? HTTPStatusText.reason(status)
    switch (status, refusal) {
    // 413: this body will always be too large; sending it again cannot help.
    case (400, _?), (413, _?), (422, _?): return .badRequest(message)
    case (404, _?): return .notFound(message)
    case (409, _?): return .conflict(message)
    case (401, _), (403, _): return .unauthorized(message)
    case (429, _): return .rateLimited(message: message, retryAfter: retryAfter)
    case (500...599, _): return .server(status: status, message: message, retryAfter: retryAfter)
    default:
      return .unexpected(
        status: status, message: refusal == nil ? "\(message) (not the backend's error envelope)" : message)
    }
  }

  /// A `Retry-After` value in seconds: delta-seconds, or an HTTP-date measured from the
  /// server's own `Date` header when it sent one (so a skewed device clock does not
  /// matter), else from `now`. Capped at a day, so a broken or hostile header cannot
  /// park the outbox for ever; nil when absent or unreadable.
  public static func retryAfter(header: String?, serverDate: String? = nil, now: Date = Date())
    -> TimeInterval?
  {
    guard let text = header?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
    let seconds: TimeInterval
    if text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
      // Digits only, so it always reads as a number; a huge one is "very long", which
      // the cap handles.
      seconds = TimeInterval(text) ?? .greatestFiniteMagnitude
    } else if let date = httpDate(text) {
      seconds = date.timeIntervalSince(serverDate.flatMap(httpDate) ?? now)
    } else {
      return nil
    }
    return min(max(seconds, 0), maxRetryAfter)
  }

  /// The longest `Retry-After` honoured.
  public static let maxRetryAfter: TimeInterval = 86_400

  private static func httpDate(_ text: String) -> Date? {
    // IMF-fixdate, the form servers send (RFC 9110 §5.6.7).
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
    return formatter.date(from: text)
  }

  /// The backend's error envelope `{"error":{"message","code"}}`; nil for anything else.
  /// The backend's error envelope, read from an answer's body.
  struct Refusal {
    var message: String

    init?(_ body: Data) {
      guard let envelope = try? JSONDecoder().decode(ErrorEnvelope.self, from: body) else { return nil }
      message = envelope.error.message
    }
  }

  /// A short name for events and logs.
  public var code: String {
    switch self {
    case .badRequest: "bad_request"
    case .unauthorized: "unauthorized"
    case .notFound: "not_found"
    case .conflict: "conflict"
    case .rateLimited: "rate_limited"
    case .server: "server_error"
    case .timeout: "timeout"
    case .offline: "offline"
    case .unreachable: "unreachable"
    case .unexpected: "unexpected"
    case .redirected: "redirected"
    case .tooLarge: "too_large"
    }
  }

  public var description: String {
    switch self {
    case .badRequest(let message): "the backend refused the request (400): \(message)"
    case .unauthorized(let message): "the backend refused the credentials (401): \(message)"
    case .notFound(let message): "the backend has no such row (404): \(message)"
    case .conflict(let message): "the backend refused the change (409): \(message)"
    case .rateLimited(let message, _):
      "the backend asked to slow down (429)"
        + (retryAfter.map { ", retry after \(Int(exactly: $0.rounded(.up)) ?? 0) s" } ?? "") + ": \(message)"
    case .server(let status, let message, _): "the backend failed (\(status)): \(message)"
    case .timeout: "the backend did not answer in time"
    case .offline: "the device is offline"
    case .unreachable(let message): "the backend cannot be reached: \(message)"
    case .unexpected(let status, let message): "unexpected answer from the backend (\(status)): \(message)"
    case .redirected(let status, let location?):
      "the backend answered \(status) redirecting to \(terminalSafe(location, limit: 201)); redirects are not followed"
    case .redirected(let status, nil):
      "the backend answered \(status) \(HTTPStatusText.reason(status)); redirects are not followed"
    case .tooLarge:
      "the backend's answer is over \(HTTPExchangeResponse.maxBodyBytes >> 20) MiB (counted decompressed)"
        + " and was refused"
    }
  }
}

/// One write of `POST /api/v1/progress/batch`: what its single call would send, to the
/// progress rows or, with `resource`, to a generic resource's.
public struct ProgressBatchItem: Sendable, Hashable {
  public enum Method: String, Sendable, Hashable {
    case post = "POST"
    case put = "PUT"
    case delete = "DELETE"
  }

  public var method: Method
  /// The backend's id: required with `PUT` and `DELETE`, never sent with `POST`.
  public var id: String?
  /// The JSON object the single call sends (`POST`, `PUT`); nil for `DELETE`.
  public var body: Data?
  public var idempotencyKey: String
  /// The generic resource written (a `ResourceName`); nil for a progress write.
  public var resource: String?

  /// The most writes one batch request may carry.
  public static let maxPerBatch = 100

  public init(
    method: Method, id: String? = nil, body: Data? = nil, idempotencyKey: String, resource: String? = nil
  ) {
    self.method = method
    self.id = id
    self.body = body
    self.idempotencyKey = idempotencyKey
    self.resource = resource
  }

  public static func create(body: Data, idempotencyKey: String) -> Self {
    Self(method: .post, body: body, idempotencyKey: idempotencyKey)
  }

  public static func update(id: String, body: Data, idempotencyKey: String) -> Self {
    Self(method: .put, id: id, body: body, idempotencyKey: idempotencyKey)
  }

  public static func delete(id: String, idempotencyKey: String) -> Self {
    Self(method: .delete, id: id, idempotencyKey: idempotencyKey)
  }

  /// The same write to the generic resource `name`.
  public func to(resource name: String) -> Self {
    var item = self
    item.resource = name
    return item
  }
}

/// The row a batch item's `POST` or `PUT` wrote: a progress row, or a generic resource's.
public enum BatchRecord: Sendable, Equatable {
  case progress(ProgressRecord)
  case resource(ResourceRecord)

  /// The backend's id for the row.
  public var id: String {
    switch self {
    case .progress(let record): record.id
    case .resource(let record): record.id
    }
  }
}

/// A batch item's result: what its single call would have returned (the row for `POST`
/// and `PUT`, nil for `DELETE`) or thrown, classified alike.
public typealias ProgressBatchResult = Result<BatchRecord?, ProgressAPIError>

extension ProgressAPIError {
  /// Whether a batch request was answered as by a backend without the batch endpoint
  /// (404 or 405): its writes go as single calls instead.
  public var meansNoBatchEndpoint: Bool {
    switch self {
    case .notFound: true
    case .unexpected(let status, _): status == 404 || status == 405
    default: false
    }
  }
}

/// The progress API, as the outbox processor uses it. Bodies are the JSON
/// the outbox holds; `idempotencyKey` makes a retried send return the first result.
public protocol ProgressAPI: Sendable {
  func createProgress(body: Data, idempotencyKey: String?) async throws(ProgressAPIError) -> ProgressRecord
  func updateProgress(id: String, body: Data, idempotencyKey: String?) async throws(ProgressAPIError)
    -> ProgressRecord
  func deleteProgress(id: String, idempotencyKey: String?) async throws(ProgressAPIError)
  func listProgress(_ query: ListQuery) async throws(ProgressAPIError) -> Page<ProgressRecord>
  func createJournal(body: Data, idempotencyKey: String?) async throws(ProgressAPIError) -> JournalRecord
  func listJournal(_ query: ListQuery) async throws(ProgressAPIError) -> Page<JournalRecord>
  /// Up to `ProgressBatchItem.maxPerBatch` writes in one request and one backend transaction
  /// (`POST /api/v1/progress/batch`): one result per item, in order, each what the
  /// item's single call would give. Throws for the batch as a whole: what a single
  /// call would throw for the answer, or `unexpected` for an answer that does not fit
  /// (not one well-formed result per item); a backend without the endpoint answers
  /// 404 or 405 (`meansNoBatchEndpoint`).
  func batch(_ items: [ProgressBatchItem]) async throws(ProgressAPIError) -> [ProgressBatchResult]
  /// A feature's own rows (`/api/v1/resources/{resource}`): `resource` is a
  /// `ResourceName`, `body` a JSON object the server keeps as it is.
  func createResource(_ resource: String, body: Data, idempotencyKey: String?) async throws(ProgressAPIError)
    -> ResourceRecord
  func updateResource(_ resource: String, id: String, body: Data, idempotencyKey: String?)
    async throws(ProgressAPIError) -> ResourceRecord
  func deleteResource(_ resource: String, id: String, idempotencyKey: String?) async throws(ProgressAPIError)
  /// A page of the user's rows of `resource`, oldest first (only `limit` and `offset` count).
  func listResource(_ resource: String, _ query: ListQuery) async throws(ProgressAPIError)
    -> Page<ResourceRecord>
  /// The user's row `id` of `resource`; `notFound` when there is none.
  func getResource(_ resource: String, id: String) async throws(ProgressAPIError) -> ResourceRecord
}

extension ProgressAPI {
  /// An API without batches answers like a backend without the endpoint, so callers
  /// send single calls instead.
  public func batch(_ items: [ProgressBatchItem]) async throws(ProgressAPIError) -> [ProgressBatchResult] {
    throw .unexpected(status: 404, message: "no batch endpoint")
  }

  // An API without generic resources answers like a backend without the endpoint.

  public func createResource(_ resource: String, body: Data, idempotencyKey: String?)
    async throws(ProgressAPIError) -> ResourceRecord
  {
    throw .unexpected(status: 404, message: "no resources endpoint")
  }

  public func updateResource(_ resource: String, id: String, body: Data, idempotencyKey: String?)
    async throws(ProgressAPIError) -> ResourceRecord
  {
    throw .unexpected(status: 404, message: "no resources endpoint")
  }

  public func deleteResource(_ resource: String, id: String, idempotencyKey: String?)
    async throws(ProgressAPIError)
  {
    throw .unexpected(status: 404, message: "no resources endpoint")
  }

  public func listResource(_ resource: String, _ query: ListQuery) async throws(ProgressAPIError)
    -> Page<ResourceRecord>
  {
    throw .unexpected(status: 404, message: "no resources endpoint")
  }

  public func getResource(_ resource: String, id: String) async throws(ProgressAPIError) -> ResourceRecord {
    throw .unexpected(status: 404, message: "no resources endpoint")
  }
}
