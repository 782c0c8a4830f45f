// The breathing feature's SQLite adapter and migration (in an app: its BreathingSQLite module).

import FlowKit
import Foundation
import GRDB
import Storage

extension OutboxEntity {
  /// The outbox rows of logged sessions (`BreathingSync` sends them).
  public static let breathing = OutboxEntity(rawValue: "breathing")
}

/// The log over the app's database; a session and its outbox row in one transaction.
public struct SQLiteBreathingLog: BreathingLog {
  let writer: any DatabaseWriter

  public init(writer: any DatabaseWriter) { self.writer = writer }

  public func save(minutes: Int, userID: String, at date: Date) async throws {
    try await writer.write { db in
      try db.execute(
        sql: "INSERT INTO breathing_sessions (user_id, ended_at, minutes) VALUES (?, ?, ?)",
        arguments: [userID, date.timeIntervalSince1970, minutes])
      let payload = try JSONSerialization.data(
        withJSONObject: ["minutes": minutes, "ended_at": date.ISO8601Format()], options: [.sortedKeys])
      try OutboxRows.enqueue(
        OutboxRow(
          id: UUID(), userID: userID, entity: .breathing, entityID: String(db.lastInsertedRowID),
          operation: .create, payload: String(decoding: payload, as: UTF8.self), nextAttemptAt: date,
          createdAt: date),
        in: db)
    }
  }

  public func count(userID: String) async throws -> Int {
    try await writer.read { db in
      try Int.fetchOne(
        db, sql: "SELECT COUNT(*) FROM breathing_sessions WHERE user_id = ?", arguments: [userID]) ?? 0
    }
  }
}

/// What the feature brings to the app's storage: its table and its log over SQLite or
/// in memory. Listed in `WellflowFeatures.all` beside the feature.
public enum BreathingStorage: StoringFeature {
  public static let storage = FeatureStorage(
    name: "Breathing",
    migrations: [
      SQLiteMigration("breathing_v1") { db, _ in
        try db.create(table: "breathing_sessions") { table in
          table.autoIncrementedPrimaryKey("id")
          table.column("user_id", .text).notNull()
          table.column("ended_at", .double).notNull()
          table.column("minutes", .integer).notNull()
        }
      }
    ],
    sqliteAdapters: { services, database, _ in
      services[BreathingLogKey.self] = SQLiteBreathingLog(writer: database.writer)
    },
    memoryAdapters: { _ in
      let log = InMemoryBreathingLog()
      return { services, _ in services[BreathingLogKey.self] = log }
    })
}
