import Foundation

/// A progress row as the backend returns it (SPEC §3). `loggedAt` and `entryID` are
/// the instant and client id the row was sent with, when the client gave them.
public struct ProgressRecord: Sendable, Hashable, Codable {
  public var id: String
  public var type: String
  public var quantity: Double
  /// The day, `YYYY-MM-DD`.
  public var date: String
  public var notes: String?
  public var loggedAt: String?
  public var entryID: String?

  enum CodingKeys: String, CodingKey {
    case id, type, quantity, date, notes
    case loggedAt = "logged_at"
    case entryID = "entry_id"
  }

  public init(
    id: String, type: String, quantity: Double, date: String, notes: String? = nil, loggedAt: String? = nil,
    entryID: String? = nil
  ) {
    self.id = id
    self.type = type
    self.quantity = quantity
    self.date = date
    self.notes = notes
    self.loggedAt = loggedAt
    self.entryID = entryID
  }
}

/// A journal row as the backend returns it (SPEC §3).
public struct JournalRecord: Sendable, Hashable, Codable {
  public var id: String
  public var createdAt: String
  public var curriculumID: Int
  public var secondaryCurriculumID: Int?
  public var strategyID: Int?
  public var initiatedBy: String

  enum CodingKeys: String, CodingKey {
    case id
    case createdAt = "created_at"
    case curriculumID = "curriculum_id"
    case secondaryCurriculumID = "secondary_curriculum_id"
    case strategyID = "strategy_id"
    case initiatedBy = "initiated_by"
  }

  public init(
    id: String, createdAt: String, curriculumID: Int, secondaryCurriculumID: Int? = nil,
    strategyID: Int? = nil,
    initiatedBy: String
  ) {
    self.id = id
    self.createdAt = createdAt
    self.curriculumID = curriculumID
    self.secondaryCurriculumID = secondaryCurriculumID
    self.strategyID = strategyID
    self.initiatedBy = initiatedBy
  }
}

/// One page of a list (`{"data":{entries, total, limit, offset}}`).
public struct Page<Item: Sendable & Codable>: Sendable, Codable {
  public var entries: [Item]
  public var total: Int
  public var limit: Int
  public var offset: Int

  public init(entries: [Item], total: Int, limit: Int, offset: Int) {
    self.entries = entries
    self.total = total
    self.limit = limit
    self.offset = offset
  }
}

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
    if let type { items.append(URLQueryItem(name: "type", value: type)) }
    if let from { items.append(URLQueryItem(name: "from", value: from)) }
    if let to { items.append(URLQueryItem(name: "to", value: to)) }
    if let limit { items.append(URLQueryItem(name: "limit", value: String(limit))) }
    if let offset { items.append(URLQueryItem(name: "offset", value: String(offset))) }
    return items
  }
}

/// Why a request failed, with the server's own message where it sent one.
public enum ProgressAPIError: Error, Sendable, Equatable, CustomStringConvertible {
  /// 400: the request is wrong and sending it again will not help.
  case badRequest(String)
  /// 401: the API key or token is missing, expired or forged.
  case unauthorized(String)
  /// 404: no such row for this user.
  case notFound(String)
  /// 5xx: the server failed; worth trying again later.
  case server(status: Int, message: String)
  /// No answer within the timeout.
  case timeout
  /// The device has no network (or the runner's `network: offline`).
  case offline
  /// Nothing answered at the address (server down, connection refused or reset).
  case unreachable(String)
  /// Any other status, or a body that is not the contract's.
  case unexpected(status: Int, message: String)

  /// Whether a later attempt may succeed without the request changing.
  public var isTransient: Bool {
    switch self {
    case .server, .timeout, .offline, .unreachable, .unauthorized: true
    case .badRequest, .notFound, .unexpected: false
    }
  }

  /// Whether the backend is out of reach, so the rest of a pass would fail the same way.
  public var endsPass: Bool {
    switch self {
    case .timeout, .offline, .unreachable, .unauthorized: true
    case .server, .badRequest, .notFound, .unexpected: false
    }
  }

  /// A short name for events and logs.
  public var code: String {
    switch self {
    case .badRequest: "bad_request"
    case .unauthorized: "unauthorized"
    case .notFound: "not_found"
    case .server: "server_error"
    case .timeout: "timeout"
    case .offline: "offline"
    case .unreachable: "unreachable"
    case .unexpected: "unexpected"
    }
  }

  public var description: String {
    switch self {
    case .badRequest(let message): "the backend refused the request (400): \(message)"
    case .unauthorized(let message): "the backend refused the credentials (401): \(message)"
    case .notFound(let message): "the backend has no such row (404): \(message)"
    case .server(let status, let message): "the backend failed (\(status)): \(message)"
    case .timeout: "the backend did not answer in time"
    case .offline: "the device is offline"
    case .unreachable(let message): "the backend cannot be reached: \(message)"
    case .unexpected(let status, let message): "unexpected answer from the backend (\(status)): \(message)"
    }
  }
}

/// The progress API of SPEC §3, as the outbox processor uses it. Bodies are the JSON
/// the outbox holds; `idempotencyKey` makes a retried send return the first result.
public protocol ProgressAPI: Sendable {
  func createProgress(body: Data, idempotencyKey: String?) async throws(ProgressAPIError) -> ProgressRecord
  func updateProgress(id: String, body: Data, idempotencyKey: String?) async throws(ProgressAPIError)
    -> ProgressRecord
  func deleteProgress(id: String, idempotencyKey: String?) async throws(ProgressAPIError)
  func listProgress(_ query: ListQuery) async throws(ProgressAPIError) -> Page<ProgressRecord>
  func createJournal(body: Data, idempotencyKey: String?) async throws(ProgressAPIError) -> JournalRecord
  func listJournal(_ query: ListQuery) async throws(ProgressAPIError) -> Page<JournalRecord>
}
