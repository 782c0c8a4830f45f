// A worked example of the plugin guide (FlowKit.docc/PluginGuide.md): the page shows this code, and
// GuideDocumentationTests checks that it still does, word for word.

import FlowKit
import Foundation
import GRDB
import Storage

/// The journal over the app's database: one row a saved list, its items one a line.
public struct SQLiteGratitudeJournal: GratitudeJournal {
  let writer: any DatabaseWriter

  public init(writer: any DatabaseWriter) { self.writer = writer }

  public func save(_ items: [String], userID: String, at date: Date) async throws {
    try await writer.write { db in
      try db.execute(
        sql: "INSERT INTO gratitude_lists (user_id, saved_at, items) VALUES (?, ?, ?)",
        arguments: [userID, date.timeIntervalSince1970, items.joined(separator: "\n")])
      // Queued for the backend in the same transaction: the list and the outbox row are
      // kept together or not at all. The payload is the object the backend keeps.
      let payload = try JSONSerialization.data(
        withJSONObject: ["items": items, "saved_at": date.ISO8601Format()], options: [.sortedKeys])
      try OutboxRows.enqueue(
        OutboxRow(
          id: UUID(), userID: userID, entity: .gratitude, entityID: String(db.lastInsertedRowID),
          operation: .create, payload: String(decoding: payload, as: UTF8.self), nextAttemptAt: date,
          createdAt: date),
        in: db)
    }
  }

  public func count(userID: String) async throws -> Int {
    try await writer.read { db in
      try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM gratitude_lists WHERE user_id = ?", arguments: [userID])
        ?? 0
    }
  }

  /// The user's lists saved within `interval`, oldest first.
  public func lists(userID: String, in interval: DateInterval) async throws -> [(date: Date, items: [String])]
  {
    try await writer.read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT saved_at, items FROM gratitude_lists
          WHERE user_id = ? AND saved_at >= ? AND saved_at < ? ORDER BY saved_at, id
          """,
        arguments: [userID, interval.start.timeIntervalSince1970, interval.end.timeIntervalSince1970]
      ).map { row in
        let items: String = row["items"]
        return (Date(timeIntervalSince1970: row["saved_at"]), items.components(separatedBy: "\n"))
      }
    }
  }
}

/// The evening reminders over the app's database, for the user the app opened: the app's
/// notification scheduler calls `deliver(at:)` when one fires, and the feature reads and
/// opens them through its port (step 7).
public struct SQLiteGratitudeReminders: GratitudeReminders {
  let writer: any DatabaseWriter
  let userID: String

  public init(writer: any DatabaseWriter, userID: String) {
    self.writer = writer
    self.userID = userID
  }

  public func deliver(at date: Date) async throws {
    try await writer.write { [userID] db in
      try db.execute(
        sql: "INSERT INTO gratitude_reminders (user_id, delivered_at) VALUES (?, ?)",
        arguments: [userID, date.timeIntervalSince1970])
    }
  }

  public func unopened() async throws -> [Date] {
    try await writer.read { [userID] db in
      try Double.fetchAll(
        db, sql: "SELECT delivered_at FROM gratitude_reminders WHERE user_id = ? ORDER BY delivered_at, id",
        arguments: [userID]
      ).map(Date.init(timeIntervalSince1970:))
    }
  }

  public func markLatestOpened() async throws {
    try await writer.write { [userID] db in
      try db.execute(
        sql: """
          DELETE FROM gratitude_reminders WHERE id = (
            SELECT id FROM gratitude_reminders WHERE user_id = ? ORDER BY delivered_at DESC, id DESC LIMIT 1)
          """,
        arguments: [userID])
    }
  }
}

extension OutboxEntity {
  /// The outbox rows of saved lists (`GratitudeSync` sends them).
  public static let gratitude = OutboxEntity(rawValue: "gratitude")
}

/// What the feature brings to the app's storage: its tables, an adapter over SQLite for
/// every port its features need (the journal, and the reminders of
/// `GratitudeReminderFeature`), and its export columns. Listed in `WellflowFeatures.all`
/// beside the feature.
public enum GratitudeStorage: StoringFeature {
  public static let storage = FeatureStorage(
    name: "Gratitude",
    migrations: [
      SQLiteMigration("gratitude_v1") { db, _ in
        try db.create(table: "gratitude_lists") { table in
          table.autoIncrementedPrimaryKey("id")
          table.column("user_id", .text).notNull()
          table.column("saved_at", .double).notNull()
          table.column("items", .text).notNull()
        }
      },
      SQLiteMigration("gratitude_v2_reminders") { db, _ in
        try db.create(table: "gratitude_reminders") { table in
          table.autoIncrementedPrimaryKey("id")
          table.column("user_id", .text).notNull()
          table.column("delivered_at", .double).notNull()
        }
      },
    ],
    sqliteAdapters: { services, database, context in
      services[GratitudeJournalKey.self] = SQLiteGratitudeJournal(writer: database.writer)
      services[GratitudeRemindersKey.self] = SQLiteGratitudeReminders(
        writer: database.writer, userID: context.userID)
    },
    export: FeatureExport(type: "gratitude", columns: ["items"]) { database, userID, interval in
      try await SQLiteGratitudeJournal(writer: database.writer).lists(userID: userID, in: interval).map {
        FeatureExport.Row(date: $0.date, values: ["items": .list($0.items)])
      }
    })
}
