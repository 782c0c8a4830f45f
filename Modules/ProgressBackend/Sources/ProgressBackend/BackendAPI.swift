import Crypto
import FlowKit
import Foundation
import GRDB
import JournalCatalog

/// The progress API of SPEC §3 without the HTTP server around it: authentication,
/// validation with the error envelope, idempotency keys, per-user isolation and
/// pagination. `ProgressServer` serves it over HTTP.
struct BackendAPI: Sendable {
  let store: BackendStore
  let apiKey: String
  let jwtSecret: String
  /// `iss` and `aud` a token must carry, when the server is configured with them.
  var jwtIssuer: String? = nil
  var jwtAudience: String? = nil
  let catalog: JournalCatalog
  let now: @Sendable () -> Date
  /// Told of every failure answered 500, with the id the answer names (the server logs it).
  var failed: @Sendable (_ id: String, _ error: any Error) -> Void = { _, _ in }
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
    /// With a 405: the methods the path takes.
    var allow: [String]? = nil

    static func invalid(_ message: String) -> Refusal {
      Refusal(status: 400, code: "validation_failed", message: message)
    }

    var response: BackendResponse {
      BackendResponse(
        status: status,
        body: BackendAPI.json(["error": ["message": message, "code": code]]), allow: allow)
    }

    static func notAllowed(_ request: Request, allow: [String]) -> Refusal {
      Refusal(
        status: 405, code: "method_not_allowed",
        message: "\(request.method) is not allowed on \(request.path)",
        allow: allow)
    }
  }

  func respond(to request: Request) async -> BackendResponse {
    do {
      return try await route(request)
    } catch let refusal as Refusal {
      return refusal.response
    } catch {
      // The error stays in the server's log: its text (SQL, paths) is no client's business.
      let id = String(UUID().uuidString.prefix(8)).lowercased()
      failed(id, error)
      return Refusal(
        status: 500, code: "internal", message: "the server failed; its log names this failure \(id)"
      ).response
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
    if let key { try Self.checkName(key, "the Idempotency-Key") }
    if let id { try Self.checkName(id, "the id in the path") }
    switch (parts[2], id, request.method) {
    case ("progress", "batch", "POST"): return try await batch(request, userID: userID)
    case ("progress", "batch", _): throw Refusal.notAllowed(request, allow: ["POST"])
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
    case (_, nil, _): throw Refusal.notAllowed(request, allow: ["GET", "POST"])
    default: throw Refusal.notAllowed(request, allow: ["GET", "PUT", "DELETE"])
    }
  }

  /// Ids and keys are bound into SQL, which ends a text at a NUL (`a\u{0}b` would be
  /// `a`): one holding a control character names nothing and is refused (400).
  static func checkName(_ text: String, _ what: String) throws {
    if let control = ControlCharacter.first(in: text) { throw Refusal.invalid("\(what) holds \(control)") }
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
      return try tokens.subject(
        of: String(authorization.dropFirst(7)), secret: jwtSecret, now: now(), issuer: jwtIssuer,
        audience: jwtAudience)
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
    let parsed = body.flatMap { try? JSONValue.parse($0) }
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
          db.cachedStatement(sql: "SELECT id FROM progress WHERE user_id = ? AND entry_id = ?"),
          arguments: [userID, entryID])
      {
        try update(id: id, input, in: db)
        return BackendResponse(status: 200, body: progressJSON(id: id, input, entryID: entryID))
      }
      let id = UUID().uuidString.lowercased()
      try db.cachedStatement(
        sql: """
          INSERT INTO progress (id, user_id, type, quantity, logged_at, date, notes, entry_id)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?)
          """
      ).execute(arguments: [
        id, userID, input.type, input.quantity, input.loggedAt, input.date, input.notes, input.entryID,
      ])
      return BackendResponse(status: 201, body: progressJSON(id: id, input, entryID: input.entryID))
    case .updateProgress(let id, let input):
      // The row's entry id stays as it was created.
      guard
        let row = try Row.fetchOne(
          db.cachedStatement(sql: "SELECT entry_id FROM progress WHERE id = ? AND user_id = ?"),
          arguments: [id, userID])
      else { return notFound(id).response }
      try update(id: id, input, in: db)
      return BackendResponse(status: 200, body: progressJSON(id: id, input, entryID: row[0]))
    case .deleteProgress(let id):
      guard try owns(id: id, userID: userID, table: "progress", in: db) else { return notFound(id).response }
      try db.cachedStatement(sql: "DELETE FROM progress WHERE id = ?").execute(arguments: [id])
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
    return BackendResponse(status: 200, body: Self.batchBody(answers))
  }

  /// `{"data":{"results":[…]}}`: each item's answer body, `{"data": …}` or `{"error": …}`
  /// (none for 204), with its status beside it. The members are copied as they are,
  /// not read and written again.
  static func batchBody(_ answers: [BackendResponse]) -> Data {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(answers.reduce(32) { $0 + $1.body.count + 16 })
    bytes += #"{"data":{"results":["#.utf8
    for (index, answer) in answers.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      bytes += #"{"status":"#.utf8
      bytes += String(answer.status).utf8
      let members = Self.members(of: answer.body)
      if !members.isEmpty {
        bytes.append(UInt8(ascii: ","))
        bytes += members
      }
      bytes.append(UInt8(ascii: "}"))
    }
    bytes += "]}}".utf8
    return Data(bytes)
  }

  /// What lies between the braces of a body that is one JSON object (as every body
  /// this server writes is), trimmed; nothing for an empty body.
  static func members(of body: Data) -> ArraySlice<UInt8> {
    let bytes = ArraySlice(body)
    func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
    guard let first = bytes.firstIndex(where: { !isSpace($0) }),
      let last = bytes.lastIndex(where: { !isSpace($0) }), first < last,
      bytes[first] == UInt8(ascii: "{"), bytes[last] == UInt8(ascii: "}")
    else { return [] }
    let inner = bytes[(first + 1)..<last]
    guard let start = inner.firstIndex(where: { !isSpace($0) }),
      let end = inner.lastIndex(where: { !isSpace($0) })
    else { return [] }
    return inner[start...end]
  }

  private func batchWrites(_ body: Data) throws -> [Write] {
    guard let parsed = try? JSONValue.parse(body),
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
      try Self.checkName(key, "\(name).idempotency_key")
      guard case .string(let method) = item["method"], ["POST", "PUT", "DELETE"].contains(method) else {
        throw Refusal.invalid("\(name).method must be \"POST\", \"PUT\" or \"DELETE\"")
      }
      var id: String?
      switch item["id"] {
      case nil, .null: id = nil
      case .string(let text) where !text.isEmpty: id = text
      default: throw Refusal.invalid("\(name).id must be a non-empty string")
      }
      if let id { try Self.checkName(id, "\(name).id") }
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
    // Notes may hold line breaks and tabs, but not a NUL, which SQLite would end them at.
    if let text = notes, text.unicodeScalars.contains("\u{0}") {
      throw Refusal.invalid("notes must not hold the NUL character (U+0000)")
    }
    var entryID: String?
    switch object["entry_id"] {
    case nil, .null: entryID = nil
    case .string(let text):
      try Self.checkName(text, "entry_id")
      entryID = text
    default: throw Refusal.invalid("entry_id must be text")
    }
    return ProgressInput(
      type: type, quantity: quantity, loggedAt: loggedAt, date: date, notes: notes, entryID: entryID)
  }

  private static func update(id: String, _ input: ProgressInput, in db: Database) throws {
    try db.cachedStatement(
      sql: "UPDATE progress SET type = ?, quantity = ?, logged_at = ?, date = ?, notes = ? WHERE id = ?"
    ).execute(arguments: [input.type, input.quantity, input.loggedAt, input.date, input.notes, id])
  }

  /// `{"data":{…}}` for a row just written with `input`: what reading it back and
  /// `progressObject` would give, written directly (keys sorted, like `json(_:)`).
  static func progressJSON(id: String, _ input: ProgressInput, entryID: String?) -> Data {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(192 + (input.notes?.utf8.count ?? 0))
    bytes += #"{"data":{"date":"#.utf8
    appendJSONString(input.date, to: &bytes)
    if let entryID {
      bytes += #","entry_id":"#.utf8
      appendJSONString(entryID, to: &bytes)
    }
    bytes += #","id":"#.utf8
    appendJSONString(id, to: &bytes)
    bytes += #","logged_at":"#.utf8
    appendJSONString(input.loggedAt, to: &bytes)
    bytes += #","notes":"#.utf8
    if let notes = input.notes { appendJSONString(notes, to: &bytes) } else { bytes += "null".utf8 }
    bytes += #","quantity":"#.utf8
    bytes += String(input.quantity).utf8
    bytes += #","type":"#.utf8
    appendJSONString(input.type, to: &bytes)
    bytes += "}}".utf8
    return Data(bytes)
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
      db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM \(table) WHERE id = ? AND user_id = ?)"),
      arguments: [id, userID])!
  }

  private static func notFound(_ id: String) -> Refusal {
    Refusal(status: 404, code: "not_found", message: "no progress entry \(id)")
  }

  /// The calendar day a date or date-time names, as written (its own offset's day):
  /// `YYYY-MM-DD`, optionally followed by `THH:MM[:SS[.fff]]` and `Z` or `±HH:MM`.
  static let utcGregorian: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
  }()

  static func day(of text: String) -> String? {
    var text = text
    text.makeContiguousUTF8()
    return text.utf8.withContiguousStorageIfAvailable { day(of: $0) } ?? nil
  }

  /// The same over UTF-8: only ASCII (digits and separators) can be a date.
  static func day(of bytes: UnsafeBufferPointer<UInt8>) -> String? {
    guard bytes.count >= 10, isDay(UnsafeBufferPointer(rebasing: bytes[0..<10])) else { return nil }
    let prefix = String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<10]), as: UTF8.self)
    guard bytes.count > 10 else { return prefix }
    var index = 10
    func take(_ byte: UInt8) -> Bool {
      guard index < bytes.count, bytes[index] == byte else { return false }
      index += 1
      return true
    }
    func number(_ digits: Int, max: Int) -> Bool {
      guard index + digits <= bytes.count else { return false }
      var value = 0
      for offset in 0..<digits {
        let byte = bytes[index + offset]
        guard (0x30...0x39).contains(byte) else { return false }
        value = value * 10 + Int(byte - 0x30)
      }
      guard value <= max else { return false }
      index += digits
      return true
    }
    guard take(UInt8(ascii: "T")) || take(UInt8(ascii: " ")) else { return nil }
    guard number(2, max: 23), take(UInt8(ascii: ":")), number(2, max: 59) else { return nil }
    if take(UInt8(ascii: ":")) {
      guard number(2, max: 60) else { return nil }
      if take(UInt8(ascii: ".")) {
        let start = index
        while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
        guard index > start else { return nil }
      }
    }
    if index == bytes.count || take(UInt8(ascii: "Z")) { return index == bytes.count ? prefix : nil }
    guard take(UInt8(ascii: "+")) || take(UInt8(ascii: "-")), number(2, max: 23) else { return nil }
    _ = take(UInt8(ascii: ":"))
    guard number(2, max: 59), index == bytes.count else { return nil }
    return prefix
  }

  static func isDay(_ text: String) -> Bool {
    var text = text
    text.makeContiguousUTF8()
    return text.utf8.withContiguousStorageIfAvailable { isDay($0) } ?? false
  }

  /// `YYYY-MM-DD` naming a day of the Gregorian calendar.
  static func isDay(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else {
      return false
    }
    func value(_ range: Range<Int>) -> Int? {
      var value = 0
      for index in range {
        guard (0x30...0x39).contains(bytes[index]) else { return nil }
        value = value * 10 + Int(bytes[index] - 0x30)
      }
      return value
    }
    guard let year = value(0..<4), let month = value(5..<7), let day = value(8..<10),
      (1...12).contains(month),
      day >= 1
    else { return false }
    // From 1583 on the calendar is the Gregorian one throughout; before, Foundation's
    // follows the Julian calendar, so it is asked.
    guard year >= 1583 else {
      guard let date = utcGregorian.date(from: DateComponents(year: year, month: month, day: day)) else {
        return false
      }
      return utcGregorian.component(.day, from: date) == day
        && utcGregorian.component(.month, from: date) == month
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    return day <= days
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

/// A JSON value, read strictly: `true` is not a number and `"3"` is not a number. Read
/// with `parse(_:)`, which refuses documents nested deeper than `maxDepth` and accepts
/// what Foundation's `JSONDecoder` accepts (and reads it alike), several times faster.
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

extension JSONValue {
  /// The deepest nesting `parse` reads; deeper documents are refused.
  static let maxDepth = 512

  struct SyntaxError: Error, CustomStringConvertible {
    var offset: Int
    var reason: String
    var description: String { "invalid JSON at byte \(offset): \(reason)" }
  }

  /// Reads one JSON document strictly (RFC 8259): nothing but whitespace around the
  /// value, no comments, no trailing commas, numbers as JSON writes them and finite,
  /// strings valid UTF-8 without raw control characters or lone surrogates.
  static func parse(_ data: Data) throws(SyntaxError) -> JSONValue {
    let result: Result<JSONValue, SyntaxError> = data.withUnsafeBytes { raw in
      var parser = Parser(bytes: raw.bindMemory(to: UInt8.self))
      do throws(SyntaxError) {
        // A byte order mark is let through, as Foundation's decoder does.
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("data after the value") }
        return .success(value)
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func error(_ reason: String) -> SyntaxError { SyntaxError(offset: index, reason: reason) }

    mutating func skipWhitespace() {
      while index < bytes.count {
        switch bytes[index] {
        case 0x20, 0x09, 0x0A, 0x0D: index += 1
        default: return
        }
      }
    }

    mutating func value(depth: Int) throws(SyntaxError) -> JSONValue {
      guard index < bytes.count else { throw error("a value is missing") }
      switch bytes[index] {
      case UInt8(ascii: "{"): return try object(depth: depth + 1)
      case UInt8(ascii: "["): return try array(depth: depth + 1)
      case UInt8(ascii: "\""): return .string(try string())
      case UInt8(ascii: "t"):
        try literal("true")
        return .bool(true)
      case UInt8(ascii: "f"):
        try literal("false")
        return .bool(false)
      case UInt8(ascii: "n"):
        try literal("null")
        return .null
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
      default: throw error("not a JSON value")
      }
    }

    mutating func literal(_ word: StaticString) throws(SyntaxError) {
      let count = word.utf8CodeUnitCount
      guard index + count <= bytes.count else { throw error("not a JSON value") }
      for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
        throw error("not a JSON value")
      }
      index += count
    }

    mutating func object(depth: Int) throws(SyntaxError) -> JSONValue {
      guard depth <= JSONValue.maxDepth else {
        throw error("nested deeper than \(JSONValue.maxDepth) levels")
      }
      index += 1
      var members: [String: JSONValue] = [:]
      skipWhitespace()
      if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
        index += 1
        return .object(members)
      }
      while true {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
          throw error("a member name is missing")
        }
        let name = try string()
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("':' is missing") }
        index += 1
        skipWhitespace()
        let member = try value(depth: depth)
        // A name given twice keeps its first value, as Foundation's decoder does.
        if members[name] == nil { members[name] = member }
        skipWhitespace()
        guard index < bytes.count else { throw error("the object does not end") }
        switch bytes[index] {
        case UInt8(ascii: ","):
          index += 1
          skipWhitespace()
          // One trailing comma is let through, as Foundation's decoder does.
          if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
          }
        case UInt8(ascii: "}"):
          index += 1
          return .object(members)
        default: throw error("',' or '}' is missing")
        }
      }
    }

    mutating func array(depth: Int) throws(SyntaxError) -> JSONValue {
      guard depth <= JSONValue.maxDepth else {
        throw error("nested deeper than \(JSONValue.maxDepth) levels")
      }
      index += 1
      var elements: [JSONValue] = []
      skipWhitespace()
      if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
        index += 1
        return .array(elements)
      }
      while true {
        elements.append(try value(depth: depth))
        skipWhitespace()
        guard index < bytes.count else { throw error("the array does not end") }
        switch bytes[index] {
        case UInt8(ascii: ","):
          index += 1
          skipWhitespace()
          if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
          }
        case UInt8(ascii: "]"):
          index += 1
          return .array(elements)
        default: throw error("',' or ']' is missing")
        }
      }
    }

    mutating func string() throws(SyntaxError) -> String {
      index += 1
      let start = index
      // The common case: no escapes, so the bytes are the string.
      while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "\"") {
          let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
          guard let text = String(validating: slice, as: UTF8.self) else { throw error("invalid UTF-8") }
          index += 1
          return text
        }
        if byte == UInt8(ascii: "\\") { break }
        guard byte >= 0x20 else { throw error("a control character in a string") }
        index += 1
      }
      var buffer = Array(bytes[start..<index])
      while index < bytes.count {
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "\""):
          guard let text = String(validating: buffer, as: UTF8.self) else { throw error("invalid UTF-8") }
          index += 1
          return text
        case UInt8(ascii: "\\"):
          index += 1
          guard index < bytes.count else { break }
          let escape = bytes[index]
          index += 1
          switch escape {
          case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escape)
          case UInt8(ascii: "b"): buffer.append(0x08)
          case UInt8(ascii: "f"): buffer.append(0x0C)
          case UInt8(ascii: "n"): buffer.append(0x0A)
          case UInt8(ascii: "r"): buffer.append(0x0D)
          case UInt8(ascii: "t"): buffer.append(0x09)
          case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
              guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                bytes[index + 1] == UInt8(ascii: "u")
              else { throw error("a lone surrogate") }
              index += 2
              let low = try hex4()
              guard (0xDC00..<0xE000).contains(low) else { throw error("a lone surrogate") }
              scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
              throw error("a lone surrogate")
            }
            buffer.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
          default: throw error("an unknown escape")
          }
        default:
          guard byte >= 0x20 else { throw error("a control character in a string") }
          buffer.append(byte)
          index += 1
        }
      }
      throw error("the string does not end")
    }

    mutating func hex4() throws(SyntaxError) -> UInt32 {
      guard index + 4 <= bytes.count else { throw error("a short \\u escape") }
      var value: UInt32 = 0
      for _ in 0..<4 {
        let byte = bytes[index]
        let digit: UInt8
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
        default: throw error("a bad \\u escape")
        }
        value = value << 4 | UInt32(digit)
        index += 1
      }
      return value
    }

    mutating func number() throws(SyntaxError) -> Double {
      let start = index
      func digits() -> Int {
        let first = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
          index += 1
        }
        return index - first
      }
      if bytes[index] == UInt8(ascii: "-") { index += 1 }
      guard index < bytes.count else { throw error("a number without digits") }
      if bytes[index] == UInt8(ascii: "0") {
        index += 1
      } else if digits() == 0 {
        throw error("a number without digits")
      }
      if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
        index += 1
        guard digits() > 0 else { throw error("a fraction without digits") }
      }
      if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
        index += 1
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
          index += 1
        }
        guard digits() > 0 else { throw error("an exponent without digits") }
      }
      let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
      guard let value = Double(text), value.isFinite else { throw error("a number a Double cannot hold") }
      // Too small to hold is refused too (not read as 0), as Foundation's decoder does.
      if value == 0,
        text.utf8.prefix(while: { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") })
          .contains(where: { (UInt8(ascii: "1")...UInt8(ascii: "9")).contains($0) })
      {
        throw error("a number a Double cannot hold")
      }
      return value
    }
  }
}
