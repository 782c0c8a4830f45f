import FlowKit
import Foundation
import Testing

/// Notifications and targeting attributes: what a feature registers so the runner and
/// the experiments reach it without knowing the feature.
@MainActor
@Suite("Feature registrations")
struct FeatureRegistrationsTests {
  @Test func aNotificationOrAttributeRegisteredTwiceIsRefused() throws {
    var registry = FlowRegistry()
    try registry.register(
      NotificationDefinition(
        id: "gratitude.reminder", flow: "gratitude", unopened: { _ in [] }, open: { _ in }))
    #expect(throws: RegistryError.duplicateNotification("gratitude.reminder")) {
      try registry.register(
        NotificationDefinition(id: "gratitude.reminder", flow: "other", unopened: { _ in [] }, open: { _ in })
      )
    }
    #expect(
      RegistryError.duplicateNotification("a").description
        == "a notification with id 'a' is already registered")
    try registry.register(TargetingAttribute("streak") { _ in .number(3) })
    #expect(throws: RegistryError.duplicateTargetingAttribute("streak")) {
      try registry.register(TargetingAttribute("streak") { _ in nil })
    }
    #expect(registry.notifications.map(\.id) == ["gratitude.reminder"])
    #expect(registry.targetingAttributes.map(\.name) == ["streak"])
  }

  @Test func openingANotificationRunsTheFeaturesOpenAndAnUnknownOneNamesTheKnown() async throws {
    let opened = Locked<[String]>([])
    var registry = FlowRegistry()
    for id in ["b.reminder", "a.reminder"] {
      try registry.register(
        NotificationDefinition(id: id, flow: "x", unopened: { _ in [] }) { _ in
          opened.withLock { $0.append(id) }
        })
    }
    let host = try FlowHost.compose(
      registry: registry,
      environment: HostEnvironment(
        userID: "alice",
        clock: ManualClock(now: Date(timeIntervalSince1970: 0), timeZone: TimeZone(identifier: "UTC")!),
        keyValueStore: InMemoryKeyValueStore()))
    try await host.openNotification("b.reminder")
    #expect(opened.current == ["b.reminder"])
    await #expect(throws: UnknownNotification(id: "c", known: ["a.reminder", "b.reminder"])) {
      try await host.openNotification("c")
    }
    #expect(
      UnknownNotification(id: "c", known: ["a.reminder", "b.reminder"]).description
        == "unknown notification 'c' (notifications: a.reminder, b.reminder)")
  }
}
