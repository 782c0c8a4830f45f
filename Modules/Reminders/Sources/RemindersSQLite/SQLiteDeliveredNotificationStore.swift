import FlowKit
import Foundation
import GRDB
import Reminders
import Storage

/// The notifications the reminders delivered to one user, a row each in
/// `delivered_notifications`, so a delivery is one insert however many came before.
public struct SQLiteDeliveredNotificationStore: DeliveredNotificationStore {
  private let writer: any DatabaseWriter
  public let userID: String

  public init(database: WellflowDatabase, userID: String) {
    self.writer = database.writer
    self.userID = userID
  }

  /// The reminders' table, in order.
  public static let migrations: [SQLiteMigration] = [
    SQLiteMigration("deliveredNotifications") { db, _ in
      // `seq` (the rowid) keeps the order of delivery; the index answers the counts and
      // the unopened ones, in that order, without reading the opened ones.
      try db.execute(
        sql: """
          CREATE TABLE delivered_notifications (
            seq INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL,
            id TEXT NOT NULL,
            date REAL NOT NULL,
            opened INTEGER NOT NULL
          );
          CREATE INDEX delivered_notifications_by_user ON delivered_notifications(user_id, opened);
          """)
      try moveLegacyDeliveries(in: db)
    }
  ]

  /// Until this table, each user's deliveries were one JSON list in the key-value store,
  /// rewritten whole for every delivery: they move here in their order. A list that
  /// cannot be read stays where it was, so that opening the app never fails on it.
  private static func moveLegacyDeliveries(in db: Database) throws {
    let key = LocalNotificationScheduler.legacyDeliveredKey
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    let lists = try Row.fetchAll(
      db, sql: "SELECT user_id, value FROM key_values WHERE key = ?", arguments: [key])
    for list in lists {
      let userID: String = list["user_id"]
      let text: String = list["value"]
      guard let delivered = try? decoder.decode([DeliveredNotification].self, from: Data(text.utf8)) else {
        continue
      }
      for notification in delivered {
        try insert(notification, userID: userID, in: db)
      }
      try db.execute(sql: "DELETE FROM key_values WHERE user_id = ? AND key = ?", arguments: [userID, key])
    }
  }

  private static func insert(_ notification: DeliveredNotification, userID: String, in db: Database) throws {
    try db.cachedStatement(
      sql: "INSERT INTO delivered_notifications (user_id, id, date, opened) VALUES (?, ?, ?, ?)"
    ).execute(arguments: [
      userID, notification.id, notification.date.timeIntervalSince1970, notification.opened,
    ])
  }

  public func append(_ notification: DeliveredNotification) async throws {
    let userID = userID
    try await writer.oneStatement { db in try Self.insert(notification, userID: userID, in: db) }
  }

  public func counts() async throws -> DeliveryCounts {
    let userID = userID
    return try await writer.reading { db in
      let row = try Row.fetchOne(
        db.cachedStatement(
          sql: """
            SELECT COUNT(*), COALESCE(SUM(opened = 0), 0) FROM delivered_notifications WHERE user_id = ?
            """),
        arguments: [userID])
      return DeliveryCounts(delivered: row?[0] ?? 0, unopened: row?[1] ?? 0)
    }
  }

  public func unopened() async throws -> [DeliveredNotification] {
    try await fetch("WHERE user_id = ? AND opened = 0 ORDER BY seq")
  }

  public func all() async throws -> [DeliveredNotification] {
    try await fetch("WHERE user_id = ? ORDER BY seq")
  }

  public func markOpened(_ notification: DeliveredNotification) async throws {
    let userID = userID
    try await writer.writing { db in
      try db.cachedStatement(
        sql: """
          UPDATE delivered_notifications SET opened = 1 WHERE seq = (
            SELECT seq FROM delivered_notifications
            WHERE user_id = ? AND opened = 0 AND id = ? AND date = ? ORDER BY seq LIMIT 1)
          """
      ).execute(arguments: [userID, notification.id, notification.date.timeIntervalSince1970])
    }
  }

  private func fetch(_ filter: String) async throws -> [DeliveredNotification] {
    let userID = userID
    return try await writer.reading { db in
      try Row.fetchAll(
        db.cachedStatement(sql: "SELECT id, date, opened FROM delivered_notifications \(filter)"),
        arguments: [userID]
      ).map { row in
        DeliveredNotification(
          id: row[0], date: Date(timeIntervalSince1970: row[1]), opened: row[2])
      }
    }
  }
}
