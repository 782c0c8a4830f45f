import Foundation
import GRDB
import Reminders
import Testing
import WellflowComposition

@testable import RemindersSQLite
@testable import Storage

@Suite("SQLite delivered notifications")
struct DeliveredNotificationStoreTests {
  /// The last migration before deliveries had a table of their own.
  static let lastWithDeliveriesInKeyValues = "moodHours"
  static let reminder = "checkin.reminder"

  /// What the previous version left in a data folder (`wellflow run --data-dir` on
  /// main, 2026-11-27): three evenings' reminders in Berlin, the last one opened.
  static let writtenByThePreviousVersion: [(user: String, key: String, value: String)] = [
    (
      "user-1", "notifications.local.requests",
      #"[{"after":1772649000,"request":{"body":"How are you feeling today?","hour":19,"id":"checkin.reminder","minute":30,"title":"Time to check in"}}]"#
    ),
    (
      "user-1", "notifications.local.delivered",
      #"[{"date":1772476200,"id":"checkin.reminder","opened":false},{"date":1772562600,"id":"checkin.reminder","opened":false},{"date":1772649000,"id":"checkin.reminder","opened":true}]"#
    ),
    ("user-1", "reminders.time", "19:30"),
    (
      "user-2", "notifications.local.delivered",
      #"[{"date":1772476200.5,"id":"checkin.reminder","opened":false}]"#
    ),
    ("user-3", "notifications.local.delivered", "[{not json"),
  ]

  /// A database as the previous version left it, then opened by this one.
  static func migratedFromThePreviousFormat() throws -> (DatabaseQueue, WellflowDatabase) {
    let queue = try DatabaseQueue()
    try OlderVersions.migrator().migrate(queue, upTo: lastWithDeliveriesInKeyValues)
    try queue.write { db in
      for row in writtenByThePreviousVersion {
        try db.execute(
          sql: "INSERT INTO key_values (user_id, key, value) VALUES (?, ?, ?)",
          arguments: [row.user, row.key, row.value])
      }
    }
    return (queue, try WellflowDatabase(writer: queue, schema: WellflowFeatures.schema))
  }

  @Test func deliveriesKeptInTheKeyValueStoreMoveToTheirTableInOrder() async throws {
    let (queue, database) = try Self.migratedFromThePreviousFormat()
    let first = SQLiteDeliveredNotificationStore(database: database, userID: "user-1")
    #expect(
      try await first.all() == [
        DeliveredNotification(id: Self.reminder, date: Date(timeIntervalSince1970: 1_772_476_200)),
        DeliveredNotification(id: Self.reminder, date: Date(timeIntervalSince1970: 1_772_562_600)),
        DeliveredNotification(
          id: Self.reminder, date: Date(timeIntervalSince1970: 1_772_649_000), opened: true),
      ])
    #expect(try await first.counts() == DeliveryCounts(delivered: 3, unopened: 2))
    #expect(try await first.unopened().map(\.date.timeIntervalSince1970) == [1_772_476_200, 1_772_562_600])
    let second = SQLiteDeliveredNotificationStore(database: database, userID: "user-2")
    #expect(
      try await second.all() == [
        DeliveredNotification(id: Self.reminder, date: Date(timeIntervalSince1970: 1_772_476_200.5))
      ])
    // The lists moved; the requests and settings stay where they were. A list that
    // cannot be read stays too, rather than stopping the app from opening.
    let left = try await queue.read { db in
      try String.fetchAll(db, sql: "SELECT user_id || ' ' || key FROM key_values ORDER BY user_id, key")
    }
    #expect(
      left == [
        "user-1 notifications.local.requests", "user-1 reminders.time",
        "user-3 notifications.local.delivered",
      ])
    #expect(try await SQLiteDeliveredNotificationStore(database: database, userID: "user-3").all() == [])
  }

  @Test func aDeliveryIsARowAndOpeningMarksTheOldestUnopenedOfThatTime() async throws {
    let database = try WellflowDatabase.inMemory(schema: WellflowFeatures.schema)
    let store = SQLiteDeliveredNotificationStore(database: database, userID: "alice")
    let other = SQLiteDeliveredNotificationStore(database: database, userID: "bob")
    let day = Date(timeIntervalSince1970: 1_772_476_200)
    for index in 0..<1_000 {
      try await store.append(DeliveredNotification(id: Self.reminder, date: day + Double(index) * 86_400))
    }
    try await other.append(DeliveredNotification(id: Self.reminder, date: day))
    try await store.append(DeliveredNotification(id: "other", date: day))
    #expect(try await store.counts() == DeliveryCounts(delivered: 1_001, unopened: 1_001))

    try await store.markOpened(DeliveredNotification(id: Self.reminder, date: day + 86_400))
    try await store.markOpened(DeliveredNotification(id: Self.reminder, date: day + 86_400))
    try await store.markOpened(DeliveredNotification(id: Self.reminder, date: day - 1))
    #expect(try await store.counts() == DeliveryCounts(delivered: 1_001, unopened: 1_000))
    let all = try await store.all()
    #expect(all.count == 1_001)
    #expect(all.filter(\.opened).map(\.date) == [day + 86_400])
    #expect(all.last == DeliveredNotification(id: "other", date: day))
    #expect(try await store.unopened().count == 1_000)
    #expect(try await store.unopened().prefix(2).map(\.date) == [day, day + 2 * 86_400])
    #expect(try await other.counts() == DeliveryCounts(delivered: 1, unopened: 1))
  }
}
