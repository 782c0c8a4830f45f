import CheckInFlow
import FlowKit
import FlowKitTesting
import Foundation
import Journal
import MoodTracking
import MoodTrackingTesting
import Onboarding
import Storage
import Sync
import Testing
import WellflowComposition

/// A backend the tests never reach.
struct NoBackend: BackendConnector {
  struct Unreachable: Error {}
  func api(for userID: String) async throws -> any ProgressAPI { throw Unreachable() }
}

/// A port no shipped adapter serves, for a feature the app does not wire.
protocol Pedometer: Sendable {}
struct FakePedometer: Pedometer {}
enum PedometerKey: ServiceKey {
  typealias Value = any Pedometer
}

enum StepsFeature: FlowFeature {
  static var requiredServices: [any ServiceKey.Type] { [PedometerKey.self] }
  static func register(in registry: inout FlowRegistry) throws(RegistryError) {}
}

@MainActor
func container(
  _ registry: FlowRegistry, storage: AppContainer.StorageMode = .sqliteScratch, directory: URL? = nil,
  customize: (@MainActor (inout Services) -> Void)? = nil
) -> AppContainer {
  AppContainer(
    registry: registry, storage: storage,
    dataDirectory: directory ?? URL(fileURLWithPath: "/dev/null"), userID: "alice",
    clock: ManualClock(now: TestEnvironment.defaultStart, timeZone: TimeZone(identifier: "UTC")!),
    backend: NoBackend(), workMode: .deferred, presentationClock: ImmediatePresentationClock(),
    customizeServices: customize)
}

@MainActor
@Suite("AppContainer")
struct AppContainerTests {
  /// The app's registry is its features' own registrations, in the list's order: what
  /// each feature's own tests check, with nothing lost or added by the composition. The
  /// list is read from `WellflowFeatures.all`, so adding a feature changes no test here.
  @Test func theAppShipsItsFeaturesWithTheirRules() throws {
    let registry = try WellflowFeatures.makeRegistry()
    var flows: [String] = []
    var rules: [String] = []
    var queries: [String] = []
    var ports: Set<String> = []
    var partial = FlowRegistry()
    for feature in WellflowFeatures.all {
      // Registered after the ones before it: a variant of another feature's flow needs that flow.
      let before = partial
      try partial.register(feature)
      flows += partial.flows.dropFirst(before.flows.count).map(\.id)
      rules += partial.launchRules.dropFirst(before.launchRules.count).map(\.id)
      queries += partial.queries.dropFirst(before.queries.count).map(\.id)
      ports.formUnion(feature.requiredServices.map { ServiceRequirement($0, feature: "").port })
    }
    #expect(!flows.isEmpty && registry.flows.map(\.id) == flows)
    #expect(registry.launchRules.map(\.id) == rules)
    #expect(registry.queries.map(\.id) == queries)
    #expect(Set(registry.requirements.map(\.port)) == ports)
  }

  @Test(arguments: [AppContainer.StorageMode.sqliteScratch, .sqlite])
  func everyStorageModeProvidesEveryDeclaredPort(storage: AppContainer.StorageMode) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "wellflow-composition-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let app = container(try WellflowFeatures.makeRegistry(), storage: storage, directory: directory)
    let host = try app.open()
    #expect(app.sync != nil)
    for query in host.registry.queries where !query.id.hasPrefix("backend.") {
      _ = try await host.query(query.id)
    }
    await #expect(throws: HostError.self) { try await host.query("backend.progress.count") }
    app.close()
  }

  @Test func aFeatureWhosePortIsNotWiredStopsTheCompositionNamingIt() throws {
    let registry = try WellflowFeatures.makeRegistry(WellflowFeatures.all + [StepsFeature.self])
    let app = container(registry)
    #expect(throws: CompositionError.self) { try app.open() }
    do {
      try app.open()
    } catch let error as CompositionError {
      #expect(error.missingServices.map(\.feature) == ["StepsFeature"])
      #expect(error.missingServices.map(\.port) == ["PedometerKey"])
      #expect(error.description.contains("StepsFeature needs PedometerKey"))
    }
    #expect(app.host == nil)

    let wired = container(registry) { services in services[PedometerKey.self] = FakePedometer() }
    try wired.open()
    #expect(wired.host != nil)
  }

  @Test func anAdapterCanBeSwappedWhereTheAppIsComposed() async throws {
    let health = InMemoryStateOfMindStore()
    let app = container(try WellflowFeatures.makeRegistry()) { services in
      services[StateOfMindStoreKey.self] = health
    }
    let host = try app.open()
    try await finishOnboarding(host)
    #expect(host.top?.flow == "checkin")
    try await send(host, "tap begin", "tap continue", "select emotion calm", "tap continue")
    while host.top?.flow == "checkin", host.screenID != "checkin.acting" {
      if host.screen?.element("evaluation")?.value == ElementValue.none, host.screenID == "checkin.evaluating"
      {
        try await send(host, "select evaluation accept")
      }
      try await send(host, "tap continue")
    }
    try await send(host, "tap complete")
    #expect(health.count(userID: "alice") == 1, "the mirrored sample went to the swapped store")
  }

  @Test func theAppsClockIsTheDevicesByDefault() throws {
    let app = AppContainer(
      registry: try WellflowFeatures.makeRegistry(), dataDirectory: URL(fileURLWithPath: "/dev/null"),
      userID: "alice", backend: NoBackend())
    #expect(app.clock is SystemClock)
    #expect(app.presentationClock is SleepingPresentationClock)
    #expect(app.storage == .sqlite)
  }

  @Test func aRelaunchKeepsTheDataAndClearingForgetsIt() async throws {
    let app = container(try WellflowFeatures.makeRegistry(), storage: .sqliteScratch)
    try await finishOnboarding(try app.open())
    app.close()
    let relaunched = try app.open()
    await relaunched.launch()
    #expect(relaunched.top?.flow == "checkin", "onboarding is remembered")
    app.close()
    try app.clearLocalData()
    let fresh = try app.open()
    await fresh.launch()
    #expect(fresh.top?.flow == "onboarding")
    app.close()
  }
}

/// Launches and completes the onboarding.
@MainActor
func finishOnboarding(_ host: FlowHost) async throws {
  await host.launch()
  #expect(host.top?.flow == "onboarding")
  try await send(
    host, "tap continue", "tap continue", "select skill beginner", "tap continue", "tap continue")
}

/// Sends steps and settles after each, as a runner does.
@MainActor
func send(_ host: FlowHost, _ steps: String...) async throws {
  for step in steps {
    try host.send(try UserAction(step: step))
    await host.settle()
    #expect(host.takeProblems().isEmpty)
  }
}
