import CheckInFlow
import FlowKit
import FlowKitTesting
import Foundation
import MoodTracking
import MoodTrackingTesting
import Testing

/// An error a fake throws (a full disk), or a walk that went astray.
struct HarnessError: Error, CustomStringConvertible {
  var description: String
}

/// The check-in's world in memory: FlowKitTesting's environment (a manual clock, a
/// key-value store, recorded analytics) with the in-memory mood adapters as its ports,
/// the way the app's composition root wires the real ones.
@MainActor
final class World {
  let ports: TestEnvironment
  let repository = InMemoryMoodRepository()
  let health = InMemoryStateOfMindStore()

  init(
    now: String = "2026-03-02T08:00", zone: String = "UTC", userID: String? = "alice", onboarded: Bool = true
  ) {
    ports = TestEnvironment(
      at: now, timeZone: zone, userID: userID,
      settings: onboarded ? [CheckInKeys.onboardingCompleted: "true"] : [:])
    ports.providing(MoodRepositoryKey.self, repository).providing(StateOfMindStoreKey.self, health)
  }

  var clock: ManualClock { ports.clock }
  var store: InMemoryKeyValueStore { ports.store }
  var analytics: InMemoryAnalyticsSink { ports.analytics }
  var userID: String? { ports.userID }
  var environment: HostEnvironment { ports.hostEnvironment }

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

  /// A test host over this world: it settles after each step, hands over the host's
  /// problems as errors and checks that every ended coordinator was released.
  func host(_ extra: (inout FlowRegistry) throws -> Void = { _ in }) throws -> TestHost {
    try TestHost(registry: registry(extra), environment: ports)
  }
}

/// Drives one check-in coordinator the way the host does (FlowKitTesting's driver),
/// holding it only weakly so tests can prove it is released after its ending.
@MainActor
final class Harness: FlowDriver<MoodCheckInData, MoodCheckInCoordinator> {
  let world: World

  init(_ world: World = World(), variant: CheckInVariant = .full, trigger: FlowTrigger = .manual) {
    self.world = world
    let environment = world.environment
    super.init { work in
      MoodCheckInCoordinator(
        variant: variant, trigger: trigger, saveMood: environment.saveMood, store: world.store,
        clock: world.clock, analytics: world.analytics, userID: world.userID, work: work)
    }
  }

  /// Answers with the defaults until `screenID` shows: begins on the Pet, picks an
  /// emotion and an evaluation where they are required.
  func walk(to screenID: String) async throws {
    var moves = 0
    while screen.id != screenID {
      moves += 1
      guard moves < 20 else { throw HarnessError(description: "never reached \(screenID)") }
      switch screen.id {
      case "checkin.pet": try await run("tap begin")
      case "checkin.naming":
        if screen.element("emotion")?.value == ElementValue.none { try await run("select emotion calm") }
        try await run("tap continue")
      case "checkin.evaluating":
        if screen.element("evaluation")?.value == ElementValue.none {
          try await run("select evaluation accept")
        }
        try await run("tap continue")
      default: try await run("tap continue")
      }
    }
  }

  /// The saved check-in of the one completed ending.
  var data: MoodCheckInData? { output }
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
