// A worked example of the plugin guide (FlowKit.docc/PluginGuide.md): the page shows this code, and
// GuideDocumentationTests checks that it still does, word for word.

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
@Suite("Guide: the gratitude feature syncs")
struct GratitudeSyncTests {
  struct Backend: BackendConnector {
    let client: ProgressAPIClient
    func api(for userID: String) async throws -> any ProgressAPI { client }
  }

  @Test func savedListsReachTheBackendAndAreCountedThere() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gratitude-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let features = WellflowFeatures.all + [GratitudeFeature.self, GratitudeStorage.self]
    let database = try WellflowDatabase.open(directory: directory, schema: SQLiteSchema(features.storage))
    // A real server in this process, keeping its rows in memory.
    let server = try ProgressServer(
      configuration: ProgressServer.Configuration(apiKey: "guide-key", jwtSecret: "guide-secret"))
    let url = try await server.start()
    let client = ProgressAPIClient(
      credentials: BackendCredentials(baseURL: url, apiKey: "guide-key", token: server.token(for: "user-1")),
      timeout: 600)

    var world = TestEnvironment().providing(
      GratitudeJournalKey.self, SQLiteGratitudeJournal(writer: database.writer))
    let sync = SyncService(
      connector: Backend(client: client), outbox: SQLiteOutbox(writer: database.writer),
      resources: try GratitudeSync.syncResources, services: world.services, clock: world.clock,
      connectivity: NetworkSwitch())
    world = world.providing(SyncServiceKey.self, sync)
    let app = try TestHost([GratitudeFeature.self, GratitudeSync.self], environment: world)
    try await app.present("gratitude")
    try await app.run("enter entry Sun", "tap add", "enter entry Tea", "tap add", "tap save")

    let result = try await sync.sync(userID: "user-1")
    #expect(result.push.synced == 1)
    #expect(try await app.query("backend.gratitude.count") == .number(1))
    let page = try await client.listResource("gratitude", ListQuery())
    #expect(page.entries.map { $0.body["items"] } == [["Sun", "Tea"]])
    // Another user's rows are not this user's.
    let other = ProgressAPIClient(
      credentials: BackendCredentials(baseURL: url, apiKey: "guide-key", token: server.token(for: "user-2")))
    #expect(try await other.listResource("gratitude", ListQuery()).total == 0)
    await server.stop()
  }
}
