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

  /// The user's sessions that ended within `interval`, oldest first.
  public func sessions(userID: String, in interval: DateInterval) async throws -> [(date: Date, minutes: Int)]
  {
    try await writer.read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT ended_at, minutes FROM breathing_sessions
          WHERE user_id = ? AND ended_at >= ? AND ended_at < ? ORDER BY ended_at, id
          """,
        arguments: [userID, interval.start.timeIntervalSince1970, interval.end.timeIntervalSince1970]
      ).map { row in (Date(timeIntervalSince1970: row["ended_at"]), row["minutes"]) }
    }
  }
}

/// Delivered breathing reminders over the app's database, for the user the app opened.
public struct SQLiteBreathingReminders: BreathingReminders {
  let writer: any DatabaseWriter
  let userID: String

  public init(writer: any DatabaseWriter, userID: String) {
    self.writer = writer
    self.userID = userID
  }

  public func deliver(at date: Date) async throws {
    try await writer.write { [userID] db in
      try db.execute(
        sql: "INSERT INTO breathing_reminders (user_id, delivered_at) VALUES (?, ?)",
        arguments: [userID, date.timeIntervalSince1970])
    }
  }

  public func unopened() async throws -> [Date] {
    try await writer.read { [userID] db in
      try Double.fetchAll(
        db, sql: "SELECT delivered_at FROM breathing_reminders WHERE user_id = ? ORDER BY delivered_at, id",
        arguments: [userID]
      ).map(Date.init(timeIntervalSince1970:))
    }
  }

  public func markLatestOpened() async throws {
    try await writer.write { [userID] db in
      try db.execute(
        sql: """
          DELETE FROM breathing_reminders WHERE id = (
            SELECT id FROM breathing_reminders WHERE user_id = ? ORDER BY delivered_at DESC, id DESC LIMIT 1)
          """,
        arguments: [userID])
    }
  }
}

/// What the feature brings to the app's storage: its tables, an adapter over SQLite for
/// each of its ports (the log, the reminders), and its export column.
/// Listed in `WellflowFeatures.all` beside the feature.
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
      },
      SQLiteMigration("breathing_v2_reminders") { db, _ in
        try db.create(table: "breathing_reminders") { table in
          table.autoIncrementedPrimaryKey("id")
          table.column("user_id", .text).notNull()
          table.column("delivered_at", .double).notNull()
        }
      },
    ],
    sqliteAdapters: { services, database, context in
      services[BreathingLogKey.self] = SQLiteBreathingLog(writer: database.writer)
      services[BreathingRemindersKey.self] = SQLiteBreathingReminders(
        writer: database.writer, userID: context.userID)
    },
    export: FeatureExport(type: "breathing", columns: ["minutes"]) { database, userID, interval in
      try await SQLiteBreathingLog(writer: database.writer).sessions(userID: userID, in: interval).map {
        FeatureExport.Row(date: $0.date, values: ["minutes": .integer($0.minutes)])
      }
    })
}
