import FlowKit
import Foundation
import MoodTrackingDomain

/// A reminder's time of day, written `HH:MM` on a 24-hour clock.
public struct ReminderTime: Sendable, Equatable, CustomStringConvertible {
  public let hour: Int
  public let minute: Int

  public static let standard = ReminderTime(hour: 20, minute: 0)

  public init(hour: Int, minute: Int) {
    self.hour = hour
    self.minute = minute
  }

  /// Reads `HH:MM` (two digits each, hour 00–23, minute 00–59); nil for anything else.
  public init?(_ text: String) {
    let bytes = Array(text.trimmingCharacters(in: .whitespaces).utf8)
    guard bytes.count == 5, bytes[2] == UInt8(ascii: ":") else { return nil }
    let digits = [bytes[0], bytes[1], bytes[3], bytes[4]].map { Int($0) - Int(UInt8(ascii: "0")) }
    guard digits.allSatisfy({ (0...9).contains($0) }) else { return nil }
    let hour = digits[0] * 10 + digits[1]
    let minute = digits[2] * 10 + digits[3]
    guard hour < 24, minute < 60 else { return nil }
    self.init(hour: hour, minute: minute)
  }

  public var description: String {
    (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
  }
}

/// What the person chose on `reminders.settings`: the flow's output.
public struct ReminderSettings: Sendable, Equatable {
  public var isEnabled: Bool
  public var time: ReminderTime

  public init(isEnabled: Bool, time: ReminderTime) {
    self.isEnabled = isEnabled
    self.time = time
  }

  static let enabledKey = "reminders.enabled"
  static let timeKey = "reminders.time"

  /// The saved settings; off at 20:00 until the person saves others.
  public static func load(from store: any KeyValueStore) throws -> ReminderSettings {
    let time = try store.string(forKey: timeKey).flatMap(ReminderTime.init) ?? .standard
    return ReminderSettings(isEnabled: try store.bool(forKey: enabledKey), time: time)
  }

  func save(to store: any KeyValueStore) throws {
    try store.set(isEnabled, forKey: Self.enabledKey)
    try store.set(time.description, forKey: Self.timeKey)
  }
}

public enum ReminderError: Error, Equatable, CustomStringConvertible {
  case noneDelivered(String)
  case unknownNotification(String, known: [String])

  public var description: String {
    switch self {
    case .noneDelivered(let id): "no \(id) notification is delivered and unopened"
    case .unknownNotification(let id, let known):
      "unknown notification '\(id)' (notifications: \(known.joined(separator: ", ")))"
    }
  }
}

/// The daily check-in reminder: flow `reminders`, the `checkin.reminder` notification
/// (skipped on a day whose daily mood is in), opening it, and the queries.
public enum RemindersFeature: FlowFeature {
  /// Its screens' text in English and German, shipped with the module.
  public static var stringTables: Bundle? { .module }

  public static let flowID = "reminders"
  public static let screenID = "reminders.settings"
  public static let checkInReminder = "checkin.reminder"
  /// The flow each notification opens.
  public static let notificationFlows = [checkInReminder: "checkin"]

  public static var requiredServices: [any ServiceKey.Type] {
    [NotificationSchedulerKey.self, MoodRepositoryKey.self]
  }

  public static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try registry.register(
      FlowDefinition(
        id: flowID, summary: "Daily check-in reminder settings", variants: ["standard"],
        screens: [ScreenDeclaration(screenID, elements: ["enabled", "time", "save"])],
        make: { context in RemindersCoordinator(context: context) }))
    try registry.register(
      QueryDefinition("reminders.enabled", type: .bool, summary: "whether the daily reminder is on") { env in
        .bool(try ReminderSettings.load(from: env.keyValueStore).isEnabled)
      })
    try registry.register(
      QueryDefinition("reminders.time", type: .text, summary: "the daily reminder's time, HH:MM") { env in
        .text(try ReminderSettings.load(from: env.keyValueStore).time.description)
      })
    try registry.register(
      QueryDefinition(
        "notifications.delivered", type: .number,
        summary: "notifications delivered since the app's data began"
      ) { env in
        .number(Double(try await env.services[NotificationSchedulerKey.self].deliveryCounts().delivered))
      })
    try registry.register(
      QueryDefinition("notifications.pending", type: .number, summary: "notifications delivered, not opened")
      {
        env in
        .number(Double(try await env.services[NotificationSchedulerKey.self].deliveryCounts().unopened))
      })
    registry.register(HostActivation(id: "reminders.delivery") { host in startDelivering(on: host) })
    for (id, flow) in notificationFlows.sorted(by: { $0.key < $1.key }) {
      try registry.register(
        NotificationDefinition(
          id: id, flow: flow,
          unopened: { host in
            try await host.environment.services[NotificationSchedulerKey.self].unopened().filter {
              $0.id == id
            }
            .map(\.date)
          }, open: { host in try await open(id, on: host) }))
    }
  }

  /// Arms delivery on a new host: a check-in reminder is skipped on a day whose daily
  /// mood is already in.
  @MainActor static func startDelivering(on host: FlowHost) {
    let environment = host.environment
    // The scheduler keeps these closures, and the environment keeps the scheduler: they
    // capture what they read, never the environment, or the app's storage would outlive it.
    let (userID, clock, moods) = (
      environment.userID, environment.clock, environment.services[MoodRepositoryKey.self]
    )
    environment.services[NotificationSchedulerKey.self].startDelivering(
      on: host,
      shouldDeliver: { request, date in
        guard request.id == checkInReminder else { return true }
        guard let userID else { return false }
        let day = MoodDay(date, in: clock.calendar)
        return (try? await moods.hasDailyMood(userID: userID, day: day)) != true
      },
      didDeliver: { [weak host] notification in
        host?.record(
          "notification_delivered", flow: nil, variant: nil, ["notification": .string(notification.id)])
      })
  }

  /// The notification with `id` that is delivered and unopened, latest first; nil with none.
  @MainActor public static func latestUnopened(_ id: String, on host: FlowHost) async throws
    -> DeliveredNotification?
  {
    try await host.environment.services[NotificationSchedulerKey.self].unopened().last { $0.id == id }
  }

  /// The person taps the latest delivered, unopened notification `id`: it is marked
  /// opened (`notification_opened`) and its flow is presented on top with trigger
  /// `notification`.
  @MainActor public static func open(_ id: String, on host: FlowHost) async throws {
    guard let flow = notificationFlows[id] else {
      throw ReminderError.unknownNotification(id, known: notificationFlows.keys.sorted())
    }
    guard let notification = try await latestUnopened(id, on: host) else {
      throw ReminderError.noneDelivered(id)
    }
    try await host.environment.services[NotificationSchedulerKey.self].markOpened(notification)
    host.record("notification_opened", flow: nil, variant: nil, ["notification": .string(id)])
    try host.present(FlowRequest(flow: flow, trigger: .notification))
  }
}

/// `reminders.settings`: a toggle and a time; `save` keeps them and (re)schedules the
/// daily notification, `close` changes nothing.
final class RemindersCoordinator: FlowCoordinator<ReminderSettings> {
  private let environment: HostEnvironment
  private let work: WorkTracker
  private let variant: String
  private let trigger: FlowTrigger
  private var isEnabled: Bool
  private var timeText: String
  private var isSaving = false
  private var failure: String?

  init(context: FlowContext) {
    environment = context.environment
    work = context.work
    variant = context.variant
    trigger = context.trigger
    let saved =
      (try? ReminderSettings.load(from: context.environment.keyValueStore))
      ?? ReminderSettings(isEnabled: false, time: .standard)
    isEnabled = saved.isEnabled
    timeText = saved.time.description
  }

  private var time: ReminderTime? { ReminderTime(timeText) }

  override var screen: Screen {
    let message: String =
      if time == nil {
        "Write the time as HH:MM on a 24-hour clock, e.g. 20:00."
      } else if let failure {
        failure
      } else if isEnabled {
        "A reminder to check in arrives every day at the time you choose."
      } else {
        "Reminders are off."
      }
    return Screen(
      id: RemindersFeature.screenID, title: "Daily reminder", message: message,
      elements: [
        .toggle("enabled", "Remind me to check in", isOn: isEnabled),
        .text("time", "Time (HH:MM)", limit: 5, text: timeText),
        .button("save", "Save", enabled: time != nil && !isSaving),
      ],
      canClose: !isSaving)
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .toggle("enabled", let on): isEnabled = on
    case .enter("time", let text): timeText = text
    case .tap("save"): save()
    case .close: cancel()
    default: break
    }
  }

  private func save() {
    guard let time else { return }
    let settings = ReminderSettings(isEnabled: isEnabled, time: time)
    isSaving = true
    failure = nil
    let environment = environment
    let variant = variant
    let trigger = trigger
    work.run { [weak self] in
      do {
        let scheduler = environment.services[NotificationSchedulerKey.self]
        if settings.isEnabled {
          try await scheduler.scheduleDaily(
            DailyNotificationRequest(
              id: RemindersFeature.checkInReminder, hour: time.hour, minute: time.minute,
              title: "Time to check in", body: "How are you feeling today?"))
        } else {
          try await scheduler.cancel(id: RemindersFeature.checkInReminder)
        }
        try settings.save(to: environment.keyValueStore)
        if environment.analytics.isRecording {
          environment.analytics.record(
            AnalyticsEvent(
              ts: environment.clock.now, user: environment.userID ?? "anonymous", event: "reminder_scheduled",
              flow: RemindersFeature.flowID, variant: variant,
              fields: ["enabled": .bool(settings.isEnabled), "trigger": .string(trigger.rawValue)]))
        }
        self?.complete(settings)
      } catch {
        self?.isSaving = false
        self?.failure = "Your reminder could not be saved. Try again."
      }
    }
  }
}
