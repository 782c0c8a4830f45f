import FlowKit
import Foundation

/// A notification asked for every day at a local time (hour and minute in the user's
/// time zone).
public struct DailyNotificationRequest: Sendable, Codable, Equatable {
  /// Stable id: `checkin.reminder`.
  public var id: String
  public var hour: Int
  public var minute: Int
  public var title: String
  public var body: String

  public init(id: String, hour: Int, minute: Int, title: String, body: String) {
    self.id = id
    self.hour = hour
    self.minute = minute
    self.title = title
    self.body = body
  }
}

/// A notification that reached the person, and whether they opened it.
public struct DeliveredNotification: Sendable, Codable, Equatable {
  public var id: String
  public var date: Date
  public var opened: Bool

  public init(id: String, date: Date, opened: Bool = false) {
    self.id = id
    self.date = date
    self.opened = opened
  }
}

/// The port through which features ask for local notifications.
///
/// Here the app ships `LocalNotificationScheduler`, which delivers on the host's clock
/// and keeps its state in the app's store. On Apple platforms an adapter over
/// `UNUserNotificationCenter` serves the same calls:
/// - `scheduleDaily`: one `UNNotificationRequest` per coming day (identifier
///   `"\(id)@YYYY-MM-DD"`, a non-repeating `UNCalendarNotificationTrigger` on that day's
///   hour and minute, which the system moves past a DST gap), keeping a window of days
///   ahead; `cancel`: `removePendingNotificationRequests(withIdentifiers:)` for them.
/// - `scheduled`: `pendingNotificationRequests()` folded back to one request per id.
/// - `delivered`, `deliveryCounts`, `unopened`, `markOpened`: what the adapter recorded from
///   `UNUserNotificationCenterDelegate` (`willPresent` and `didReceive`), as the system
///   forgets notifications the person cleared.
/// - `startDelivering`: the system delivers by itself; the adapter asks `shouldDeliver`
///   for each day in its window when the app becomes active or a mood is saved, and
///   removes that day's request when it says no (a system cannot ask the app at the
///   moment of delivery).
@MainActor
public protocol NotificationScheduler: AnyObject, Sendable {
  /// Asks for `request` every day from now on, replacing one with the same id.
  func scheduleDaily(_ request: DailyNotificationRequest) async throws
  /// Stops the notifications with `id`; delivered ones stay delivered.
  func cancel(id: String) async throws
  /// The requests in force.
  func scheduled() async throws -> [DailyNotificationRequest]
  /// Every notification delivered since the app's data began, oldest first.
  func delivered() async throws -> [DeliveredNotification]
  /// How many were delivered since the app's data began, and how many are not opened.
  func deliveryCounts() async throws -> DeliveryCounts
  /// The delivered notifications not opened, oldest first.
  func unopened() async throws -> [DeliveredNotification]
  /// Marks a delivered notification opened (the person tapped it).
  func markOpened(_ notification: DeliveredNotification) async throws
  /// Begins delivering for `host`: each occurrence asks `shouldDeliver` (a reminder
  /// skipped on a day whose mood is in), and each delivery is told to `didDeliver`.
  func startDelivering(
    on host: FlowHost,
    shouldDeliver: @escaping @MainActor (DailyNotificationRequest, Date) async -> Bool,
    didDeliver: @escaping @MainActor (DeliveredNotification) -> Void)
}

public enum NotificationSchedulerKey: ServiceKey {
  public typealias Value = any NotificationScheduler
}
