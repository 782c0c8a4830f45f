import Foundation
import JournalCatalog
import ProgressContract
import StrictJSON

// The wire's names are the contract's (ProgressContract); messages name them from there.
private typealias P = ProgressInputField
private typealias J = JournalInputField
private typealias Q = ListParameter

/// A progress write's fields, read and checked from its JSON body.
struct ProgressInput: Sendable {
  static let maxNotesLength = 500
  /// The one progress type: a mood score, a whole number in `scores`.
  static let moodScore = ProgressType.moodScore
  static let scores = 1...10

  var type: String
  var quantity: Int
  var loggedAt: String
  var date: String
  var notes: String?
  var entryID: String?

  init(type: String, quantity: Int, loggedAt: String, date: String, notes: String?, entryID: String?) {
    self.type = type
    self.quantity = quantity
    self.loggedAt = loggedAt
    self.date = date
    self.notes = notes
    self.entryID = entryID
  }

  init(_ object: [String: JSONValue]) throws(Refusal) {
    guard case .string(let type) = object[P.type.rawValue], !type.isEmpty else {
      throw Refusal.invalid("\(P.type) is required (e.g. \"\(Self.moodScore)\")")
    }
    guard type == Self.moodScore else {
      throw Refusal.invalid("\(P.type) must be \"\(Self.moodScore)\", got \"\(type.prefix(50))\"")
    }
    guard case .number(let number) = object[P.quantity.rawValue] else {
      throw Refusal.invalid("\(P.quantity) is required and must be a number")
    }
    guard let quantity = Int(exactly: number), Self.scores.contains(quantity) else {
      throw Refusal.invalid(
        "\(P.quantity) must be a whole number from \(Self.scores.lowerBound) to \(Self.scores.upperBound), "
          + "got \(JSONText.number(number))")
    }
    guard case .string(let loggedAt) = object[P.loggedAt.rawValue] else {
      throw Refusal.invalid("\(P.loggedAt) is required (an ISO 8601 date or date-time)")
    }
    guard let date = WireDate.day(of: loggedAt) else {
      throw Refusal.invalid(
        "\(P.loggedAt) must be an ISO 8601 date or date-time, got \"\(loggedAt.prefix(50))\"")
    }
    var notes: String?
    switch object[P.notes.rawValue] {
    case nil, .null: notes = nil
    case .string(let text): notes = text
    default: throw Refusal.invalid("\(P.notes) must be text")
    }
    if let text = notes, text.count > Self.maxNotesLength {
      throw Refusal.invalid("\(P.notes) must be at most \(Self.maxNotesLength) characters, got \(text.count)")
    }
    // Notes may hold line breaks and tabs, but not a NUL, which SQLite would end them at.
    if let text = notes, text.unicodeScalars.contains("\u{0}") {
      throw Refusal.invalid("\(P.notes) must not hold the NUL character (U+0000)")
    }
    var entryID: String?
    switch object[P.entryID.rawValue] {
    case nil, .null: entryID = nil
    case .string(let text):
      try Refusal.checkName(text, P.entryID.rawValue)
      entryID = text
    default: throw Refusal.invalid("\(P.entryID) must be text")
    }
    self.init(type: type, quantity: quantity, loggedAt: loggedAt, date: date, notes: notes, entryID: entryID)
  }
}

/// A journal entry's fields; ids not in the bundled catalog are refused.
struct JournalInput: Sendable {
  var createdAt: String
  var date: String
  var curriculumID: Int
  var secondaryCurriculumID: Int?
  var strategyID: Int?
  var initiatedBy: String

  init(_ object: [String: JSONValue], catalog: JournalCatalog) throws(Refusal) {
    guard case .string(let createdAt) = object[J.createdAt.rawValue] else {
      throw Refusal.invalid("\(J.createdAt) is required (an ISO 8601 date-time)")
    }
    guard let date = WireDate.day(of: createdAt) else {
      throw Refusal.invalid(
        "\(J.createdAt) must be an ISO 8601 date or date-time, got \"\(createdAt.prefix(50))\"")
    }
    let primary = try Self.catalogID(object, J.curriculumID, required: true) { catalog.entry($0) != nil }!
    let secondary = try Self.catalogID(object, J.secondaryCurriculumID, required: false) {
      catalog.entry($0) != nil
    }
    let strategy = try Self.catalogID(object, J.strategyID, required: false) { catalog.strategy($0) != nil }
    guard case .string(let initiatedBy) = object[J.initiatedBy.rawValue],
      ["self", "scheduled"].contains(initiatedBy)
    else {
      throw Refusal.invalid("\(J.initiatedBy) must be \"self\" or \"scheduled\"")
    }
    self.createdAt = createdAt
    self.date = date
    self.curriculumID = primary
    self.secondaryCurriculumID = secondary
    self.strategyID = strategy
    self.initiatedBy = initiatedBy
  }

  private static func catalogID(
    _ object: [String: JSONValue], _ field: JournalInputField, required: Bool, known: (Int) -> Bool
  ) throws(Refusal) -> Int? {
    let name = field.rawValue
    switch object[name] {
    case nil, .null:
      if required { throw Refusal.invalid("\(name) is required (an id of the bundled catalog)") }
      return nil
    case .number(let number):
      guard let id = Int(exactly: number) else { throw Refusal.invalid("\(name) must be a whole number") }
      guard known(id) else { throw Refusal.invalid("\(name) \(id) is not in the catalog") }
      return id
    default:
      throw Refusal.invalid("\(name) must be a whole number")
    }
  }
}

/// A list's page and date bounds, from the query.
struct PageRequest: Sendable {
  static let maxLimit = 100
  static let defaultLimit = 50

  var limit = PageRequest.defaultLimit
  var offset = 0
  var from: String?
  var to: String?

  init(limit: Int = PageRequest.defaultLimit, offset: Int = 0) {
    self.limit = limit
    self.offset = offset
  }

  init(query: [String: String]) throws(Refusal) {
    if let text = query[Q.limit.rawValue] {
      guard let limit = Self.wholeNumber(text), (1...Self.maxLimit).contains(limit) else {
        throw Refusal.invalid(
          "\(Q.limit) must be a whole number from 1 to \(Self.maxLimit), got \"\(text.prefix(50))\"")
      }
      self.limit = limit
    }
    if let text = query[Q.offset.rawValue] {
      guard let offset = Self.wholeNumber(text) else {
        throw Refusal.invalid("\(Q.offset) must be a whole number ≥ 0, got \"\(text.prefix(50))\"")
      }
      self.offset = offset
    }
    for parameter in [Q.from, Q.to] {
      let name = parameter.rawValue
      guard let text = query[name] else { continue }
      guard WireDate.isDay(text) else {
        throw Refusal.invalid("\(name) must be a date YYYY-MM-DD, got \"\(text.prefix(50))\"")
      }
      if parameter == .from { from = text } else { to = text }
    }
    if let from, let to, from > to {
      throw Refusal.invalid("\(Q.from) (\(from)) is after \(Q.to) (\(to))")
    }
  }

  /// Decimal digits alone (no sign, no spaces) that fit an `Int`; nil for anything else.
  static func wholeNumber(_ text: String) -> Int? {
    guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
    return Int(text)
  }
}
