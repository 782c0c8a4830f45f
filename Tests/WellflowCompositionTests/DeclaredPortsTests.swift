import FlowKit
import FlowKitTesting
import Foundation
import Storage
import Sync
import Testing
import WellflowComposition

@MainActor
@Suite("Declared ports")
struct DeclaredPortsTests {
  /// Every port the app wires, from the features' own registrations (each storing
  /// feature's `sqliteAdapters` over a scratch database, the outbox and the sync service),
  /// as `AppContainer` does: a feature added to the list brings its adapters, no test edit.
  private func appPorts(in world: TestEnvironment) throws -> Services {
    let database = try WellflowDatabase.scratch(schema: WellflowFeatures.schema)
    let outbox = SQLiteOutbox(database: database)
    var services = Services()
    services[OutboxKey.self] = outbox
    let context = AdapterContext(
      userID: "alice", clock: world.clock, keyValueStore: world.store, outbox: outbox)
    for storage in WellflowFeatures.storage { try storage.sqliteAdapters(&services, database, context) }
    services[SyncServiceKey.self] = SyncService(
      connector: NoBackend(), outbox: outbox, resources: try WellflowFeatures.syncResources,
      services: Services(), clock: world.clock, connectivity: NetworkSwitch())
    return services
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
    let ports = try appPorts(in: world)
    for requirement in registry.requirements {
      #expect(ports.satisfies(requirement), "the app's adapters serve no \(requirement)")
    }
    // Only what the feature declared: reading any other port stops the test.
    world.services = ports.restricted(to: registry.requirements)
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
