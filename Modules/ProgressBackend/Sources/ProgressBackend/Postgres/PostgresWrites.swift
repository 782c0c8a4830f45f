import Foundation
import Logging
import NIOCore
import PostgresNIO
import ProgressContract

/// The API's writes on PostgreSQL, each one statement: the row and the answer kept under
/// its idempotency key are written together (CTEs), so a write is one round trip with no
/// BEGIN or COMMIT, and a batch of progress creates is one statement too. The answers are
/// those of `IdempotentWrites.perform` on SQLite, byte for byte.
///
/// Each statement reads the key's kept answer first (`prior`) and writes nothing when there
/// is one. Otherwise it writes the row and keeps the answer with a plain INSERT: when
/// another process kept the same key meanwhile, that INSERT waits for it and fails
/// (unique_violation), which undoes the whole statement, row included, and the write runs
/// again and replays the winner's answer (`PostgresBackendStore.perform`). `ON CONFLICT DO
/// NOTHING` on the key cannot do that: the loser's row, written beside it, would stay.
enum PostgresWrites {
  /// The answers to `writes`, in order, all in one transaction.
  static func perform(_ writes: [Write], userID: String, on connection: PostgresConnection, logger: Logger)
    async throws -> [BackendResponse]
  {
    if let creates = ProgressCreates(writes) {
      return try await creates.run(userID: userID, on: connection, logger: logger)
    }
    if writes.count == 1 {
      return [try await perform(writes[0], userID: userID, on: connection, logger: logger)]
    }
    // Other batches, in order (a key may come twice, a row may be written twice): a
    // statement each, in one transaction.
    return try await connection.inTransaction(logger: logger) { connection in
      var answers: [BackendResponse] = []
      answers.reserveCapacity(writes.count)
      for write in writes {
        answers.append(try await perform(write, userID: userID, on: connection, logger: logger))
      }
      return answers
    }
  }

  /// One write's answer: one statement (two when a row's entry id was not the one its
  /// `PUT` sent, which the answer names).
  static func perform(_ write: Write, userID: String, on connection: PostgresConnection, logger: Logger)
    async throws -> BackendResponse
  {
    let action: WriteAction
    switch write.action {
    case .success(.createProgress(let input)) where write.key == nil:
      return try await create(input, userID: userID, on: connection, logger: logger)
    case .success(.createProgress):
      return try await ProgressCreates([write])!.run(userID: userID, on: connection, logger: logger)[0]
    case .success(let value):
      action = value
    case .failure(let refusal):
      // Answered after the key is looked up: a reused key with another body is a 422.
      guard let key = write.key else { return refusal.response }
      let rows = try await connection.query(
        "SELECT status, body, fingerprint FROM idempotency WHERE user_id = \(userID) AND key = \(key)",
        logger: logger)
      for try await (status, body, fingerprint) in rows.decode((Int, Data, Data?).self) {
        return IdempotentWrites.replay(
          KeptAnswer(
            response: BackendResponse(status: status, body: body, replayed: true), fingerprint: fingerprint),
          to: write, key: key)
      }
      return refusal.response
    }
    var entryID: String?? = nil
    if case .updateProgress(_, let input) = action { entryID = .some(input.entryID) }
    // A PUT's answer names the row's entry id: first the one it sent, then the row's.
    var statement = Statement(write, action, userID: userID, entryID: entryID)
    for _ in 0..<3 {
      let rows = try await connection.query(statement.query, logger: logger)
      for try await (status, body, fingerprint, wrote, found) in rows.decode(
        (Int?, Data?, Data?, Bool, String?).self)
      {
        if let status, let body, let key = write.key {
          return IdempotentWrites.replay(
            KeptAnswer(
              response: BackendResponse(status: status, body: body, replayed: true), fingerprint: fingerprint),
            to: write, key: key)
        }
        if wrote { return statement.answer }
        // The row's entry id, `+id` or `-` (none), when the PUT's was not it.
        guard case .updateProgress = action, let found else { return statement.missing }
        entryID = .some(found.hasPrefix("+") ? String(found.dropFirst()) : nil)
      }
      statement = Statement(write, action, userID: userID, entryID: entryID)
    }
    // An entry id that changed under the PUT twice (none ever does): no such row.
    return statement.missing
  }

  /// A progress create without a key: nothing to keep, so a plain INSERT (far less work for
  /// PostgreSQL than `ProgressCreates`' statement), its answer written here from the row's id.
  private static func create(
    _ input: ProgressInput, userID: String, on connection: PostgresConnection, logger: Logger
  ) async throws -> BackendResponse {
    let id = UUID().uuidString.lowercased()
    let rows = try await connection.query(
      """
      INSERT INTO progress AS p (id, user_id, type, quantity, logged_at, date, notes, entry_id)
      VALUES (\(id), \(userID), \(input.type), \(Double(input.quantity)), \(input.loggedAt), \(input.date),
        \(input.notes), \(input.entryID))
      ON CONFLICT (user_id, entry_id) WHERE entry_id IS NOT NULL DO UPDATE SET
        type = excluded.type, quantity = excluded.quantity, logged_at = excluded.logged_at,
        date = excluded.date, notes = excluded.notes
      RETURNING p.id
      """, logger: logger)
    for try await written in rows.decode(String.self) {
      // A create whose entry has a row updated it: 200 with that row's id, as on SQLite.
      return BackendResponse(
        status: written == id ? 201 : 200,
        body: WireJSON.progressJSON(id: written, input, entryID: input.entryID))
    }
    throw PostgresWriteFailure()
  }

  /// A write other than a progress create as one statement. $1 user, $2 key (NULL: none),
  /// $3 and $4 the answer's status and body, $5 the request's fingerprint; the write's own
  /// values from $6.
  private struct Statement {
    /// The data-modifying part: writes nothing when `prior` has a row; RETURNING a row for
    /// each row it wrote unless `always`.
    var change = ""
    /// An insert, which always writes: the answer is kept whenever none was.
    var always = false
    /// For a PUT of a progress row: the row's entry id as `+id` or `-`, NULL for no row.
    var found = "NULL::text"
    /// Appends the write's own values, $6 on.
    var values: (inout PostgresBindings) -> Void = { _ in }
    /// The answer when it wrote.
    var answer: BackendResponse
    /// The answer when it wrote nothing and no answer was kept.
    var missing = BackendResponse(status: 500, body: Data())

    let write: Write
    let userID: String

    /// `entryID`: for `updateProgress`, the entry id the row is taken to have.
    init(_ write: Write, _ action: WriteAction, userID: String, entryID: String??) {
      self.write = write
      self.userID = userID
      answer = BackendResponse(status: 500, body: Data())
      switch action {
      case .createProgress:
        preconditionFailure("progress creates are ProgressCreates")
      case .updateProgress(let id, let input):
        let entryID = entryID ?? input.entryID
        values = {
          $0.append(id)
          $0.append(input.type)
          $0.append(Double(input.quantity))
          $0.append(input.loggedAt)
          $0.append(input.date)
          $0.append(input.notes)
          $0.append(entryID)
        }
        // The row's entry id stays as it was created, and the answer names it.
        change = """
          UPDATE progress SET type = $7, quantity = $8, logged_at = $9, date = $10, notes = $11::text
          WHERE id = $6 AND user_id = $1 AND entry_id IS NOT DISTINCT FROM $12::text
            AND NOT EXISTS (SELECT FROM prior) RETURNING 1
          """
        found = "(SELECT COALESCE('+' || entry_id, '-') FROM progress WHERE id = $6 AND user_id = $1)"
        answer = BackendResponse(status: 200, body: WireJSON.progressJSON(id: id, input, entryID: entryID))
        missing = Refusal.notFound(id).response
      case .deleteProgress(let id):
        values = { $0.append(id) }
        change = """
          DELETE FROM progress WHERE id = $6 AND user_id = $1 AND NOT EXISTS (SELECT FROM prior) RETURNING 1
          """
        answer = BackendResponse(status: 204, body: Data())
        missing = Refusal.notFound(id).response
      case .createJournal(let input):
        let id = UUID().uuidString.lowercased()
        values = {
          $0.append(id)
          $0.append(input.createdAt)
          $0.append(input.date)
          $0.append(input.curriculumID)
          $0.append(input.secondaryCurriculumID)
          $0.append(input.strategyID)
          $0.append(input.initiatedBy)
        }
        change = """
          INSERT INTO journal (id, user_id, created_at, date, curriculum_id, secondary_curriculum_id,
            strategy_id, initiated_by)
          SELECT $6, $1, $7, $8, $9, $10::bigint, $11::bigint, $12 WHERE NOT EXISTS (SELECT FROM prior)
          """
        always = true
        answer = BackendResponse(status: 201, body: WireJSON.data(JournalRecord(id: id, input)))
      case .recordEvents(let input):
        values = { $0.append(input.lines(userID: userID)) }
        change = """
          INSERT INTO events (data) SELECT line::jsonb FROM unnest($6::text[]) AS line
          WHERE NOT EXISTS (SELECT FROM prior)
          """
        always = true
        answer = BackendResponse(status: 201, body: WireJSON.eventsAccepted(input.events.count))
      case .createResource(let resource, let body):
        let id = UUID().uuidString.lowercased()
        values = {
          $0.append(id)
          $0.append(resource)
          $0.append(body)
        }
        change = """
          INSERT INTO resources (id, user_id, resource, body)
          SELECT $6, $1, $7, $8 WHERE NOT EXISTS (SELECT FROM prior)
          """
        always = true
        answer = BackendResponse(status: 201, body: WireJSON.data(StoredResource(id: id, body: body)))
      case .updateResource(let resource, let id, let body):
        values = {
          $0.append(id)
          $0.append(resource)
          $0.append(body)
        }
        change = """
          UPDATE resources SET body = $8 WHERE id = $6 AND user_id = $1 AND resource = $7
            AND NOT EXISTS (SELECT FROM prior) RETURNING 1
          """
        answer = BackendResponse(status: 200, body: WireJSON.data(StoredResource(id: id, body: body)))
        missing = Refusal.noRow(resource, id).response
      case .deleteResource(let resource, let id):
        values = {
          $0.append(id)
          $0.append(resource)
        }
        change = """
          DELETE FROM resources WHERE id = $6 AND user_id = $1 AND resource = $7
            AND NOT EXISTS (SELECT FROM prior) RETURNING 1
          """
        answer = BackendResponse(status: 204, body: Data())
        missing = Refusal.noRow(resource, id).response
      }
    }

    /// Whether the write happened, in SQL.
    private var wrote: String { always ? "NOT EXISTS (SELECT FROM prior)" : "EXISTS (SELECT FROM done)" }

    var query: PostgresQuery {
      var binds = PostgresBindings(capacity: 12)
      binds.append(userID)
      binds.append(write.key)
      binds.append(answer.status)
      binds.append(ByteBuffer(bytes: answer.body))
      binds.append(ByteBuffer(bytes: write.fingerprint))
      values(&binds)
      var query = PostgresQuery(unsafeSQL: sql)
      query.binds = binds
      return query
    }

    var sql: String {
      """
      WITH prior AS (SELECT status, body, fingerprint FROM idempotency WHERE user_id = $1 AND key = $2),
      done AS (\(change)),
      kept AS (
        INSERT INTO idempotency (user_id, key, status, body, fingerprint)
        SELECT $1, $2::text, $3, $4, $5 WHERE $2::text IS NOT NULL AND \(wrote))
      SELECT prior.status, prior.body, prior.fingerprint, \(wrote), \(found)
      FROM (VALUES (1)) AS one LEFT JOIN prior ON true
      """
    }
  }

  /// Progress creates, and refusals, each under its own key (or none) and with its own
  /// entry id (or none): one statement for all of them, however many. A create whose entry
  /// id has a row already updates that row and answers 200 with its id, as on SQLite.
  private struct ProgressCreates {
    let writes: [Write]

    /// nil unless every write is a progress create or a refusal, no key comes twice, and no
    /// entry id is created twice.
    init?(_ writes: [Write]) {
      var keys = Set<String>()
      var entries = Set<String>()
      for write in writes {
        if let key = write.key, !keys.insert(key).inserted { return nil }
        switch write.action {
        case .success(.createProgress(let input)):
          if let entry = input.entryID, !entries.insert(entry).inserted { return nil }
        case .failure: break
        case .success: return nil
        }
      }
      self.writes = writes
    }

    /// $1 the user; then one array per column of `input`, an element per write. A key ''
    /// is none (a sent key is never empty); `act` is false for a refusal, which only
    /// looks its key up. Each answer's body is sent split around the new row's id
    /// (`head`, `tail`): a create whose entry has a row answers with that row's id instead
    /// (ids are the server's lower-case UUIDs, which JSON writes as they are).
    static let sql = """
      WITH input AS (
        SELECT * FROM unnest($2::text[], $3::bytea[], $4::text[], $5::text[], $6::float8[], $7::text[],
          $8::text[], $9::text[], $10::bool[], $11::text[], $12::bool[], $13::bytea[], $14::bytea[], $15::bool[])
          WITH ORDINALITY AS i(key, fingerprint, id, type, quantity, logged_at, date, notes, has_notes, entry_id,
            has_entry, head, tail, act, n)
      ),
      prior AS (
        SELECT i.n, k.status, k.body, k.fingerprint FROM input i
        JOIN idempotency k ON k.user_id = $1 AND k.key = i.key
      ),
      written AS (
        INSERT INTO progress AS p (id, user_id, type, quantity, logged_at, date, notes, entry_id)
        SELECT i.id, $1, i.type, i.quantity, i.logged_at, i.date, CASE WHEN i.has_notes THEN i.notes END,
          CASE WHEN i.has_entry THEN i.entry_id END
        FROM input i WHERE i.act AND NOT EXISTS (SELECT FROM prior WHERE prior.n = i.n) ORDER BY i.n
        ON CONFLICT (user_id, entry_id) WHERE entry_id IS NOT NULL DO UPDATE SET
          type = excluded.type, quantity = excluded.quantity, logged_at = excluded.logged_at,
          date = excluded.date, notes = excluded.notes
        RETURNING p.id, p.entry_id
      ),
      answered AS (
        SELECT i.n, i.key, i.fingerprint, CASE WHEN w.id = i.id THEN 201 ELSE 200 END AS status,
          i.head || convert_to(w.id, 'UTF8') || i.tail AS body
        FROM input i JOIN written w ON w.id = i.id OR (i.has_entry AND w.entry_id = i.entry_id)
      ),
      kept AS (
        INSERT INTO idempotency (user_id, key, status, body, fingerprint)
        SELECT $1, key, status, body, fingerprint FROM answered WHERE key <> ''
      )
      SELECT prior.status, prior.body, prior.fingerprint, answered.status, answered.body
      FROM input i LEFT JOIN prior ON prior.n = i.n LEFT JOIN answered ON answered.n = i.n
      ORDER BY i.n
      """

    /// `sql` with its values, prepared once per connection: its plan is the same for every
    /// call, so PostgreSQL parses and plans it once instead of at every write.
    private struct Prepared: PostgresPreparedStatement {
      static let sql = ProgressCreates.sql
      typealias Row = (Int?, Data?, Data?, Int?, Data?)
      var bindings: PostgresBindings
      func makeBindings() -> PostgresBindings { bindings }
      func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    func run(userID: String, on connection: PostgresConnection, logger: Logger) async throws
      -> [BackendResponse]
    {
      // Refusals without a key need no database.
      guard writes.contains(where: { $0.key != nil || (try? $0.action.get()) != nil }) else {
        return writes.map { write in
          if case .failure(let refusal) = write.action { refusal.response } else { preconditionFailure() }
        }
      }
      var keys: [String] = []
      var fingerprints: [ByteBuffer] = []
      var ids: [String] = []
      var types: [String] = []
      var quantities: [Double] = []
      var loggedAts: [String] = []
      var dates: [String] = []
      var notes: [String] = []
      var hasNotes: [Bool] = []
      var entryIDs: [String] = []
      var hasEntry: [Bool] = []
      var heads: [ByteBuffer] = []
      var tails: [ByteBuffer] = []
      var acts: [Bool] = []
      for write in writes {
        keys.append(write.key ?? "")
        fingerprints.append(ByteBuffer(bytes: write.fingerprint))
        guard case .success(.createProgress(let input)) = write.action else {
          ids.append("")
          types.append("")
          quantities.append(0)
          loggedAts.append("")
          dates.append("")
          notes.append("")
          hasNotes.append(false)
          entryIDs.append("")
          hasEntry.append(false)
          heads.append(ByteBuffer())
          tails.append(ByteBuffer())
          acts.append(false)
          continue
        }
        let id = UUID().uuidString.lowercased()
        let body = WireJSON.progressJSON(id: id, input, entryID: input.entryID)
        // The id's only place in the body: a fresh UUID is in nothing the client sent.
        guard let place = body.range(of: Data("\"\(id)\"".utf8)) else {
          preconditionFailure("a progress answer names its id")
        }
        ids.append(id)
        types.append(input.type)
        quantities.append(Double(input.quantity))
        loggedAts.append(input.loggedAt)
        dates.append(input.date)
        notes.append(input.notes ?? "")
        hasNotes.append(input.notes != nil)
        entryIDs.append(input.entryID ?? "")
        hasEntry.append(input.entryID != nil)
        heads.append(ByteBuffer(bytes: body[..<(place.lowerBound + 1)]))
        tails.append(ByteBuffer(bytes: body[(place.upperBound - 1)...]))
        acts.append(true)
      }
      var binds = PostgresBindings(capacity: 15)
      binds.append(userID)
      binds.append(keys)
      binds.append(fingerprints)
      binds.append(ids)
      binds.append(types)
      binds.append(quantities)
      binds.append(loggedAts)
      binds.append(dates)
      binds.append(notes)
      binds.append(hasNotes)
      binds.append(entryIDs)
      binds.append(hasEntry)
      binds.append(heads)
      binds.append(tails)
      binds.append(acts)
      var answers: [BackendResponse] = []
      answers.reserveCapacity(writes.count)
      let rows = try await connection.execute(Prepared(bindings: binds), logger: logger)
      for try await (priorStatus, priorBody, fingerprint, status, body) in rows {
        let write = writes[answers.count]
        if let priorStatus, let priorBody, let key = write.key {
          answers.append(
            IdempotentWrites.replay(
              KeptAnswer(
                response: BackendResponse(status: priorStatus, body: priorBody, replayed: true),
                fingerprint: fingerprint), to: write, key: key))
        } else if case .failure(let refusal) = write.action {
          answers.append(refusal.response)
        } else if let status, let body {
          answers.append(BackendResponse(status: status, body: body))
        } else {
          throw PostgresWriteFailure()
        }
      }
      guard answers.count == writes.count else { throw PostgresWriteFailure() }
      return answers
    }
  }
}

/// A statement that answered other than its SQL says it must (a server bug, or a schema
/// changed underneath): an error, answered as a 500.
struct PostgresWriteFailure: Error, CustomStringConvertible {
  var description: String { "a write's statement did not answer each of its rows" }
}
