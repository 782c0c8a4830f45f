import Foundation
import StrictJSON

/// A progress row as the backend returns it (`GET /api/v1/progress`). `loggedAt` and `entryID` are
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

  public enum CodingKeys: String, CodingKey, CaseIterable {
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

/// A journal row as the backend returns it (`GET /api/v1/journal`).
public struct JournalRecord: Sendable, Hashable, Codable {
  public var id: String
  public var createdAt: String
  public var curriculumID: Int
  public var secondaryCurriculumID: Int?
  public var strategyID: Int?
  public var initiatedBy: String

  public enum CodingKeys: String, CodingKey, CaseIterable {
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

/// A row of a generic resource (`GET /api/v1/resources/{resource}`): the backend's id and
/// the JSON object the feature sent, as the server keeps it (canonical JSON).
public struct ResourceRecord: Sendable, Equatable, Codable {
  public var id: String
  public var body: [String: JSONValue]

  public enum CodingKeys: String, CodingKey, CaseIterable {
    case id, body
  }

  public init(id: String, body: [String: JSONValue]) {
    self.id = id
    self.body = body
  }
}

/// One page of a list (`{"data":{entries, total, limit, offset}}`).
public struct Page<Item: Sendable & Codable>: Sendable, Codable {
  public var entries: [Item]
  public var total: Int
  public var limit: Int
  public var offset: Int
  /// Why each entry of the page that could not be read was left out of `entries`: one
  /// bad row (a number JSON cannot hold, a missing field) must not hide the rest.
  public var skipped: [String]

  public init(entries: [Item], total: Int, limit: Int, offset: Int, skipped: [String] = []) {
    self.entries = entries
    self.total = total
    self.limit = limit
    self.offset = offset
    self.skipped = skipped
  }

  /// Rows the page held, read or not: what the next page's offset moves by.
  public var rowCount: Int { entries.count + skipped.count }

  public enum CodingKeys: String, CodingKey, CaseIterable {
    case entries, total, limit, offset
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let rows = try container.decode([Lossy].self, forKey: .entries)
    entries = rows.compactMap { try? $0.result.get() }
    skipped = rows.compactMap { row in
      guard case .failure(let error) = row.result else { return nil }
      return Self.reason(error)
    }
    total = try container.decode(Int.self, forKey: .total)
    limit = try container.decode(Int.self, forKey: .limit)
    offset = try container.decode(Int.self, forKey: .offset)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(entries, forKey: .entries)
    try container.encode(total, forKey: .total)
    try container.encode(limit, forKey: .limit)
    try container.encode(offset, forKey: .offset)
  }

  private struct Lossy: Decodable {
    var result: Result<Item, any Error>

    init(from decoder: any Decoder) throws {
      do {
        result = .success(try Item(from: decoder))
      } catch {
        result = .failure(error)
      }
    }
  }

  private static func reason(_ error: any Error) -> String {
    switch error as? DecodingError {
    case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
      let field = context.codingPath.last?.stringValue ?? "row"
      return "unreadable \(field): \(context.debugDescription)"
    case .keyNotFound(let key, _):
      return "missing \(key.stringValue)"
    default:
      return "unreadable row: \(error)"
    }
  }
}
