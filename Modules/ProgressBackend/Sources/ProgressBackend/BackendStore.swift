import Foundation
import GRDB

/// The backend's rows in SQLite: progress and journal rows per user, and the
/// responses already given per idempotency key (with what each key's request was).
final class BackendStore: Sendable {
  let writer: any DatabaseWriter

  /// `path` nil keeps everything in memory.
  init(path: String?) throws {
    if let path {
      var configuration = Configuration()
      configuration.busyMode = .timeout(5)
      writer = try DatabasePool(path: path, configuration: configuration)
    } else {
      writer = try DatabaseQueue()
    }
    try Self.migrator.migrate(writer)
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
    return migrator
  }

  /// Runs `body` in one write transaction.
  func write<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
    try await writer.write(body)
  }

  /// The answer kept for the user's idempotency key, with the fingerprint of the request
  /// that got it (nil for keys kept before fingerprints were).
  static func answer(userID: String, key: String, in db: Database) throws
    -> (response: BackendResponse, fingerprint: Data?)?
  {
    guard
      let row = try Row.fetchOne(
        db.cachedStatement(
          sql: "SELECT status, body, fingerprint FROM idempotency WHERE user_id = ? AND key = ?"),
        arguments: [userID, key])
    else { return nil }
    return (BackendResponse(status: row["status"], body: row["body"], replayed: true), row["fingerprint"])
  }

  /// Keeps `response` as the answer to the user's key.
  static func keep(
    _ response: BackendResponse, fingerprint: Data, userID: String, key: String, in db: Database
  ) throws {
    try db.cachedStatement(
      sql: "INSERT INTO idempotency (user_id, key, status, body, fingerprint) VALUES (?, ?, ?, ?, ?)"
    ).execute(arguments: [userID, key, response.status, response.body, fingerprint])
  }

  func read<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
    try await writer.read(body)
  }
}

/// A status and a JSON body.
struct BackendResponse: Sendable {
  var status: Int
  var body: Data
  var replayed = false
  /// The methods a 405's path takes, for its `Allow` header (RFC 9110).
  var allow: [String]? = nil
}
