import CheckInFlow
import FlowKit
import Foundation
import MoodTracking
import Testing

/// A local date-time `YYYY-MM-DDTHH:MM` read in `zone`.
func moment(_ text: String, _ zone: String = "UTC") -> Date {
  var calendar = Calendar(identifier: .gregorian)
  calendar.timeZone = TimeZone(identifier: zone)!
  let parts = text.split(whereSeparator: { "-T:".contains($0) }).map { Int($0)! }
  return calendar.date(
    from: DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4]))!
}

struct HarnessError: Error, CustomStringConvertible {
  var description: String
}

/// The check-in's world in memory: a manual clock, the in-memory mood adapters and a
/// key-value store, the way the app's composition root wires the real ones.
@MainActor
final class World {
  let clock: ManualClock
  let store: InMemoryKeyValueStore
  let repository = InMemoryMoodRepository()
  let health = InMemoryStateOfMindStore()
  let analytics = InMemoryAnalyticsSink()
  var userID: String?

  init(
    now: String = "2026-03-02T08:00", zone: String = "UTC", userID: String? = "alice", onboarded: Bool = true
  ) {
    clock = ManualClock(now: moment(now, zone), timeZone: TimeZone(identifier: zone)!)
    store = InMemoryKeyValueStore(onboarded ? [CheckInKeys.onboardingCompleted: "true"] : [:])
    self.userID = userID
  }

  var environment: HostEnvironment {
    var services = Services()
    services[MoodRepositoryKey.self] = repository
    services[StateOfMindStoreKey.self] = health
    return HostEnvironment(
      userID: userID, clock: clock, keyValueStore: store, analytics: analytics, services: services)
  }

  var petSeen: Bool { store.string(forKey: CheckInKeys.petSeen) == "true" }

  func entries() -> [MoodEntry] {
    repository.entries(userID: userID ?? "", in: DateInterval(start: .distantPast, end: .distantFuture))
  }

  /// A registry with the check-in and a stand-in journal (the follow-up flow).
  func registry(_ extra: (inout FlowRegistry) throws -> Void = { _ in }) throws -> FlowRegistry {
    var registry = FlowRegistry()
    try registry.register(CheckInFeature.self)
    try registry.register(StubJournalFeature.self)
    try extra(&registry)
    return registry
  }

  func host(_ extra: (inout FlowRegistry) throws -> Void = { _ in }) throws -> FlowHost {
    try FlowHost(registry: registry(extra), environment: environment, workMode: .deferred)
  }
}

/// Drives one coordinator the way the host does, holding it only weakly so tests can
/// prove it is released after its ending.
@MainActor
final class Harness {
  let world: World
  let work = WorkTracker(mode: .deferred)
  private(set) var endings: [FlowResult<MoodCheckInData>] = []
  weak var flow: MoodCheckInCoordinator?

  init(_ world: World = World(), variant: CheckInVariant = .full, trigger: FlowTrigger = .manual) {
    self.world = world
    let environment = world.environment
    let coordinator = MoodCheckInCoordinator(
      variant: variant, trigger: trigger, saveMood: environment.saveMood, store: world.store,
      clock: world.clock, analytics: world.analytics, userID: world.userID, work: work)
    coordinator.start { [weak self] result in self?.endings.append(result) }
    flow = coordinator
  }

  var running: MoodCheckInCoordinator {
    get throws {
      guard let flow, flow.isRunning else { throw HarnessError(description: "the flow is not running") }
      return flow
    }
  }

  var screen: Screen { flow?.screen ?? Screen(id: "ended", title: "") }

  /// Sends an action through the screen's checks, then settles the work it started.
  func send(_ action: UserAction) async throws {
    try running.send(action)
    await work.settle()
  }

  /// Answers with the defaults until `screenID` shows: begins on the Pet, picks an
  /// emotion and an evaluation where they are required.
  func walk(to screenID: String) async throws {
    var moves = 0
    while screen.id != screenID {
      moves += 1
      guard moves < 20 else { throw HarnessError(description: "never reached \(screenID)") }
      switch screen.id {
      case "checkin.pet": try await send(.tap("begin"))
      case "checkin.naming":
        if screen.element("emotion")?.value == ElementValue.none {
          try await send(.select("emotion", ["calm"]))
        }
        try await send(.tap("continue"))
      case "checkin.evaluating":
        if screen.element("evaluation")?.value == ElementValue.none {
          try await send(.select("evaluation", ["accept"]))
        }
        try await send(.tap("continue"))
      default: try await send(.tap("continue"))
      }
    }
  }

  var data: MoodCheckInData? {
    guard endings.count == 1, case .completed(let data) = endings[0] else { return nil }
    return data
  }

  var wasCancelled: Bool {
    guard endings.count == 1, case .cancelled(.user) = endings[0] else { return false }
    return true
  }
}

/// Stands in for the journal: one screen that closes, so follow-ups have somewhere to go.
final class StubJournal: FlowCoordinator<String> {
  override var screen: Screen {
    Screen(id: "journal.catalog", title: "Journal", elements: [.button("close", "Close")], canClose: true)
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    if action == .close || action == .tap("close") { cancel() }
  }
}

enum StubJournalFeature: FlowFeature {
  static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try registry.register(
      FlowDefinition(
        id: "journal", summary: "stand-in", variants: ["standard"],
        screens: [ScreenDeclaration("journal.catalog", elements: ["close"])],
        make: { _ in StubJournal() }))
  }
}
