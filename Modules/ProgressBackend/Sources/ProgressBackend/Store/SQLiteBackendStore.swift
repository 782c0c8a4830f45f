import Foundation
import GRDB
import ProgressContract

/// The backend's rows in SQLite (`BackendStore`'s adapter): progress and journal rows per
/// user, and the responses already given per idempotency key (with what each key's request was).
final class SQLiteBackendStore: BackendStore {
  let writer: any DatabaseWriter
  /// Where a file's progress pages are read (`progressPageJSON`); nil in memory, where
  /// no other connection sees the rows.
  private let readers: SQLiteReaders?

  /// `path` nil keeps everything in memory.
  init(path: String?) throws {
    if let path {
      var configuration = Configuration()
      configuration.busyMode = .timeout(5)
      writer = try DatabasePool(path: path, configuration: configuration)
    } else {
      writer = try DatabaseQueue()
    }
    readers = path.map(SQLiteReaders.init(path:))
    try Self.migrator.migrate(writer)
  }

  func close() async {
    readers?.close()
  }

  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
      try db.execute(
        sql: """
          CREATE TABLE progress (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            user_id TEXT NOT NULL,
            type TEXT NOT NULL,
            quantity REAL NOT NULL,
            logged_at TEXT NOT NULL,
            date TEXT NOT NULL,
            notes TEXT,
            entry_id TEXT
          );
          CREATE INDEX progress_by_user_date ON progress(user_id, date, seq);
          CREATE UNIQUE INDEX progress_by_entry ON progress(user_id, entry_id) WHERE entry_id IS NOT NULL;
          CREATE TABLE journal (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            user_id TEXT NOT NULL,
            created_at TEXT NOT NULL,
            date TEXT NOT NULL,
            curriculum_id INTEGER NOT NULL,
            secondary_curriculum_id INTEGER,
            strategy_id INTEGER,
            initiated_by TEXT NOT NULL
          );
          CREATE INDEX journal_by_user_date ON journal(user_id, date, seq);
          CREATE TABLE idempotency (
            user_id TEXT NOT NULL,
            key TEXT NOT NULL,
            status INTEGER NOT NULL,
            body BLOB NOT NULL,
            PRIMARY KEY (user_id, key)
          ) WITHOUT ROWID;
          """)
    }
    migrator.registerMigration("v2: idempotency fingerprints") { db in
      // What a reused key is compared with: SHA-256 of method, path and body.
      try db.execute(sql: "ALTER TABLE idempotency ADD COLUMN fingerprint BLOB")
    }
    migrator.registerMigration("v3: progress totals") { db in
      // A list's total without counting the user's rows on every read (10,000 rows took
      // longer than the rest of the answer); triggers keep it with every write.
      try db.execute(
        sql: """
          CREATE TABLE progress_totals (
            user_id TEXT NOT NULL,
            type TEXT NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY (user_id, type)
          ) WITHOUT ROWID;
          INSERT INTO progress_totals (user_id, type, n)
            SELECT user_id, type, COUNT(*) FROM progress GROUP BY user_id, type;
          CREATE TRIGGER progress_totals_insert AFTER INSERT ON progress BEGIN
            INSERT INTO progress_totals (user_id, type, n) VALUES (NEW.user_id, NEW.type, 1)
              ON CONFLICT (user_id, type) DO UPDATE SET n = n + 1;
          END;
          CREATE TRIGGER progress_totals_delete AFTER DELETE ON progress BEGIN
            UPDATE progress_totals SET n = n - 1 WHERE user_id = OLD.user_id AND type = OLD.type;
          END;
          CREATE TRIGGER progress_totals_update AFTER UPDATE OF user_id, type ON progress BEGIN
            UPDATE progress_totals SET n = n - 1 WHERE user_id = OLD.user_id AND type = OLD.type;
            INSERT INTO progress_totals (user_id, type, n) VALUES (NEW.user_id, NEW.type, 1)
              ON CONFLICT (user_id, type) DO UPDATE SET n = n + 1;
          END;
          """)
    }
    migrator.registerMigration("v4: events") { db in
      // Analytics events from apps (POST /api/v1/events), each one line of an events file.
      try db.execute(sql: "CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, data TEXT NOT NULL)")
    }
    migrator.registerMigration("v5: resources") { db in
      // Generic resources (/api/v1/resources/{resource}): a feature's rows as canonical JSON.
      try db.execute(
        sql: """
          CREATE TABLE resources (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            user_id TEXT NOT NULL,
            resource TEXT NOT NULL,
            body TEXT NOT NULL
          );
          CREATE INDEX resources_by_user ON resources(user_id, resource, seq);
          """)
    }
    return migrator
  }

  func perform(_ writes: [Write], userID: String) async throws -> [BackendResponse] {
    try await writer.write { db in
      let transaction = Transaction(db: db)
      return try writes.map { try IdempotentWrites.perform($0, userID: userID, in: transaction) }
    }
  }

  /// Reads on the calling thread, `serve`'s event loop. GRDB's async `read` hands the work
  /// to its pool's queue, then to the reader's queue, then back: three thread wake-ups,
  /// each costing more than reading a page. In WAL mode a read does not wait for writes.
  private func read<T>(_ body: (Database) throws -> T) throws -> T {
    try writer.read(body)
  }

  func progressPage(userID: String, type: String?, page: PageRequest) async throws -> Page<ProgressRecord> {
    let query = ProgressPageQuery(userID: userID, type: type, page: page)
    let totals = StatementArguments(query.totalArguments)
    let frozen = StatementArguments(query.rowArguments)
    return try read { db in
      let total = try Int.fetchOne(db.cachedStatement(sql: query.totalSQL), arguments: totals)!
      // A cursor decodes each row in place, by position: no copied rows, no column names
      // looked up (a list of 50 is what `GET` answers most).
      let rows = try Row.fetchCursor(
        db.cachedStatement(sql: query.rowsSQL), arguments: frozen + [page.limit, page.offset])
      var entries: [ProgressRecord] = []
      entries.reserveCapacity(page.limit)
      while let row = try rows.next() { entries.append(Self.progressRecord(row)) }
      return Page(entries: entries, total: total, limit: page.limit, offset: page.offset)
    }
  }

  /// The same page written as its rows are read, on a connection of `readers`: no record
  /// or `String` made per row (what `GET /api/v1/progress` spent most of its time on).
  func progressPageJSON(userID: String, type: String?, page: PageRequest) async throws -> [UInt8] {
    guard let readers else {
      return JSONText.data(try await progressPage(userID: userID, type: type, page: page))
    }
    let query = ProgressPageQuery(userID: userID, type: type, page: page)
    return try readers.read { reader in
      let total = try reader.withStatement(query.totalSQL, query.totalArguments.map(SQLiteArgument.text)) {
        rows in try rows.next() ? rows.integer(0) : 0
      }
      let arguments =
        query.rowArguments.map(SQLiteArgument.text) + [.integer(page.limit), .integer(page.offset)]
      // About 150 bytes a row.
      return try JSONText.data(capacity: 64 + 160 * page.limit) { bytes in
        try Page<ProgressRecord>.appendJSON(total: total, limit: page.limit, offset: page.offset, to: &bytes)
        {
          bytes in
          try reader.withStatement(query.rowsSQL, arguments) { rows in
            let writer = ProgressRecord.JSONWriter()
            var first = true
            while try rows.next() {
              if !first { bytes.append(UInt8(ascii: ",")) }
              first = false
              // The columns of `progressColumns`, as `progressRecord` reads them.
              writer.append(
                id: rows.text(0) ?? .empty, type: rows.text(1) ?? .empty, quantity: rows.double(2),
                date: rows.text(3) ?? .empty, notes: rows.text(4), loggedAt: rows.text(5),
                entryID: rows.text(6),
                to: &bytes)
            }
          }
        }
      }
    }
  }

  /// A progress page's two statements and what they are given: the user's rows (of
  /// `type`, between the page's days), in date order.
  private struct ProgressPageQuery {
    var totalSQL: String
    var totalArguments: [String]
    var rowsSQL: String
    /// Before the page's limit and offset.
    var rowArguments: [String]

    init(userID: String, type: String?, page: PageRequest) {
      var conditions = ["user_id = ?"]
      var arguments = [userID]
      if let type {
        conditions.append("type = ?")
        arguments.append(type)
      }
      totalArguments = arguments
      let bounded = page.from != nil || page.to != nil
      SQLiteBackendStore.addDateBounds(page, to: &conditions, &arguments) { $0 }
      let whereClause = conditions.joined(separator: " AND ")
      rowArguments = arguments
      // Without date bounds the kept totals answer; with them the rows are counted.
      if bounded {
        totalSQL = "SELECT COUNT(*) FROM progress WHERE \(whereClause)"
        totalArguments = arguments
      } else {
        totalSQL = "SELECT COALESCE(SUM(n), 0) FROM progress_totals WHERE \(whereClause)"
      }
      rowsSQL = """
        SELECT \(SQLiteBackendStore.progressColumns) FROM progress WHERE \(whereClause)
        ORDER BY date, seq LIMIT ? OFFSET ?
        """
    }
  }

  func progress(id: String, userID: String) async throws -> ProgressRecord? {
    try read { db in
      try Row.fetchOne(
        db.cachedStatement(
          sql: """
            SELECT \(Self.progressColumns) FROM progress
            WHERE id = ? AND user_id = ?
            """),
        arguments: [id, userID]
      ).map(Self.progressRecord)
    }
  }

  func journalPage(userID: String, page: PageRequest) async throws -> Page<JournalRecord> {
    var conditions = ["user_id = ?"]
    var arguments: [(any DatabaseValueConvertible)?] = [userID]
    Self.addDateBounds(page, to: &conditions, &arguments) { $0 }
    let whereClause = conditions.joined(separator: " AND ")
    let frozen = StatementArguments(arguments)
    return try read { db in
      let total = try Int.fetchOne(
        db, sql: "SELECT COUNT(*) FROM journal WHERE \(whereClause)", arguments: frozen)!
      let rows = try Row.fetchCursor(
        db.cachedStatement(
          sql: """
            SELECT id, created_at, curriculum_id, secondary_curriculum_id, strategy_id, initiated_by
            FROM journal WHERE \(whereClause) ORDER BY date, seq LIMIT ? OFFSET ?
            """),
        arguments: frozen + [page.limit, page.offset])
      var entries: [JournalRecord] = []
      entries.reserveCapacity(page.limit)
      while let row = try rows.next() {
        entries.append(
          JournalRecord(
            id: row[0], createdAt: row[1], curriculumID: row[2], secondaryCurriculumID: row[3],
            strategyID: row[4],
            initiatedBy: row[5]))
      }
      return Page(entries: entries, total: total, limit: page.limit, offset: page.offset)
    }
  }

  func resourcePage(userID: String, resource: String, page: PageRequest) async throws -> Page<StoredResource>
  {
    try read { db in
      let total = try Int.fetchOne(
        db.cachedStatement(sql: "SELECT COUNT(*) FROM resources WHERE user_id = ? AND resource = ?"),
        arguments: [userID, resource])!
      let rows = try Row.fetchCursor(
        db.cachedStatement(
          sql: """
            SELECT id, body FROM resources WHERE user_id = ? AND resource = ?
            ORDER BY seq LIMIT ? OFFSET ?
            """), arguments: [userID, resource, page.limit, page.offset])
      var entries: [StoredResource] = []
      while let row = try rows.next() { entries.append(StoredResource(id: row[0], body: row[1])) }
      return Page(entries: entries, total: total, limit: page.limit, offset: page.offset)
    }
  }

  func resource(id: String, userID: String, resource: String) async throws -> StoredResource? {
    try await writer.read { db in
      try Row.fetchOne(
        db.cachedStatement(
          sql: "SELECT id, body FROM resources WHERE id = ? AND user_id = ? AND resource = ?"),
        arguments: [id, userID, resource]
      ).map { StoredResource(id: $0[0], body: $0[1]) }
    }
  }

  /// The columns `progressRecord` reads, in the order it reads them.
  fileprivate static let progressColumns = "id, type, quantity, date, notes, logged_at, entry_id"

  private static func progressRecord(_ row: Row) -> ProgressRecord {
    ProgressRecord(
      id: row[0], type: row[1], quantity: row[2], date: row[3], notes: row[4], loggedAt: row[5],
      entryID: row[6])
  }

  /// The page's first and last days as conditions on `date`, each day an argument.
  private static func addDateBounds<Argument>(
    _ page: PageRequest, to conditions: inout [String], _ arguments: inout [Argument],
    _ argument: (String) -> Argument
  ) {
    if let from = page.from {
      conditions.append("date >= ?")
      arguments.append(argument(from))
    }
    if let to = page.to {
      conditions.append("date <= ?")
      arguments.append(argument(to))
    }
  }

  /// One write transaction's statements.
  private struct Transaction: BackendTransaction {
    let db: Database

    func keptAnswer(userID: String, key: String) throws -> KeptAnswer? {
      guard
        let row = try Row.fetchOne(
          db.cachedStatement(
            sql: "SELECT status, body, fingerprint FROM idempotency WHERE user_id = ? AND key = ?"),
          arguments: [userID, key])
      else { return nil }
      return KeptAnswer(
        response: BackendResponse(status: row["status"], body: row["body"], replayed: true),
        fingerprint: row["fingerprint"])
    }

    func keep(_ response: BackendResponse, fingerprint: Data, userID: String, key: String) throws {
      try db.cachedStatement(
        sql: "INSERT INTO idempotency (user_id, key, status, body, fingerprint) VALUES (?, ?, ?, ?, ?)"
      ).execute(arguments: [userID, key, response.status, response.body, fingerprint])
    }

    func progressID(userID: String, entryID: String) throws -> String? {
      try String.fetchOne(
        db.cachedStatement(sql: "SELECT id FROM progress WHERE user_id = ? AND entry_id = ?"),
        arguments: [userID, entryID])
    }

    func progressEntryID(id: String, userID: String) throws -> String?? {
      guard
        let row = try Row.fetchOne(
          db.cachedStatement(sql: "SELECT entry_id FROM progress WHERE id = ? AND user_id = ?"),
          arguments: [id, userID])
      else { return nil }
      return .some(row[0] as String?)
    }

    func insertProgress(id: String, userID: String, _ input: ProgressInput) throws {
      try db.cachedStatement(
        sql: """
          INSERT INTO progress (id, user_id, type, quantity, logged_at, date, notes, entry_id)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?)
          """
      ).execute(arguments: [
        id, userID, input.type, input.quantity, input.loggedAt, input.date, input.notes, input.entryID,
      ])
    }

    func updateProgress(id: String, _ input: ProgressInput) throws {
      try db.cachedStatement(
        sql: "UPDATE progress SET type = ?, quantity = ?, logged_at = ?, date = ?, notes = ? WHERE id = ?"
      ).execute(arguments: [input.type, input.quantity, input.loggedAt, input.date, input.notes, id])
    }

    func deleteProgress(id: String, userID: String) throws -> Bool {
      try db.cachedStatement(sql: "DELETE FROM progress WHERE id = ? AND user_id = ?").execute(arguments: [
        id, userID,
      ])
      return db.changesCount > 0
    }

    func insertJournal(id: String, userID: String, _ input: JournalInput) throws {
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
    }

    func insertResource(id: String, userID: String, resource: String, body: String) throws {
      try db.cachedStatement(sql: "INSERT INTO resources (id, user_id, resource, body) VALUES (?, ?, ?, ?)")
        .execute(arguments: [id, userID, resource, body])
    }

    func updateResource(id: String, userID: String, resource: String, body: String) throws -> Bool {
      try db.cachedStatement(
        sql: "UPDATE resources SET body = ? WHERE id = ? AND user_id = ? AND resource = ?"
      )
      .execute(arguments: [body, id, userID, resource])
      return db.changesCount > 0
    }

    func deleteResource(id: String, userID: String, resource: String) throws -> Bool {
      try db.cachedStatement(sql: "DELETE FROM resources WHERE id = ? AND user_id = ? AND resource = ?")
        .execute(arguments: [id, userID, resource])
      return db.changesCount > 0
    }

    func insertEvents(_ lines: [String]) throws {
      let statement = try db.cachedStatement(sql: "INSERT INTO events (data) VALUES (?)")
      for line in lines { try statement.execute(arguments: [line]) }
    }
  }
}
