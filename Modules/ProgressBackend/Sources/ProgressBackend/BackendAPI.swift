import Crypto
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
  let tokens = TokenCache()

  static let maxNotesLength = 500
  /// The one progress type: a mood score, a whole number in `scores`.
  static let moodScore = "mood_score"
  static let scores = 1...10
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
    let id = parts.count == 4 ? (parts[3].removingPercentEncoding ?? parts[3]) : nil
    switch (parts[2], id, request.method) {
    case ("progress", "batch", "POST"): return try await batch(request, userID: userID)
    case ("progress", "batch", _):
      throw Refusal(
        status: 405, code: "method_not_allowed",
        message: "\(request.method) is not allowed on \(request.path)")
    case ("progress", nil, "POST"):
      return try await perform(
        write(method: "POST", path: Self.progressPath(nil), body: request.body, key: key) {
          .createProgress(try progressInput($0))
        }, userID: userID)
    case ("progress", nil, "GET"): return try await listProgress(request, userID: userID)
    case ("progress", let id?, "GET"): return try await progress(id: id, userID: userID)
    case ("progress", let id?, "PUT"):
      return try await perform(
        write(method: "PUT", path: Self.progressPath(id), body: request.body, key: key) {
          .updateProgress(id: id, try progressInput($0))
        }, userID: userID)
    case ("progress", let id?, "DELETE"):
      return try await perform(
        write(method: "DELETE", path: Self.progressPath(id), body: nil, key: key) { _ in
          .deleteProgress(id: id)
        },
        userID: userID)
    case ("journal", nil, "POST"):
      return try await perform(
        write(method: "POST", path: "/api/v1/journal", body: request.body, key: key) {
          .createJournal(try journalInput($0))
        }, userID: userID)
    case ("journal", nil, "GET"): return try await listJournal(request, userID: userID)
    default:
      throw Refusal(
        status: 405, code: "method_not_allowed",
        message: "\(request.method) is not allowed on \(request.path)")
    }
  }

  static func progressPath(_ id: String?) -> String {
    id.map { "/api/v1/progress/\($0)" } ?? "/api/v1/progress"
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
      return try tokens.subject(of: String(authorization.dropFirst(7)), secret: jwtSecret, now: now())
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

  // MARK: writes

  /// A write as one request or one batch item: the idempotency key, what a reused key
  /// is compared against, and what to do.
  struct Write: Sendable {
    enum Action: Sendable {
      case createProgress(ProgressInput)
      case updateProgress(id: String, ProgressInput)
      case deleteProgress(id: String)
      case createJournal(JournalInput)
    }

    var key: String?
    /// SHA-256 of the method, the path and the body as JSON values (key order and
    /// spacing do not count), so a batch item and a single call can be the same request.
    var fingerprint: Data
    /// What to do, or why the request is refused. A refusal is answered only after the
    /// key is looked up: a reused key with another body is a 422, not a 400.
    var action: Result<Action, Refusal>
  }

  /// A single call's write; `body` nil for a method without one (`DELETE`).
  private func write(
    method: String, path: String, body: Data?, key: String?,
    _ action: ([String: JSONValue]) throws -> Write.Action
  ) -> Write {
    let parsed = body.flatMap { try? JSONDecoder().decode(JSONValue.self, from: $0) }
    var canonical: [UInt8] = []
    if let parsed {
      canonical.append(1)
      parsed.canonical(into: &canonical)
    } else if let body {
      canonical.append(2)
      canonical.append(contentsOf: body)
    }
    return Write(
      key: key, fingerprint: Self.fingerprint(method: method, path: path, body: canonical),
      action: Self.refusing {
        guard body != nil else { return try action([:]) }
        guard case .object(let object) = parsed else {
          throw Refusal.invalid("the body must be a JSON object")
        }
        return try action(object)
      })
  }

  static func fingerprint(method: String, path: String, body: [UInt8]) -> Data {
    var hash = SHA256()
    hash.update(data: Array(method.utf8) + [0] + Array(path.utf8) + [0])
    hash.update(data: body)
    return Data(hash.finalize())
  }

  private static func refusing(_ body: () throws -> Write.Action) -> Result<Write.Action, Refusal> {
    do {
      return .success(try body())
    } catch let refusal as Refusal {
      return .failure(refusal)
    } catch {
      return .failure(Refusal(status: 500, code: "internal", message: "the server failed: \(error)"))
    }
  }

  /// One write in its own transaction.
  private func perform(_ write: Write, userID: String) async throws -> BackendResponse {
    try await store.write { db in try Self.perform(write, userID: userID, in: db) }
  }

  /// Inside a write transaction: the answer to `write`. A key the user sent before gets
  /// the first answer again, and nothing is written, when the request is the same
  /// (method, path, body); another request under that key is refused with 422. Otherwise
  /// the write runs, and a success is kept under its key. Refusals are not kept, so a
  /// request that failed may be sent again with its key.
  static func perform(_ write: Write, userID: String, in db: Database) throws -> BackendResponse {
    if let key = write.key, let first = try BackendStore.answer(userID: userID, key: key, in: db) {
      // Keys kept before fingerprints were (nil) replay as they always did.
      if let fingerprint = first.fingerprint, fingerprint != write.fingerprint {
        return Refusal(
          status: 422, code: "idempotency_key_reused",
          message:
            "the Idempotency-Key \"\(key.prefix(100))\" was used for another request (method, path or body); "
            + "send a new key for a new request"
        ).response
      }
      return first.response
    }
    let action: Write.Action
    switch write.action {
    case .success(let value): action = value
    case .failure(let refusal): return refusal.response
    }
    let response = try apply(action, userID: userID, in: db)
    if let key = write.key, (200..<300).contains(response.status) {
      try BackendStore.keep(response, fingerprint: write.fingerprint, userID: userID, key: key, in: db)
    }
    return response
  }

  private static func apply(_ action: Write.Action, userID: String, in db: Database) throws -> BackendResponse
  {
    switch action {
    case .createProgress(let input):
      // A client's entry is one row: a create sent again (a newer revision) updates it.
      if let entryID = input.entryID,
        let id = try String.fetchOne(
          db, sql: "SELECT id FROM progress WHERE user_id = ? AND entry_id = ?", arguments: [userID, entryID])
      {
        try update(id: id, input, in: db)
        return BackendResponse(status: 200, body: try progressJSON(id: id, userID: userID, in: db))
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
      return BackendResponse(status: 201, body: try progressJSON(id: id, userID: userID, in: db))
    case .updateProgress(let id, let input):
      guard try owns(id: id, userID: userID, table: "progress", in: db) else { return notFound(id).response }
      try update(id: id, input, in: db)
      return BackendResponse(status: 200, body: try progressJSON(id: id, userID: userID, in: db))
    case .deleteProgress(let id):
      guard try owns(id: id, userID: userID, table: "progress", in: db) else { return notFound(id).response }
      try db.execute(sql: "DELETE FROM progress WHERE id = ?", arguments: [id])
      return BackendResponse(status: 204, body: Data())
    case .createJournal(let input):
      let id = UUID().uuidString.lowercased()
      try db.execute(
        sql: """
          INSERT INTO journal (id, user_id, created_at, date, curriculum_id, secondary_curriculum_id,
            strategy_id, initiated_by)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?)
          """,
        arguments: [
          id, userID, input.createdAt, input.date, input.curriculumID, input.secondaryCurriculumID,
          input.strategyID, input.initiatedBy,
        ])
      let row = try Row.fetchOne(db, sql: "\(journalSelect) WHERE id = ?", arguments: [id])!
      return BackendResponse(status: 201, body: json(["data": journalObject(row)]))
    }
  }

  // MARK: batch

  static let maxBatchItems = 100

  /// `POST /api/v1/progress/batch`: up to 100 progress writes in one transaction, each
  /// answered as its single call would be (a batch item and a single call with the same
  /// key are the same request). A malformed batch is refused whole with 400.
  private func batch(_ request: Request, userID: String) async throws -> BackendResponse {
    let writes = try batchWrites(request.body)
    let answers = try await store.write { db in
      try writes.map { try Self.perform($0, userID: userID, in: db) }
    }
    let results = answers.map { answer -> [String: Any] in
      // The body is `{"data": …}` or `{"error": …}` (none for 204): the item's result beside its status.
      var result = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
      result["status"] = answer.status
      return result
    }
    return BackendResponse(status: 200, body: Self.json(["data": ["results": results]]))
  }

  private func batchWrites(_ body: Data) throws -> [Write] {
    guard let parsed = try? JSONDecoder().decode(JSONValue.self, from: body),
      case .object(let object) = parsed
    else { throw Refusal.invalid("the body must be a JSON object {\"items\": [...]}") }
    guard case .array(let items) = object["items"] else {
      throw Refusal.invalid("items is required: an array of at most \(Self.maxBatchItems) writes")
    }
    guard items.count <= Self.maxBatchItems else {
      throw Refusal.invalid("a batch holds at most \(Self.maxBatchItems) items, got \(items.count)")
    }
    return try items.enumerated().map { index, item in
      let name = "items[\(index)]"
      guard case .object(let item) = item else { throw Refusal.invalid("\(name) must be an object") }
      guard case .string(let key) = item["idempotency_key"], !key.isEmpty else {
        throw Refusal.invalid("\(name).idempotency_key is required (a non-empty string)")
      }
      guard case .string(let method) = item["method"], ["POST", "PUT", "DELETE"].contains(method) else {
        throw Refusal.invalid("\(name).method must be \"POST\", \"PUT\" or \"DELETE\"")
      }
      var id: String?
      switch item["id"] {
      case nil, .null: id = nil
      case .string(let text) where !text.isEmpty: id = text
      default: throw Refusal.invalid("\(name).id must be a non-empty string")
      }
      if method == "POST", id != nil { throw Refusal.invalid("\(name).id is not sent with POST") }
      if method != "POST", id == nil { throw Refusal.invalid("\(name).id is required with \(method)") }
      let path = Self.progressPath(id)
      guard method != "DELETE" else {
        return Write(
          key: key, fingerprint: Self.fingerprint(method: method, path: path, body: []),
          action: .success(.deleteProgress(id: id!)))
      }
      guard case .object(let body) = item["body"] else {
        throw Refusal.invalid("\(name).body is required with \(method): the object the single call sends")
      }
      var canonical: [UInt8] = [1]
      JSONValue.object(body).canonical(into: &canonical)
      return Write(
        key: key, fingerprint: Self.fingerprint(method: method, path: path, body: canonical),
        action: Self.refusing {
          let input = try progressInput(body)
          return id.map { .updateProgress(id: $0, input) } ?? .createProgress(input)
        })
    }
  }

  // MARK: progress

  struct ProgressInput: Sendable {
    var type: String
    var quantity: Int
    var loggedAt: String
    var date: String
    var notes: String?
    var entryID: String?
  }

  func progressInput(_ object: [String: JSONValue]) throws -> ProgressInput {
    guard case .string(let type) = object["type"], !type.isEmpty else {
      throw Refusal.invalid("type is required (e.g. \"mood_score\")")
    }
    guard type == Self.moodScore else {
      throw Refusal.invalid("type must be \"\(Self.moodScore)\", got \"\(type.prefix(50))\"")
    }
    guard case .number(let number) = object["quantity"] else {
      throw Refusal.invalid("quantity is required and must be a number")
    }
    guard let quantity = Int(exactly: number), Self.scores.contains(quantity) else {
      throw Refusal.invalid(
        "quantity must be a whole number from \(Self.scores.lowerBound) to \(Self.scores.upperBound), "
          + "got \(Self.format(number))")
    }
    guard case .string(let loggedAt) = object["logged_at"] else {
      throw Refusal.invalid("logged_at is required (an ISO 8601 date or date-time)")
    }
    guard let date = Self.day(of: loggedAt) else {
      throw Refusal.invalid("logged_at must be an ISO 8601 date or date-time, got \"\(loggedAt.prefix(50))\"")
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

  private static func update(id: String, _ input: ProgressInput, in db: Database) throws {
    try db.execute(
      sql: "UPDATE progress SET type = ?, quantity = ?, logged_at = ?, date = ?, notes = ? WHERE id = ?",
      arguments: [input.type, input.quantity, input.loggedAt, input.date, input.notes, id])
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

  struct JournalInput: Sendable {
    var createdAt: String
    var date: String
    var curriculumID: Int
    var secondaryCurriculumID: Int?
    var strategyID: Int?
    var initiatedBy: String
  }

  /// A journal entry's fields; ids not in the bundled catalog are refused.
  func journalInput(_ object: [String: JSONValue]) throws -> JournalInput {
    guard case .string(let createdAt) = object["created_at"] else {
      throw Refusal.invalid("created_at is required (an ISO 8601 date-time)")
    }
    guard let date = Self.day(of: createdAt) else {
      throw Refusal.invalid(
        "created_at must be an ISO 8601 date or date-time, got \"\(createdAt.prefix(50))\"")
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
    return JournalInput(
      createdAt: createdAt, date: date, curriculumID: primary, secondaryCurriculumID: secondary,
      strategyID: strategy, initiatedBy: initiatedBy)
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
    case .number(let number):
      guard let id = Int(exactly: number) else { throw Refusal.invalid("\(name) must be a whole number") }
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
      guard let limit = Self.wholeNumber(text), (1...Self.maxLimit).contains(limit) else {
        throw Refusal.invalid(
          "limit must be a whole number from 1 to \(Self.maxLimit), got \"\(text.prefix(50))\"")
      }
      page.limit = limit
    }
    if let text = query["offset"] {
      guard let offset = Self.wholeNumber(text) else {
        throw Refusal.invalid("offset must be a whole number ≥ 0, got \"\(text.prefix(50))\"")
      }
      page.offset = offset
    }
    for name in ["from", "to"] {
      guard let text = query[name] else { continue }
      guard Self.isDay(text) else {
        throw Refusal.invalid("\(name) must be a date YYYY-MM-DD, got \"\(text.prefix(50))\"")
      }
      if name == "from" { page.from = text } else { page.to = text }
    }
    if let from = page.from, let to = page.to, from > to {
      throw Refusal.invalid("from (\(from)) is after to (\(to))")
    }
    return page
  }

  /// Decimal digits alone (no sign, no spaces) that fit an `Int`; nil for anything else.
  static func wholeNumber(_ text: String) -> Int? {
    guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
    return Int(text)
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
      guard index + digits <= time.count,
        time[index..<index + digits].allSatisfy({ $0.isASCII && $0.isNumber }),
        let value = Int(String(time[index..<index + digits])), value <= max
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

  /// A number as JSON wrote it, near enough: whole numbers without a fraction. Never traps.
  static func format(_ value: Double) -> String {
    if let whole = Int(exactly: value) { return String(whole) }
    return String(value)
  }
}

/// A JSON value, read strictly: `true` is not a number and `"3"` is not a number. Nesting
/// is bounded by the decoder (it refuses documents nested deeper than a few hundred levels).
enum JSONValue: Decodable, Sendable, Equatable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

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
    } else if let array = try? container.decode([JSONValue].self) {
      self = .array(array)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  /// Appends bytes that are equal for equal values, whatever the key order or spacing.
  func canonical(into bytes: inout [UInt8]) {
    func append(_ text: String) {
      let utf8 = Array(text.utf8)
      withUnsafeBytes(of: UInt64(utf8.count).bigEndian) { bytes.append(contentsOf: $0) }
      bytes.append(contentsOf: utf8)
    }
    switch self {
    case .null: bytes.append(0x6E)
    case .bool(let value): bytes.append(value ? 0x74 : 0x66)
    case .number(let value):
      bytes.append(0x64)
      // 0 and -0 are the same number.
      withUnsafeBytes(of: (value == 0 ? 0 : value).bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
    case .string(let value):
      bytes.append(0x73)
      append(value)
    case .array(let values):
      bytes.append(0x5B)
      withUnsafeBytes(of: UInt64(values.count).bigEndian) { bytes.append(contentsOf: $0) }
      for value in values { value.canonical(into: &bytes) }
    case .object(let members):
      bytes.append(0x7B)
      withUnsafeBytes(of: UInt64(members.count).bigEndian) { bytes.append(contentsOf: $0) }
      for name in members.keys.sorted() {
        append(name)
        members[name]!.canonical(into: &bytes)
      }
    }
  }
}
