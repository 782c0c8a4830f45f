import FlowKit
import FlowKitTesting
import Foundation
import ProgressBackend
import Storage
import Sync
import SyncHTTPClient
import Testing
import WellflowComposition
import WellflowCore

/// The guide's claim, kept: adding gratitude (FlowKit.docc/PluginGuide.md) and breathing to
/// the app is adding them to its one features list. Here that list is
/// `WellflowFeatures.all` with them added, and nothing else is given: the app opens on a
/// data folder and on a scratch database through the features' own storage registrations, their flows and
/// reminders run, a relaunch keeps their data, sync sends their rows to a real server and
/// `wellflow export` writes their columns.
@MainActor
@Suite("The guide's features in the app")
struct GuideFeaturesInTheAppTests {
  /// `WellflowFeatures.all` once gratitude and breathing are listed in it.
  static let features: [any FlowFeature.Type] =
    WellflowFeatures.all + [
      GratitudeFeature.self, GratitudeReminderFeature.self, GratitudeStorage.self, GratitudeSync.self,
      BreathingFeature.self, BreathingReminderFeature.self, BreathingStorage.self, BreathingSync.self,
    ]
  /// What the app's `WellflowFeatures.schema` is then, made from the list.
  static let schema = SQLiteSchema(features.storage)

  struct Unreachable: BackendConnector {
    struct NoNetwork: Error {}
    func api(for userID: String) async throws -> any ProgressAPI { throw NoNetwork() }
  }

  struct Backend: BackendConnector {
    let client: ProgressAPIClient
    func api(for userID: String) async throws -> any ProgressAPI { client }
  }

  /// The app as `AppContainer` composes it from the list: nothing is handed to it but
  /// what the list makes (no `customizeServices`).
  private func app(
    _ storage: AppContainer.StorageMode, directory: URL, backend: any BackendConnector = Unreachable()
  ) throws -> AppContainer {
    AppContainer(
      registry: try WellflowFeatures.makeRegistry(Self.features), storage: storage, schema: Self.schema,
      dataDirectory: directory, userID: "alice",
      clock: ManualClock(now: TestEnvironment.defaultStart, timeZone: TimeZone(identifier: "UTC")!),
      backend: backend, syncResources: try Self.features.syncResources, workMode: .deferred,
      presentationClock: ImmediatePresentationClock())
  }

  private func send(_ host: FlowHost, _ actions: UserAction...) async throws {
    for action in actions {
      try host.send(action)
      await host.settle()
    }
  }

  /// The scheduler firing: the reminder is delivered through the adapter the feature's
  /// storage installed.
  private func deliverGratitudeReminder(_ host: FlowHost) async throws {
    let reminders = host.environment.services[GratitudeRemindersKey.self]
    let sqlite = try #require(
      reminders as? SQLiteGratitudeReminders, "GratitudeStorage gave \(type(of: reminders))")
    try await sqlite.deliver(at: host.environment.clock.now)
  }

  @Test(arguments: [AppContainer.StorageMode.sqlite, .sqliteScratch])
  func theAppOpensWithThemAndRunsTheirFlowsAndReminders(storage: AppContainer.StorageMode) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("guide-app-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let app = try app(storage, directory: directory)
    // Every port every feature declared is served: no CompositionError.
    let host = try app.open()
    #expect(host.registry.notifications.map(\.id).contains("gratitude.reminder"))

    // Gratitude, from the app's own menu.
    try host.present(FlowRequest(flow: "gratitude"))
    try await send(
      host, .enter("entry", "Sun"), .tap("add"), .enter("entry", "Tea"), .tap("add"), .tap("save"))
    #expect(host.top == nil)
    #expect(try await host.query("gratitude.count") == .number(1))

    // Its evening reminder, delivered and opened.
    #expect(try await host.unopenedNotifications().contains("gratitude.reminder") == false)
    try await deliverGratitudeReminder(host)
    #expect(try await host.unopenedNotifications().contains("gratitude.reminder"))
    try await host.openNotification("gratitude.reminder")
    await host.settle()
    #expect(host.top?.flow == "gratitude")
    #expect(host.top?.trigger == .notification)
    #expect(host.screenID == GratitudeCoordinator.screenID)
    try await send(host, .close)
    #expect(try await host.unopenedNotifications().contains("gratitude.reminder") == false)

    // Breathing the same way.
    try host.present(FlowRequest(flow: "breathing"))
    try await send(host, .tap("three"))
    #expect(host.top == nil)
    #expect(try await host.query("breathing.count") == .number(1))
    try await host.environment.services[BreathingRemindersKey.self].deliver(at: host.environment.clock.now)
    #expect(host.environment.services[BreathingRemindersKey.self] is SQLiteBreathingReminders)
    try await host.openNotification("breathing.reminder")
    await host.settle()
    #expect(host.top?.flow == "breathing")
    #expect(host.top?.trigger == .notification)
    try await send(host, .close)

    // A relaunch finds what was kept.
    app.close()
    let relaunched = try app.open()
    #expect(try await relaunched.query("gratitude.count") == .number(1))
    #expect(try await relaunched.query("breathing.count") == .number(1))
    #expect(try await relaunched.unopenedNotifications().isEmpty)
    app.close()
  }

  /// Sync sends both features' rows, queued by their own adapters, to a real server.
  @Test func syncSendsTheirRowsToTheServer() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("guide-sync-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let server = try ProgressServer(
      configuration: ProgressServer.Configuration(apiKey: "guide-key", jwtSecret: "guide-secret"))
    let url = try await server.start()
    let client = ProgressAPIClient(
      credentials: BackendCredentials(baseURL: url, apiKey: "guide-key", token: server.token(for: "alice")),
      timeout: 600)
    let app = try app(.sqlite, directory: directory, backend: Backend(client: client))
    let host = try app.open()
    try host.present(FlowRequest(flow: "gratitude"))
    try await send(host, .enter("entry", "Sun"), .tap("add"), .tap("save"))
    try host.present(FlowRequest(flow: "breathing"))
    try await send(host, .tap("one"))

    let sync = try #require(app.sync)
    #expect(try await sync.sync(userID: "alice").push.synced == 2)
    #expect(try await host.query("backend.gratitude.count") == .number(1))
    #expect(try await host.query("backend.breathing.count") == .number(1))
    #expect(try await client.listResource("breathing", ListQuery()).entries.map { $0.body["minutes"] } == [1])
    app.close()
    await server.stop()
  }

  /// `wellflow export` of the folder writes their columns beside the app's, from the
  /// same list's storage.
  @Test func exportWritesTheirColumns() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("guide-export-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let app = try app(.sqlite, directory: directory)
    let host = try app.open()
    try host.present(FlowRequest(flow: "gratitude"))
    try await send(
      host, .enter("entry", "Coffee, with Sam"), .tap("add"), .enter("entry", "Rain"), .tap("add"),
      .tap("save"))
    await host.advanceClock(to: host.environment.clock.now.addingTimeInterval(60))
    try host.present(FlowRequest(flow: "breathing"))
    try await send(host, .tap("three"))
    app.close()

    func export(_ format: ExportConfiguration.Format) async -> (code: Int32, out: String) {
      var configuration = ExportConfiguration(dataDirectory: directory.path)
      configuration.userID = "alice"
      configuration.timeZone = TimeZone(identifier: "UTC")!
      configuration.format = format
      configuration.schema = Self.schema
      let out = Locked("")
      let code = await ExportCommand.execute(
        configuration, write: { text in out.withLock { $0 += text } },
        console: Console(out: { _ in }, err: { _ in }))
      return (code, out.current)
    }

    let header = ExportCommand.csvHeader(ExportCommand.exports(of: Self.schema))
    #expect(header == ExportCommand.csvHeader(ExportCommand.exports) + ["items", "minutes"])
    let (code, csv) = await export(.csv)
    #expect(code == 0)
    func line(_ fields: [String: String]) -> String {
      header.map { fields[$0] ?? "" }.joined(separator: ",") + "\r\n"
    }
    #expect(
      csv
        == header.joined(separator: ",") + "\r\n"
        + line([
          "type": "gratitude", "date": "2026-01-05T09:00:00+00:00", "items": "\"Coffee, with Sam;Rain\"",
        ])
        + line(["type": "breathing", "date": "2026-01-05T09:01:00+00:00", "minutes": "3"]))

    let (_, json) = await export(.json)
    let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
    #expect(rows.map { $0["type"] as? String } == ["gratitude", "breathing"])
    #expect(rows.first?["items"] as? [String] == ["Coffee, with Sam", "Rain"])
    #expect(rows.last?["minutes"] as? Int == 3)

    // The app's own export, without them, cannot read the folder they wrote: its
    // migrations are unknown to it, and it says so.
    var plain = ExportConfiguration(dataDirectory: directory.path)
    plain.userID = "alice"
    let err = Locked<[String]>([])
    let code2 = await ExportCommand.execute(
      plain, write: { _ in },
      console: Console(out: { _ in }, err: { text in err.withLock { $0.append(text) } }))
    #expect(code2 == 2)
    #expect(err.current.joined().contains("gratitude_v1"))
  }

  /// Their strings come with them, in both of the app's languages.
  @Test func theirScreenTextIsTranslated() throws {
    #expect(WellflowLocalization.missingTables(features: Self.features).isEmpty)
    let german = try WellflowLocalization.loadTable("de", features: Self.features)
    #expect(german.entries["Three good things"] == "Drei gute Dinge")
    #expect(german.entries["Breathe"] == "Atme")
  }
}
