import FlowKit
import Foundation
import GRDB
import Journal
import Storage

/// Journal entries in SQLite. `finish` writes the entry's final state and its one
/// outbox row (`POST /api/v1/journal`) in one transaction.
public final class SQLiteJournalRepository: JournalRepository {
  private let writer: any DatabaseWriter
  private let clock: any FlowClock

  public init(database: WellflowDatabase, clock: any FlowClock) {
    self.writer = database.writer
    self.clock = clock
  }

  /// The journal's tables, in order.
  public static let migrations: [SQLiteMigration] = [
    SQLiteMigration("journalEntries") { db, _ in
      try db.execute(
        sql: """
          CREATE TABLE journal_entries (
            id TEXT PRIMARY KEY NOT NULL,
            user_id TEXT NOT NULL,
            created_at REAL NOT NULL,
            primary_id INTEGER NOT NULL,
            secondary_id INTEGER,
            strategy_id INTEGER,
            initiated_by TEXT NOT NULL,
            save_order INTEGER NOT NULL
          );
          CREATE INDEX journal_entries_by_user ON journal_entries(user_id, created_at, save_order);
          """)
    },
    SQLiteMigration("journalEntriesFinished") { db, _ in
      try db.execute(sql: "ALTER TABLE journal_entries ADD COLUMN finished INTEGER NOT NULL DEFAULT 0")
    },
  ]

  public func save(_ entry: JournalEntry) async throws {
    try await writer.writing { db in try Self.upsert(entry, in: db) }
  }

  public func finish(_ entry: JournalEntry) async throws {
    let now = clock.now
    try await writer.writing { db in
      try Self.upsert(entry, in: db)
      try Self.queue(entry, at: now, in: db)
    }
  }

  /// Queues the entries whose flow never ended (the app quit with the journal open):
  /// they are kept and sent like finished ones. Run at start, before any journal flow.
  @discardableResult
  public func queueUnfinished(userID: String) throws -> Int {
    let now = clock.now
    let unfinished = "SELECT \(Self.columns) FROM journal_entries WHERE user_id = ? AND finished = 0"
    // Every launch asks; almost always there is none, and one cached statement outside a
    // transaction answers that.
    let any = try writer.unsafeRead { db in
      try Row.fetchOne(db.cachedStatement(sql: unfinished), arguments: [userID]) != nil
    }
    guard any else { return 0 }
    return try writer.write { db in
      let entries = try Row.fetchAll(db.cachedStatement(sql: unfinished), arguments: [userID]).map(Self.entry)
      for entry in entries { try Self.queue(entry, at: now, in: db) }
      return entries.count
    }
  }

  private static func queue(_ entry: JournalEntry, at now: Date, in db: Database) throws {
    try db.execute(
      sql: "UPDATE journal_entries SET finished = 1 WHERE id = ? AND user_id = ?",
      arguments: [entry.id, entry.userID])
    try OutboxRows.enqueue(
      OutboxRow(
        id: UUID(), userID: entry.userID, entity: .journal, entityID: entry.id, operation: .create,
        payload: payload(entry), nextAttemptAt: now, createdAt: now),
      in: db)
  }

  private static let columns = "id, user_id, created_at, primary_id, secondary_id, strategy_id, initiated_by"

  private static func entry(_ row: Row) -> JournalEntry {
    JournalEntry(
      id: row["id"], userID: row["user_id"], createdAt: Date(timeIntervalSince1970: row["created_at"]),
      primary: row["primary_id"], secondary: row["secondary_id"], strategy: row["strategy_id"],
      initiatedBy: JournalInitiator(rawValue: row["initiated_by"]) ?? .self)
  }

  public func count(userID: String) async throws -> Int {
    try await writer.reading { db in
      try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journal_entries WHERE user_id = ?", arguments: [userID])
        ?? 0
    }
  }

  public func latest(userID: String) async throws -> JournalEntry? {
    try await writer.reading { db in
      try Row.fetchOne(
        db,
        sql: """
          SELECT \(Self.columns) FROM journal_entries
          WHERE user_id = ? ORDER BY created_at DESC, save_order DESC LIMIT 1
          """, arguments: [userID]
      ).map(Self.entry)
    }
  }

  /// The user's entries with `interval.start <= createdAt < interval.end`, ascending
  /// (what an export reads).
  public func entries(userID: String, in interval: DateInterval) async throws -> [JournalEntry] {
    try await writer.reading { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT \(Self.columns) FROM journal_entries
          WHERE user_id = ? AND created_at >= ? AND created_at < ? ORDER BY created_at, save_order
          """,
        arguments: [userID, interval.start.timeIntervalSince1970, interval.end.timeIntervalSince1970]
      ).map(Self.entry)
    }
  }

  private static func upsert(_ entry: JournalEntry, in db: Database) throws {
    try db.execute(
      sql: """
        INSERT INTO journal_entries
          (id, user_id, created_at, primary_id, secondary_id, strategy_id, initiated_by, save_order)
        VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(save_order), 0) + 1 FROM journal_entries))
        ON CONFLICT(id) DO UPDATE SET
          primary_id = excluded.primary_id, secondary_id = excluded.secondary_id,
          strategy_id = excluded.strategy_id, save_order = excluded.save_order
        WHERE journal_entries.user_id = excluded.user_id
        """,
      arguments: [
        entry.id, entry.userID, entry.createdAt.timeIntervalSince1970, entry.primary, entry.secondary,
        entry.strategy, entry.initiatedBy.rawValue,
      ])
  }

  /// The row's payload: the entry in the journal's own words (JournalSync makes the body
  /// of `POST /api/v1/journal` from it).
  static func payload(_ entry: JournalEntry) -> String {
    JournalSyncPayload(entry: entry).json()
  }
}
