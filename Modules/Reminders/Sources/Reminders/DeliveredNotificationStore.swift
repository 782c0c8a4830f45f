import FlowKit
import Foundation

/// How many notifications were delivered since the app's data began, and how many of
/// them are not opened.
public struct DeliveryCounts: Sendable, Equatable {
  public var delivered: Int
  public var unopened: Int

  public init(delivered: Int, unopened: Int) {
    self.delivered = delivered
    self.unopened = unopened
  }
}

/// Where `LocalNotificationScheduler` keeps what it delivered, one record per delivery,
/// so that a delivery costs the same after a hundred years of daily reminders as on the
/// first day (the whole list used to be rewritten for each one). The app keeps them in
/// SQLite (`SQLiteDeliveredNotificationStore` in `RemindersSQLite`); tests in memory
/// (`InMemoryDeliveredNotificationStore` in `RemindersTesting`).
public protocol DeliveredNotificationStore: Sendable {
  /// Keeps `notification` after every one kept before.
  func append(_ notification: DeliveredNotification) async throws
  func counts() async throws -> DeliveryCounts
  /// The ones not opened, oldest first.
  func unopened() async throws -> [DeliveredNotification]
  /// Every one, oldest first.
  func all() async throws -> [DeliveredNotification]
  /// Marks the oldest unopened delivery of `notification.id` at `notification.date`
  /// opened; nothing when there is none.
  func markOpened(_ notification: DeliveredNotification) async throws
}
