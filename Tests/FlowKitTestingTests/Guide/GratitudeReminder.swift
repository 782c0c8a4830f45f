// A worked example of the plugin guide (FlowKit.docc/PluginGuide.md): the page shows this code, and
// GuideDocumentationTests checks that it still does, word for word.

import FlowKit
import Foundation

/// Where the evening reminder is delivered and opened: the app adapts its notification
/// scheduler to it, tests deliver by hand.
public protocol GratitudeReminders: Sendable {
  /// When each delivered, unopened reminder was delivered, oldest first.
  func unopened() async throws -> [Date]
  /// Marks the latest delivered, unopened reminder opened.
  func markLatestOpened() async throws
}

public enum GratitudeRemindersKey: ServiceKey {
  public typealias Value = any GratitudeReminders
}

/// Opening a reminder when none is delivered and unopened.
public struct NoGratitudeReminder: Error, Equatable, CustomStringConvertible {
  public init() {}
  public var description: String { "no gratitude.reminder notification is delivered and unopened" }
}

/// The evening reminder: a script's `expect: {notification: gratitude.reminder}` sees it,
/// and `open: gratitude.reminder` starts the gratitude flow.
public enum GratitudeReminderFeature: FlowFeature {
  public static let notificationID = "gratitude.reminder"

  public static var requiredServices: [any ServiceKey.Type] { [GratitudeRemindersKey.self] }

  public static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try registry.register(
      NotificationDefinition(
        id: notificationID, flow: GratitudeFeature.flowID,
        unopened: { host in try await host.environment.services[GratitudeRemindersKey.self].unopened() },
        open: { host in
          let reminders = host.environment.services[GratitudeRemindersKey.self]
          guard try await !reminders.unopened().isEmpty else { throw NoGratitudeReminder() }
          try await reminders.markLatestOpened()
          try host.present(FlowRequest(flow: GratitudeFeature.flowID, trigger: .notification))
        }))
  }
}
