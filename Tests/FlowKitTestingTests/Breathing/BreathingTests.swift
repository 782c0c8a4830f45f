import FlowKit
import FlowKitTesting
import Foundation
import ProgressBackend
import Storage
import Sync
import SyncHTTPClient
import Testing
import WellflowComposition

@MainActor
@Suite("A second feature: breathing sessions, stored, translated and synced")
struct BreathingTests {
  struct Backend: BackendConnector {
    let client: ProgressAPIClient
    func api(for userID: String) async throws -> any ProgressAPI { client }
  }

  @Test func aSessionIsLoggedCountedAndSyncedToTheBackend() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("breathing-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let features = WellflowFeatures.all + [BreathingFeature.self, BreathingStorage.self]
    let database = try WellflowDatabase.open(directory: directory, schema: SQLiteSchema(features.storage))
    let server = try ProgressServer(
      configuration: ProgressServer.Configuration(apiKey: "breathing-key", jwtSecret: "breathing-secret"))
    let url = try await server.start()
    let client = ProgressAPIClient(
      credentials: BackendCredentials(
        baseURL: url, apiKey: "breathing-key", token: server.token(for: "user-1")),
      timeout: 600)

    var world = TestEnvironment().providing(BreathingLogKey.self, SQLiteBreathingLog(writer: database.writer))
    let sync = SyncService(
      connector: Backend(client: client), outbox: SQLiteOutbox(writer: database.writer),
      resources: try BreathingSync.syncResources, services: world.services, clock: world.clock,
      connectivity: NetworkSwitch())
    world = world.providing(SyncServiceKey.self, sync)
    let app = try TestHost([BreathingFeature.self, BreathingSync.self], environment: world)
    try await app.present("breathing")
    try await app.run("tap three")
    #expect(app.isIdle)
    #expect(try await app.query("breathing.count") == .number(1))

    #expect(try await sync.sync(userID: "user-1").push.synced == 1)
    #expect(try await app.query("backend.breathing.count") == .number(1))
    let page = try await client.listResource("breathing", ListQuery())
    #expect(page.entries.map { $0.body["minutes"] } == [3])
    await server.stop()
  }

  @Test func itsScreenTextIsTranslated() throws {
    let features = WellflowFeatures.all + [BreathingFeature.self, BreathingStorage.self]
    #expect(WellflowLocalization.missingTables(features: features).isEmpty)
    let german = try WellflowLocalization.loadTable("de", features: features)
    #expect(german.entries["Breathe"] == "Atme")
    #expect(german.entries["3 minutes"] == "3 Minuten")
  }
}
