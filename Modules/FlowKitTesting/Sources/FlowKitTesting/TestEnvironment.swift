import FlowKit
import Foundation

/// A feature's world in memory: a clock that moves only when told, an in-memory
/// key-value store, recorded analytics, no animation pauses, and the ports a test
/// provides (a feature's in-memory adapters, from its testing library, such as
/// `MoodTrackingTesting`'s `InMemoryMoodRepository`).
///
///     let world = TestEnvironment(userID: "alice", settings: ["onboarding.completed": "true"])
///       .providing(MoodRepositoryKey.self, InMemoryMoodRepository())
@MainActor
public final class TestEnvironment {
  /// 2026-01-05T09:00 UTC, the runner's default start.
  public nonisolated static let defaultStart = Date(timeIntervalSince1970: 1_767_603_600)

  public let clock: ManualClock
  public let store: InMemoryKeyValueStore
  public let analytics: InMemoryAnalyticsSink
  public var presentationClock: any PresentationClock
  /// The signed-in user; nil is signed out.
  public var userID: String?
  public var services: Services

  public init(
    now: Date = TestEnvironment.defaultStart, timeZone: TimeZone = TimeZone(identifier: "UTC")!,
    userID: String? = "user-1", settings: [String: String] = [:], services: Services = Services(),
    presentationClock: any PresentationClock = ImmediatePresentationClock()
  ) {
    clock = ManualClock(now: now, timeZone: timeZone)
    store = InMemoryKeyValueStore(settings)
    analytics = InMemoryAnalyticsSink()
    self.userID = userID
    self.services = services
    self.presentationClock = presentationClock
  }

  /// Starts at a local date-time `YYYY-MM-DDTHH:MM` in `timeZone` (an IANA name).
  public convenience init(
    at local: String, timeZone: String = "UTC", userID: String? = "user-1", settings: [String: String] = [:]
  ) {
    let zone = TimeZone(identifier: timeZone)
    precondition(zone != nil, "unknown time zone '\(timeZone)'")
    self.init(
      now: Self.date(local, in: zone!), timeZone: zone!, userID: userID, settings: settings)
  }

  /// Provides a port; returns self so calls chain.
  @discardableResult
  public func providing<Key: ServiceKey>(_ key: Key.Type, _ value: Key.Value) -> TestEnvironment {
    services[key] = value
    return self
  }

  /// What a host and its flows see.
  public var hostEnvironment: HostEnvironment {
    HostEnvironment(
      userID: userID, clock: clock, keyValueStore: store, analytics: analytics,
      presentationClock: presentationClock, services: services)
  }

  /// What a host would hand a flow's factory, for driving a coordinator without a host
  /// (`FlowDriver { work in MyCoordinator(context: world.context(for: "my", work: work)) }`).
  public func context(
    for flow: String, variant: String = "standard", trigger: FlowTrigger = .manual, work: WorkTracker
  ) -> FlowContext {
    FlowContext(
      request: FlowRequest(flow: flow, variant: variant, trigger: trigger), variant: variant,
      environment: hostEnvironment, work: work)
  }

  /// The names of the recorded analytics events, in order.
  public var eventNames: [String] { analytics.events.map(\.event) }

  /// A local date-time `YYYY-MM-DDTHH:MM[:SS]` read in `timeZone`; a malformed text
  /// stops the test, naming it.
  public nonisolated static func date(_ local: String, in timeZone: TimeZone = TimeZone(identifier: "UTC")!)
    -> Date
  {
    let parts = local.split(whereSeparator: { "-T:".contains($0) }).compactMap { Int($0) }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    guard parts.count == 5 || parts.count == 6,
      let date = calendar.date(
        from: DateComponents(
          year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4],
          second: parts.count == 6 ? parts[5] : 0))
    else { preconditionFailure("'\(local)' is not a local date-time YYYY-MM-DDTHH:MM[:SS]") }
    return date
  }
}
