import FlowKit
import Foundation
import ScriptTestSupport
import Storage
import Testing
import WellflowComposition

@testable import WellflowCore
@testable import WellflowScript

/// The runner's notifications, targeting and export go through what features register:
/// a feature the runner has never heard of is reached the same way.
@MainActor
@Suite("Runner over feature registrations")
struct FeatureRegistrationRunnerTests {
  enum GratitudeFeature: FlowFeature {
    static func register(in registry: inout FlowRegistry) throws(RegistryError) {
      try registry.register(
        NotificationDefinition(
          id: "gratitude.reminder", flow: "gratitude", unopened: { _ in [] }, open: { _ in }))
      try registry.register(
        TargetingAttribute("gratitudeStreak") { environment in
          (try? environment.keyValueStore.string(forKey: "gratitude.streak")).flatMap(Double.init).map(
            EventValue.number)
        })
    }
  }

  @Test func aScriptMayOpenANotificationAnyFeatureRegistered() throws {
    let registry = try WellflowFeatures.makeRegistry(WellflowFeatures.all + [GratitudeFeature.self])
    let vocabulary = ScriptVocabulary(registry: registry)
    #expect(vocabulary.notifications.contains("gratitude.reminder"))
    // The app's own, registered by its reminders feature.
    #expect(vocabulary.notifications.contains("checkin.reminder"))
    #expect(ScriptVocabulary(registry: FlowRegistry()).notifications.isEmpty)
  }

  /// `expect: {notification: …}` reads every feature's registration and lists what is
  /// unopened in the order it was delivered, whichever feature delivered it.
  @Test func aScriptSeesTheNotificationsEveryFeatureDelivered() async throws {
    var registry = try LabFeature.registry()
    for (id, seconds) in [("a.ping", [10.0, 30]), ("b.ping", [20.0])] {
      try registry.register(
        NotificationDefinition(
          id: id, flow: "lab", unopened: { _ in seconds.map(Date.init(timeIntervalSince1970:)) },
          open: { _ in }))
    }
    let workspace = Workspace()
    workspace.write(
      "s.yaml",
      """
      name: pings
      steps:
        - launch
        - expect: {notification: b.ping}
        - expect: {notification: null}
      """)
    let result = try await runScript("s.yaml", in: workspace, registry: registry)
    #expect(
      result.failure?.message
        == "expect failed: 3 notification(s) delivered and unopened (a.ping, b.ping, a.ping), expected none")
    #expect(result.failure?.position.line == 5)
  }

  @Test func targetingReadsEveryRegisteredAttribute() throws {
    let registry = try WellflowFeatures.makeRegistry(WellflowFeatures.all + [GratitudeFeature.self])
    let store = InMemoryKeyValueStore()
    store.set("12", forKey: "gratitude.streak")
    store.set("beginner", forKey: "onboarding.skill")
    let attributes = ExperimentAssigner.attributes(
      of: HostEnvironment(
        userID: "ann", clock: ManualClock(now: Date(timeIntervalSince1970: 0), timeZone: .gmt),
        keyValueStore: store),
      targeting: registry.targetingAttributes)
    #expect(attributes == ["id": "ann", "skill": "beginner", "gratitudeStreak": 12])
  }

  @Test func anExportRegistrationAddsItsColumnsAndRows() {
    let gratitude = FeatureExport(type: "gratitude", columns: ["text", "notes"]) { _, _, _ in [] }
    let exports = ExportCommand.exports + [gratitude]
    let records = [
      ExportRecord(
        type: "gratitude",
        row: FeatureExport.Row(
          date: Date(timeIntervalSince1970: 0),
          values: [
            "text": .text("tea, sun"), "notes": .none,
          ]))
    ]
    let csv = ExportCommand.render(records, format: .csv, timeZone: .gmt, exports: exports)
    // The app's columns, then `text`; `notes` is the mood's column already: one column, shared.
    let header = ExportCommand.csvHeader(ExportCommand.exports) + ["text"]
    #expect(ExportCommand.csvHeader(ExportCommand.exports).contains("notes"))
    #expect(ExportCommand.csvHeader(exports) == header)
    let fields = header.map { column in
      ["type": "gratitude", "date": "1970-01-01T00:00:00+00:00", "text": "\"tea, sun\""][column] ?? ""
    }
    #expect(
      csv == header.joined(separator: ",") + "\r\n" + fields.joined(separator: ",") + "\r\n")
    let json = ExportCommand.render(records, format: .json, timeZone: .gmt, exports: exports)
    #expect(
      json
        == "[\n{\"date\":\"1970-01-01T00:00:00+00:00\",\"notes\":null,\"text\":\"tea, sun\",\"type\":\"gratitude\"}\n]\n"
    )
  }
}
