import FlowKit
import FlowKitTesting
import Foundation
import Journal
import MoodTracking
import Reminders
import Sync
import Testing
import WellflowComposition

@MainActor
@Suite("Declared ports")
struct DeclaredPortsTests {
  /// In-memory adapters for every port a shipped feature declares.
  private func provide(_ requirement: ServiceRequirement, in world: TestEnvironment) throws {
    let moods = InMemoryMoodRepository()
    switch requirement.port {
    case "MoodRepositoryKey": world.providing(MoodRepositoryKey.self, moods)
    case "StateOfMindStoreKey": world.providing(StateOfMindStoreKey.self, InMemoryStateOfMindStore())
    case "OutboxKey": world.providing(OutboxKey.self, moods.outbox)
    case "JournalRepositoryKey": world.providing(JournalRepositoryKey.self, InMemoryJournalRepository())
    case "SyncServiceKey":
      world.providing(
        SyncServiceKey.self,
        SyncService(
          connector: NoBackend(), outbox: moods.outbox, resources: try WellflowFeatures.syncResources,
          services: Services(), clock: world.clock, connectivity: NetworkSwitch()))
    case "NotificationSchedulerKey":
      world.providing(
        NotificationSchedulerKey.self,
        LocalNotificationScheduler(
          store: world.store, deliveries: InMemoryDeliveredNotificationStore(), clock: world.clock))
    default: Issue.record("no test adapter for \(requirement)")
    }
  }

  /// Each shipped feature alone, given only the ports it declares: every variant of its
  /// flows starts and every query answers (a port read but not declared would stop the
  /// test loudly, so a declaration cannot fall behind the code).
  @Test(arguments: WellflowFeatures.all.map { String(describing: $0) })
  func aFeatureNeedsNoMoreThanItDeclares(name: String) async throws {
    let feature = try #require(WellflowFeatures.all.first { String(describing: $0) == name })
    var registry = FlowRegistry()
    try registry.register(feature)
    let world = TestEnvironment(userID: "alice")
    for requirement in registry.requirements { try provide(requirement, in: world) }
    let app = try TestHost(registry: registry, environment: world)
    for flow in registry.flows {
      for variant in flow.variants {
        try await app.present(flow.id, variant: variant)
        app.terminate()
      }
    }
    for query in registry.queries where !query.id.hasPrefix("backend.") { _ = try await app.query(query.id) }
    try await app.launch()
    app.terminate()
    try app.expectReleased()
  }
}
