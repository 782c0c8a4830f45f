import Foundation
import GRDB
import Journal

/// The progress API of SPEC §3 without the HTTP server around it: authentication,
/// validation with the error envelope, idempotency keys, per-user isolation and
/// pagination. `ProgressServer` serves it over HTTP.
struct BackendAPI: Sendable {
  let store: BackendStore
  let apiKey: String
  let jwtSecret: String
  let catalog: JournalCatalog
  let now: @Sendable () -> Date

  static let maxNotesLength = 500
  static let maxLimit = 100
  static let defaultLimit = 50

  struct Request: Sendable {
    var method: String
    var path: String
    var query: [String: String]
    /// Header names in lower case.
    var headers: [String: String]
    var body: Data
  }

  /// A refusal, sent as `{"error":{"message","code"}}`.
  struct Refusal: Error {
    var status: Int
    var code: String
    var message: String

    static func invalid(_ message: String) -> Refusal {
      Refusal(status: 400, code: "validation_failed", message: message)
    }

    var response: BackendResponse {
      BackendResponse(
        status: status,
        body: BackendAPI.json(["error": ["message": message, "code": code]]))
    }
  }

  func respond(to request: Request) async -> BackendResponse {
    do {
      return try await route(request)
    } catch let refusal as Refusal {
      return refusal.response
    } catch {
      return Refusal(status: 500, code: "internal", message: "the server failed: \(error)").response
    }
  }

  private func route(_ request: Request) async throws -> BackendResponse {
    let parts = request.path.split(separator: "/").map(String.init)
    guard parts.count >= 3, parts[0] == "api", parts[1] == "v1", ["progress", "journal"].contains(parts[2]),
      parts.count <= 4, !(parts[2] == "journal" && parts.count == 4)
    else {
      throw Refusal(
        status: 404, code: "not_found", message: "no such endpoint: \(request.method) \(request.path)")
    }
    let userID = try authenticate(request)
    let key = request.headers["idempotency-key"].flatMap { $0.isEmpty ? nil : $0 }
    switch (parts[2], parts.count == 4 ? parts[3] : nil, request.method) {
    case ("progress", nil, "POST"): return try await createProgress(request, userID: userID, key: key)
    case ("progress", nil, "GET"): return try await listProgress(request, userID: userID)
    case ("progress", let id?, "GET"): return try await progress(id: id, userID: userID)
    case ("progress", let id?, "PUT"):
      return try await updateProgress(id: id, request, userID: userID, key: key)
    case ("progress", let id?, "DELETE"): return try await deleteProgress(id: id, userID: userID, key: key)
    case ("journal", nil, "POST"): return try await createJournal(request, userID: userID, key: key)
    case ("journal", nil, "GET"): return try await listJournal(request, userID: userID)
    default:
      throw Refusal(
        status: 405, code: "method_not_allowed",
        message: "\(request.method) is not allowed on \(request.path)")
    }
  }

  /// The user the bearer token names, after the API key and token check out.
  func authenticate(_ request: Request) throws -> String {
    guard let key = request.headers["x-api-key"], !key.isEmpty else {
      throw Refusal(status: 401, code: "missing_api_key", message: "send the API key in X-API-Key")
    }
    guard constantTimeEquals(key, apiKey) else {
      throw Refusal(status: 401, code: "invalid_api_key", message: "the API key is not valid")
    }
    guard let authorization = request.headers["authorization"], authorization.hasPrefix("Bearer "),
      authorization.count > 7
    else {
      throw Refusal(
        status: 401, code: "missing_token", message: "send a bearer token in Authorization: Bearer <token>")
    }
    do {
      return try JWT.verify(String(authorization.dropFirst(7)), secret: jwtSecret, now: now())
    } catch {
      throw Refusal(
        status: 401, code: error == .expired ? "token_expired" : "invalid_token", message: error.description)
    }
  }

  private func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    guard x.count == y.count else { return false }
    return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
  }

  // MARK: progress

  struct ProgressInput: Sendable {
    var type: String
    var quantity: Double
    var loggedAt: String
    var date: String
    var notes: String?
    var entryID: String?
  }

  func progressInput(_ body: Data) throws -> ProgressInput {
    let object = try jsonObject(body)
    guard case .string(let type) = object["type"], !type.isEmpty else {
      throw Refusal.invalid("type is required (e.g. \"mood_score\")")
    }
    guard type.count <= 50 else { throw Refusal.invalid("type must be at most 50 characters") }
    guard case .number(let quantity) = object["quantity"] else {
      throw Refusal.invalid("quantity is required and must be a number")
    }
    guard quantity.isFinite, quantity >= 0 else {
      throw Refusal.invalid("quantity must be 0 or more, got \(Self.format(quantity))")
    }
    guard case .string(let loggedAt) = object["logged_at"] else {
      throw Refusal.invalid("logged_at is required (an ISO 8601 date or date-time)")
    }
    guard let date = Self.day(of: loggedAt) else {
      throw Refusal.invalid("logged_at must be an ISO 8601 date or date-time, got \"\(loggedAt)\"")
    }
    var notes: String?
    switch object["notes"] {
    case nil, .null: notes = nil
    case .string(let text): notes = text
    default: throw Refusal.invalid("notes must be text")
    }
    if let text = notes, text.count > Self.maxNotesLength {
      throw Refusal.invalid("notes must be at most \(Self.maxNotesLength) characters, got \(text.count)")
    }
    var entryID: String?
    if case .string(let text) = object["entry_id"] { entryID = text }
    return ProgressInput(
      type: type, quantity: quantity, loggedAt: loggedAt, date: date, notes: notes, entryID: entryID)
  }

  private func createProgress(_ request: Request, userID: String, key: String?) async throws
    -> BackendResponse
  {
    let input = try progressInput(request.body)
    return try await store.idempotent(userID: userID, key: key) { db in
      // A client's entry is one row: a create sent again (a newer revision) updates it.
      if let entryID = input.entryID,
        let id = try String.fetchOne(
          db, sql: "SELECT id FROM progress WHERE user_id = ? AND entry_id = ?", arguments: [userID, entryID])
      {
        try Self.update(id: id, input, in: db)
        return BackendResponse(status: 200, body: try Self.progressJSON(id: id, userID: userID, in: db))
      }
      let id = UUID().uuidString.lowercased()
      try db.execute(
        sql: """
          INSERT INTO progress (id, user_id, type, quantity, logged_at, date, notes, entry_id)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?)
          """,
        arguments: [
          id, userID, input.type, input.quantity, input.loggedAt, input.date, input.notes, input.entryID,
        ])
      return BackendResponse(status: 201, body: try Self.progressJSON(id: id, userID: userID, in: db))
    }
  }

  private func updateProgress(id: String, _ request: Request, userID: String, key: String?) async throws
    -> BackendResponse
  {
    let input = try progressInput(request.body)
    let response = try await store.idempotent(userID: userID, key: key) { db in
      guard try Self.owns(id: id, userID: userID, table: "progress", in: db) else {
        return Self.notFound(id).response
      }
      try Self.update(id: id, input, in: db)
      return BackendResponse(status: 200, body: try Self.progressJSON(id: id, userID: userID, in: db))
    }
    return response
  }

  private static func update(id: String, _ input: ProgressInput, in db: Database) throws {
    try db.execute(
      sql: "UPDATE progress SET type = ?, quantity = ?, logged_at = ?, date = ?, notes = ? WHERE id = ?",
      arguments: [input.type, input.quantity, input.loggedAt, input.date, input.notes, id])
  }

  private func deleteProgress(id: String, userID: String, key: String?) async throws -> BackendResponse {
    try await store.idempotent(userID: userID, key: key) { db in
      guard try Self.owns(id: id, userID: userID, table: "progress", in: db) else {
        return Self.notFound(id).response
      }
      try db.execute(sql: "DELETE FROM progress WHERE id = ?", arguments: [id])
      return BackendResponse(status: 204, body: Data())
    }
  }

  private func progress(id: String, userID: String) async throws -> BackendResponse {
    try await store.read { db in
      guard try Self.owns(id: id, userID: userID, table: "progress", in: db) else {
        return Self.notFound(id).response
      }
      return BackendResponse(status: 200, body: try Self.progressJSON(id: id, userID: userID, in: db))
    }
  }

  private func listProgress(_ request: Request, userID: String) async throws -> BackendResponse {
    let page = try pageRequest(request.query)
    var conditions = ["user_id = ?"]
    var arguments: [(any DatabaseValueConvertible)?] = [userID]
    if let type = request.query["type"] {
      conditions.append("type = ?")
      arguments.append(type)
    }
    page.addDateBounds(to: &conditions, &arguments)
    let whereClause = conditions.joined(separator: " AND ")
    let frozen = StatementArguments(arguments)
    return try await store.read { db in
      let total = try Int.fetchOne(
        db, sql: "SELECT COUNT(*) FROM progress WHERE \(whereClause)", arguments: frozen)!
      let rows = try Row.fetchAll(
        db,
        sql: """
          SELECT id, type, quantity, date, notes, logged_at, entry_id FROM progress WHERE \(whereClause)
          ORDER BY date, seq LIMIT ? OFFSET ?
          """, arguments: frozen + [page.limit, page.offset])
      return BackendResponse(
        status: 200,
        body: Self.json([
          "data": [
            "entries": rows.map(Self.progressObject), "total": total, "limit": page.limit,
            "offset": page.offset,
          ]
        ]))
    }
  }

  private static func progressJSON(id: String, userID: String, in db: Database) throws -> Data {
    let row = try Row.fetchOne(
      db, sql: "SELECT id, type, quantity, date, notes, logged_at, entry_id FROM progress WHERE id = ?",
      arguments: [id])!
    return json(["data": progressObject(row)])
  }

  private static func progressObject(_ row: Row) -> [String: Any] {
    var object: [String: Any] = [
      "id": row["id"] as String, "type": row["type"] as String, "quantity": row["quantity"] as Double,
      "date": row["date"] as String, "notes": (row["notes"] as String?) ?? NSNull(),
      "logged_at": row["logged_at"] as String,
    ]
    if let entryID = row["entry_id"] as String? { object["entry_id"] = entryID }
    return object
  }

  // MARK: journal

  private func createJournal(_ request: Request, userID: String, key: String?) async throws -> BackendResponse
  {
    let object = try jsonObject(request.body)
    guard case .string(let createdAt) = object["created_at"] else {
      throw Refusal.invalid("created_at is required (an ISO 8601 date-time)")
    }
    guard let date = Self.day(of: createdAt) else {
      throw Refusal.invalid("created_at must be an ISO 8601 date or date-time, got \"\(createdAt)\"")
    }
    let primary = try catalogID(object, "curriculum_id", required: true) { catalog.entry($0) != nil }!
    let secondary = try catalogID(object, "secondary_curriculum_id", required: false) {
      catalog.entry($0) != nil
    }
    let strategy = try catalogID(object, "strategy_id", required: false) { catalog.strategy($0) != nil }
    guard case .string(let initiatedBy) = object["initiated_by"], ["self", "scheduled"].contains(initiatedBy)
    else {
      throw Refusal.invalid("initiated_by must be \"self\" or \"scheduled\"")
    }
    return try await store.idempotent(userID: userID, key: key) { db in
      let id = UUID().uuidString.lowercased()
      try db.execute(
        sql: """
          INSERT INTO journal (id, user_id, created_at, date, curriculum_id, secondary_curriculum_id,
            strategy_id, initiated_by)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?)
          """, arguments: [id, userID, createdAt, date, primary, secondary, strategy, initiatedBy])
      let row = try Row.fetchOne(db, sql: "\(Self.journalSelect) WHERE id = ?", arguments: [id])!
      return BackendResponse(status: 201, body: Self.json(["data": Self.journalObject(row)]))
    }
  }

  private static let journalSelect = """
    SELECT id, created_at, curriculum_id, secondary_curriculum_id, strategy_id, initiated_by FROM journal
    """

  private func catalogID(
    _ object: [String: JSONValue], _ name: String, required: Bool, known: (Int) -> Bool
  ) throws -> Int? {
    switch object[name] {
    case nil, .null:
      if required { throw Refusal.invalid("\(name) is required (an id of the bundled catalog)") }
      return nil
    case .number(let number) where number.rounded() == number && abs(number) < 1e15:
      let id = Int(number)
      guard known(id) else { throw Refusal.invalid("\(name) \(id) is not in the catalog") }
      return id
    default:
      throw Refusal.invalid("\(name) must be a whole number")
    }
  }

  private func listJournal(_ request: Request, userID: String) async throws -> BackendResponse {
    let page = try pageRequest(request.query)
    var conditions = ["user_id = ?"]
    var arguments: [(any DatabaseValueConvertible)?] = [userID]
    page.addDateBounds(to: &conditions, &arguments)
    let whereClause = conditions.joined(separator: " AND ")
    let frozen = StatementArguments(arguments)
    return try await store.read { db in
      let total = try Int.fetchOne(
        db, sql: "SELECT COUNT(*) FROM journal WHERE \(whereClause)", arguments: frozen)!
      let rows = try Row.fetchAll(
        db, sql: "\(Self.journalSelect) WHERE \(whereClause) ORDER BY date, seq LIMIT ? OFFSET ?",
        arguments: frozen + [page.limit, page.offset])
      return BackendResponse(
        status: 200,
        body: Self.json([
          "data": [
            "entries": rows.map(Self.journalObject), "total": total, "limit": page.limit,
            "offset": page.offset,
          ]
        ]))
    }
  }

  private static func journalObject(_ row: Row) -> [String: Any] {
    [
      "id": row["id"] as String, "created_at": row["created_at"] as String,
      "curriculum_id": row["curriculum_id"] as Int,
      "secondary_curriculum_id": (row["secondary_curriculum_id"] as Int?) ?? NSNull(),
      "strategy_id": (row["strategy_id"] as Int?) ?? NSNull(), "initiated_by": row["initiated_by"] as String,
    ]
  }

  // MARK: shared

  struct PageRequest {
    var limit: Int
    var offset: Int
    var from: String?
    var to: String?

    func addDateBounds(to conditions: inout [String], _ arguments: inout [(any DatabaseValueConvertible)?]) {
      if let from {
        conditions.append("date >= ?")
        arguments.append(from)
      }
      if let to {
        conditions.append("date <= ?")
        arguments.append(to)
      }
    }
  }

  func pageRequest(_ query: [String: String]) throws -> PageRequest {
    var page = PageRequest(limit: Self.defaultLimit, offset: 0)
    if let text = query["limit"] {
      guard let limit = Int(text), (1...Self.maxLimit).contains(limit) else {
        throw Refusal.invalid("limit must be a whole number from 1 to \(Self.maxLimit), got \"\(text)\"")
      }
      page.limit = limit
    }
    if let text = query["offset"] {
      guard let offset = Int(text), offset >= 0 else {
        throw Refusal.invalid("offset must be a whole number ≥ 0, got \"\(text)\"")
      }
      page.offset = offset
    }
    for name in ["from", "to"] {
      guard let text = query[name] else { continue }
      guard Self.isDay(text) else {
        throw Refusal.invalid("\(name) must be a date YYYY-MM-DD, got \"\(text)\"")
      }
      if name == "from" { page.from = text } else { page.to = text }
    }
    if let from = page.from, let to = page.to, from > to {
      throw Refusal.invalid("from (\(from)) is after to (\(to))")
    }
    return page
  }

  private func jsonObject(_ body: Data) throws -> [String: JSONValue] {
    guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: body) else {
      throw Refusal.invalid("the body must be a JSON object")
    }
    return object
  }

  private static func owns(id: String, userID: String, table: String, in db: Database) throws -> Bool {
    try Bool.fetchOne(
      db, sql: "SELECT EXISTS (SELECT 1 FROM \(table) WHERE id = ? AND user_id = ?)", arguments: [id, userID])!
  }

  private static func notFound(_ id: String) -> Refusal {
    Refusal(status: 404, code: "not_found", message: "no progress entry \(id)")
  }

  /// The calendar day a date or date-time names, as written (its own offset's day):
  /// `YYYY-MM-DD`, optionally followed by `THH:MM[:SS[.fff]]` and `Z` or `±HH:MM`.
  static func day(of text: String) -> String? {
    let prefix = String(text.prefix(10))
    guard isDay(prefix) else { return nil }
    guard text.count > 10 else { return prefix }
    let time = Array(text.dropFirst(10))
    guard time.first == "T" || time.first == " " else { return nil }
    var index = 1
    func number(_ digits: Int, max: Int) -> Bool {
      guard index + digits <= time.count, let value = Int(String(time[index..<index + digits])),
        time[index..<index + digits].allSatisfy(\.isASCII), value <= max
      else { return false }
      index += digits
      return true
    }
    func take(_ character: Character) -> Bool {
      guard index < time.count, time[index] == character else { return false }
      index += 1
      return true
    }
    guard number(2, max: 23), take(":"), number(2, max: 59) else { return nil }
    if take(":") {
      guard number(2, max: 60) else { return nil }
      if take(".") {
        let start = index
        while index < time.count, time[index].isASCII, time[index].isNumber { index += 1 }
        guard index > start else { return nil }
      }
    }
    if index == time.count || take("Z") { return index == time.count ? prefix : nil }
    guard take("+") || take("-"), number(2, max: 23) else { return nil }
    _ = take(":")
    guard number(2, max: 59), index == time.count else { return nil }
    return prefix
  }

  static func isDay(_ text: String) -> Bool {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard text.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
      text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "-") }), let year = Int(parts[0]),
      let month = Int(parts[1]), let day = Int(parts[2]), (1...12).contains(month), day >= 1
    else { return false }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    guard let date = calendar.date(from: DateComponents(year: year, month: month, day: day)) else {
      return false
    }
    return calendar.component(.day, from: date) == day && calendar.component(.month, from: date) == month
  }

  static func json(_ object: Any) -> Data {
    (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
  }

  static func format(_ value: Double) -> String {
    value.rounded() == value ? String(Int(value)) : String(value)
  }
}

/// A JSON value, read strictly: `true` is not a number and `"3"` is not a number.
enum JSONValue: Decodable, Sendable, Equatable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case other

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let bool = try? container.decode(Bool.self) {
      self = .bool(bool)
    } else if let number = try? container.decode(Double.self) {
      self = .number(number)
    } else if let string = try? container.decode(String.self) {
      self = .string(string)
    } else {
      self = .other
    }
  }
}
