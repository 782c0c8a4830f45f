import Foundation
import Logging
import PostgresNIO
import ProgressContract

/// The backend's rows in PostgreSQL (`BackendStore`'s adapter), for several `serve`
/// processes on one database: they share the rows, and an idempotency key is one row
/// whichever process got it first (the table's primary key; the loser of a race runs its
/// request again and replays the winner's answer). A write is one statement
/// (`PostgresWrites`) on a connection of the request's own event loop.
final class PostgresBackendStore: BackendStore {
  let connections: PostgresConnections
  private var logger: Logger { connections.logger }

  init(location: PostgresLocation) {
    connections = PostgresConnections(location: location)
  }

  var location: PostgresLocation { connections.location }

  /// How many times a write is tried when it lost a race with another process (a unique
  /// key taken meanwhile, a deadlock, a serialization failure).
  static let attempts = 5

  func prepare() async throws {
    do {
      try await connections.withConnection { connection in
        try await Self.migrate(connection, logger: logger)
      }
    } catch {
      throw PostgresFailure(location: location.description, error: error)
    }
  }

  func close() async {
    await connections.close()
  }

  // MARK: schema

  /// The schema's versions in order; each runs once per database, in one transaction.
  static let migrations: [(version: Int, statements: [String])] = [
    (
      1,
      [
        """
        CREATE TABLE progress (
          seq bigserial PRIMARY KEY,
          id text NOT NULL UNIQUE,
          user_id text NOT NULL,
          type text NOT NULL,
          quantity double precision NOT NULL,
          logged_at text NOT NULL,
          date text COLLATE "C" NOT NULL,
          notes text,
          entry_id text
        )
        """,
        "CREATE INDEX progress_by_user_date ON progress (user_id, date, seq)",
        "CREATE INDEX progress_by_user_type ON progress (user_id, type)",
        "CREATE UNIQUE INDEX progress_by_entry ON progress (user_id, entry_id) WHERE entry_id IS NOT NULL",
        """
        CREATE TABLE journal (
          seq bigserial PRIMARY KEY,
          id text NOT NULL UNIQUE,
          user_id text NOT NULL,
          created_at text NOT NULL,
          date text COLLATE "C" NOT NULL,
          curriculum_id bigint NOT NULL,
          secondary_curriculum_id bigint,
          strategy_id bigint,
          initiated_by text NOT NULL
        )
        """,
        "CREATE INDEX journal_by_user_date ON journal (user_id, date, seq)",
        """
        CREATE TABLE idempotency (
          user_id text NOT NULL,
          key text NOT NULL,
          status integer NOT NULL,
          body bytea NOT NULL,
          fingerprint bytea,
          PRIMARY KEY (user_id, key)
        )
        """,
      ]
    ),
    (
      2,
      [
        // Analytics events, from `wellflow run --events postgres://…` and from apps through
        // POST /api/v1/events: each the NDJSON object of an events file, in the order they
        // came (`seq`). `ts`, `user` and `event` are columns for the report's SQL.
        """
        CREATE TABLE IF NOT EXISTS events (
          seq bigserial PRIMARY KEY,
          data jsonb NOT NULL,
          ts text COLLATE "C" GENERATED ALWAYS AS (data->>'ts') STORED,
          user_id text GENERATED ALWAYS AS (data->>'user') STORED,
          event text GENERATED ALWAYS AS (data->>'event') STORED
        )
        """,
        "CREATE INDEX IF NOT EXISTS events_by_event_user ON events (event, user_id)",
      ]
    ),
    (
      3,
      [
        // `wellflow report postgres://…` starts from one experiment's exposures in table
        // order: found here without reading every event.
        """
        CREATE INDEX IF NOT EXISTS events_exposures ON events ((data->>'experiment'), seq)
        WHERE event = 'experiment_viewed'
        """
      ]
    ),
    (
      4,
      [
        // Generic resources (/api/v1/resources/{resource}): a feature's rows as canonical
        // JSON text (text, not jsonb: jsonb refuses \u0000 and reorders nothing we need).
        """
        CREATE TABLE resources (
          seq bigserial PRIMARY KEY,
          id text NOT NULL UNIQUE,
          user_id text NOT NULL,
          resource text NOT NULL,
          body text NOT NULL
        )
        """,
        "CREATE INDEX resources_by_user ON resources (user_id, resource, seq)",
      ]
    ),
    // The report's narrow copy of the events, kept by triggers (`EventFacts`); an older
    // database's events are copied into it here.
    (5, EventFacts.statements),
  ]

  /// Brings the schema up to date. Processes starting together take turns on an advisory
  /// lock, so each version runs once; a later one finds it recorded.
  static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
    try await connection.inTransaction(logger: logger) { connection in
      // Any fixed number; "wellflow" in ASCII.
      try await connection.query("SELECT pg_advisory_xact_lock(8531361451727124345)", logger: logger)
      try await connection.query(
        """
        CREATE TABLE IF NOT EXISTS wellflow_schema (
          version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
        """, logger: logger)
      var applied = Set<Int>()
      for try await version in try await connection.query(
        "SELECT version FROM wellflow_schema", logger: logger
      )
      .decode(Int.self) {
        applied.insert(version)
      }
      for migration in migrations where !applied.contains(migration.version) {
        try await connection.run(migration.statements, logger: logger)
        try await connection.query(
          "INSERT INTO wellflow_schema (version) VALUES (\(migration.version))", logger: logger)
      }
    }
  }

  /// The versions that make the events table and its indexes: all a database that only
  /// holds events needs. Their statements may run again (`IF NOT EXISTS`), so a `serve`
  /// started on such a database later adds the rest.
  static let eventsVersions: Set<Int> = [2, 3, 5]

  /// The events tables alone, as `wellflow run --events postgres://…` needs them: no
  /// progress tables, no recorded version.
  static func migrateEvents(_ connection: PostgresConnection, logger: Logger) async throws {
    try await connection.inTransaction(logger: logger) { connection in
      try await connection.query("SELECT pg_advisory_xact_lock(8531361451727124345)", logger: logger)
      for migration in migrations where eventsVersions.contains(migration.version) {
        try await connection.run(migration.statements, logger: logger)
      }
    }
  }

  /// The report's facts (`EventFacts`) on a database that has events, made and filled from
  /// them if it has none; nothing on one without events.
  static func migrateEventFacts(_ connection: PostgresConnection, logger: Logger) async throws {
    try await connection.inTransaction(logger: logger) { connection in
      try await connection.query("SELECT pg_advisory_xact_lock(8531361451727124345)", logger: logger)
      try await connection.run(EventFacts.statements, logger: logger)
    }
  }

  // MARK: BackendStore

  func perform(_ writes: [Write], userID: String) async throws -> [BackendResponse] {
    var attempt = 1
    while true {
      do {
        return try await connections.withConnection { connection in
          try await PostgresWrites.perform(writes, userID: userID, on: connection, logger: logger)
        }
      } catch let error where attempt < Self.attempts && Self.lostARace(error) {
        attempt += 1
      }
    }
  }

  /// unique_violation, serialization_failure, deadlock_detected: another process wrote
  /// first; the write runs again and sees what it wrote.
  static func lostARace(_ error: any Error) -> Bool {
    ["23505", "40001", "40P01"].contains(PostgresFailure.sqlState(error))
  }

  func progressPage(userID: String, type: String?, page: PageRequest) async throws -> Page<ProgressRecord> {
    let filter = Self.filter(userID: userID, type: type, page: page)
    return try await connections.withConnection { connection in
      var count = PostgresQuery(unsafeSQL: "SELECT COUNT(*) FROM progress WHERE " + filter.sql)
      count.binds = filter.binds
      let total = try await Self.one(Int.self, connection.query(count, logger: logger)) ?? 0
      var rows = PostgresQuery(
        unsafeSQL: """
          SELECT id, type, quantity, date, notes, logged_at, entry_id FROM progress WHERE \(filter.sql)
          ORDER BY date, seq LIMIT $\(filter.binds.count + 1) OFFSET $\(filter.binds.count + 2)
          """)
      rows.binds = filter.binds
      rows.binds.append(page.limit)
      rows.binds.append(page.offset)
      var entries: [ProgressRecord] = []
      for try await row in try await connection.query(rows, logger: logger).decode(
        (String, String, Double, String, String?, String, String?).self)
      {
        entries.append(
          ProgressRecord(
            id: row.0, type: row.1, quantity: row.2, date: row.3, notes: row.4, loggedAt: row.5,
            entryID: row.6))
      }
      return Page(entries: entries, total: total, limit: page.limit, offset: page.offset)
    }
  }

  func progress(id: String, userID: String) async throws -> ProgressRecord? {
    try await connections.withConnection { connection in
      let rows = try await connection.query(
        """
        SELECT id, type, quantity, date, notes, logged_at, entry_id FROM progress
        WHERE id = \(id) AND user_id = \(userID)
        """, logger: logger)
      for try await row in rows.decode((String, String, Double, String, String?, String, String?).self) {
        return ProgressRecord(
          id: row.0, type: row.1, quantity: row.2, date: row.3, notes: row.4, loggedAt: row.5, entryID: row.6)
      }
      return nil
    }
  }

  func journalPage(userID: String, page: PageRequest) async throws -> Page<JournalRecord> {
    let filter = Self.filter(userID: userID, type: nil, page: page)
    return try await connections.withConnection { connection in
      var count = PostgresQuery(unsafeSQL: "SELECT COUNT(*) FROM journal WHERE " + filter.sql)
      count.binds = filter.binds
      let total = try await Self.one(Int.self, connection.query(count, logger: logger)) ?? 0
      var rows = PostgresQuery(
        unsafeSQL: """
          SELECT id, created_at, curriculum_id, secondary_curriculum_id, strategy_id, initiated_by
          FROM journal WHERE \(filter.sql)
          ORDER BY date, seq LIMIT $\(filter.binds.count + 1) OFFSET $\(filter.binds.count + 2)
          """)
      rows.binds = filter.binds
      rows.binds.append(page.limit)
      rows.binds.append(page.offset)
      var entries: [JournalRecord] = []
      for try await row in try await connection.query(rows, logger: logger).decode(
        (String, String, Int, Int?, Int?, String).self)
      {
        entries.append(
          JournalRecord(
            id: row.0, createdAt: row.1, curriculumID: row.2, secondaryCurriculumID: row.3, strategyID: row.4,
            initiatedBy: row.5))
      }
      return Page(entries: entries, total: total, limit: page.limit, offset: page.offset)
    }
  }

  func resourcePage(userID: String, resource: String, page: PageRequest) async throws -> Page<StoredResource>
  {
    try await connections.withConnection { connection in
      let total =
        try await Self.one(
          Int.self,
          connection.query(
            "SELECT COUNT(*) FROM resources WHERE user_id = \(userID) AND resource = \(resource)",
            logger: logger)) ?? 0
      var entries: [StoredResource] = []
      for try await row in try await connection.query(
        """
        SELECT id, body FROM resources WHERE user_id = \(userID) AND resource = \(resource)
        ORDER BY seq LIMIT \(page.limit) OFFSET \(page.offset)
        """, logger: logger
      ).decode((String, String).self) {
        entries.append(StoredResource(id: row.0, body: row.1))
      }
      return Page(entries: entries, total: total, limit: page.limit, offset: page.offset)
    }
  }

  func resource(id: String, userID: String, resource: String) async throws -> StoredResource? {
    try await connections.withConnection { connection in
      let rows = try await connection.query(
        "SELECT id, body FROM resources WHERE id = \(id) AND user_id = \(userID) AND resource = \(resource)",
        logger: logger)
      for try await row in rows.decode((String, String).self) {
        return StoredResource(id: row.0, body: row.1)
      }
      return nil
    }
  }

  /// The WHERE clause of a user's rows (of `type`, within the page's dates) and its binds.
  private static func filter(userID: String, type: String?, page: PageRequest) -> (
    sql: String, binds: PostgresBindings
  ) {
    var binds = PostgresBindings()
    var conditions: [String] = []
    func add(_ condition: String, _ value: String) {
      binds.append(value)
      conditions.append("\(condition) $\(binds.count)")
    }
    add("user_id =", userID)
    if let type { add("type =", type) }
    if let from = page.from { add("date >=", from) }
    if let to = page.to { add("date <=", to) }
    return (conditions.joined(separator: " AND "), binds)
  }

  private static func one<V: PostgresDecodable & Sendable>(_ type: V.Type, _ rows: PostgresRowSequence)
    async throws
    -> V?
  {
    for try await value in rows.decode(V.self) { return value }
    return nil
  }
}
