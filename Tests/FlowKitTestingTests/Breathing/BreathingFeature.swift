// A second small feature built like the guide's gratitude (FlowKit.docc/PluginGuide.md):
// a breathing session log with its own table, strings, sync resource and tests.

import FlowKit
import Foundation

/// Where finished sessions go. The app provides an adapter (`BreathingStorage`).
public protocol BreathingLog: Sendable {
  func save(minutes: Int, userID: String, at date: Date) async throws
  func count(userID: String) async throws -> Int
}

public enum BreathingLogKey: ServiceKey {
  public typealias Value = any BreathingLog
}

/// One screen: pick how long you breathed, and it is logged. Output: the minutes.
public final class BreathingCoordinator: FlowCoordinator<Int> {
  nonisolated public static let screenID = "breathing.session"
  private let log: any BreathingLog
  private let userID: String?
  private let clock: any FlowClock
  private let work: WorkTracker
  private var isSaving = false
  private var problem: String?

  public init(context: FlowContext) {
    log = context.environment.services[BreathingLogKey.self]
    userID = context.environment.userID
    clock = context.environment.clock
    work = context.work
  }

  public override var screen: Screen {
    Screen(
      id: Self.screenID, title: "Breathe",
      message: problem ?? (isSaving ? "Saving…" : "In for four, out for six. How long did you breathe?"),
      elements: [
        .button("one", "1 minute", enabled: !isSaving),
        .button("three", "3 minutes", enabled: !isSaving),
      ],
      canClose: !isSaving)
  }

  public override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .tap("one"): save(minutes: 1)
    case .tap("three"): save(minutes: 3)
    case .close: cancel()
    default: break
    }
  }

  private func save(minutes: Int) {
    guard let userID else {
      problem = "Sign in to keep your sessions."
      return
    }
    isSaving = true
    problem = nil
    let date = clock.now
    work.run { [weak self, log] in
      do {
        try await log.save(minutes: minutes, userID: userID, at: date)
        self?.complete(minutes)
      } catch {
        self?.isSaving = false
        self?.problem = "Your session could not be saved. Try again."
      }
    }
  }
}

/// The feature's entry point: its flow, its query, the port it needs.
public enum BreathingFeature: FlowFeature {
  public static let flowID = "breathing"

  public static var requiredServices: [any ServiceKey.Type] { [BreathingLogKey.self] }

  public static var stringTables: Bundle? { .module }

  public static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try registry.register(
      FlowDefinition(
        id: flowID, summary: "A breathing session", variants: ["standard"],
        screens: [ScreenDeclaration(BreathingCoordinator.screenID, elements: ["one", "three"])],
        make: { context in BreathingCoordinator(context: context) }))
    try registry.register(
      QueryDefinition("breathing.count", type: .number, summary: "breathing sessions the user logged") {
        env in
        guard let userID = env.userID else { return .number(0) }
        return .number(Double(try await env.services[BreathingLogKey.self].count(userID: userID)))
      })
  }
}

/// Where the breathing reminder is delivered and opened: the app adapts its notification
/// scheduler to it (`BreathingStorage` provides it over SQLite).
public protocol BreathingReminders: Sendable {
  /// Records a reminder delivered at `date` (the scheduler firing).
  func deliver(at date: Date) async throws
  /// When each delivered, unopened reminder was delivered, oldest first.
  func unopened() async throws -> [Date]
  /// Marks the latest delivered, unopened reminder opened.
  func markLatestOpened() async throws
}

public enum BreathingRemindersKey: ServiceKey {
  public typealias Value = any BreathingReminders
}

/// The breathing reminder: `expect: {notification: breathing.reminder}` sees it, and
/// `open: breathing.reminder` starts a session.
public enum BreathingReminderFeature: FlowFeature {
  public static let notificationID = "breathing.reminder"

  public static var requiredServices: [any ServiceKey.Type] { [BreathingRemindersKey.self] }

  public static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try registry.register(
      NotificationDefinition(
        id: notificationID, flow: BreathingFeature.flowID,
        unopened: { host in try await host.environment.services[BreathingRemindersKey.self].unopened() },
        open: { host in
          let reminders = host.environment.services[BreathingRemindersKey.self]
          guard try await !reminders.unopened().isEmpty else { throw NoBreathingReminder() }
          try await reminders.markLatestOpened()
          try host.present(FlowRequest(flow: BreathingFeature.flowID, trigger: .notification))
        }))
  }
}

/// Opening a reminder when none is delivered and unopened.
public struct NoBreathingReminder: Error, Equatable, CustomStringConvertible {
  public init() {}
  public var description: String { "no breathing.reminder notification is delivered and unopened" }
}
