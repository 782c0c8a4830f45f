// A worked example of the plugin guide (FlowKit.docc/PluginGuide.md): the page shows this code, and
// GuideDocumentationTests checks that it still does, word for word.

import FlowKit
import FlowKitTesting
import Foundation
import Testing

@MainActor
@Suite("Guide: the gratitude reminder")
struct GratitudeReminderTests {
  let reminders = InMemoryGratitudeReminders()

  private func app() throws -> TestHost {
    try TestHost(
      [GratitudeFeature.self, GratitudeReminderFeature.self],
      environment: TestEnvironment()
        .providing(GratitudeJournalKey.self, InMemoryGratitudeJournal())
        .providing(GratitudeRemindersKey.self, reminders))
  }

  @Test func openingTheReminderStartsTheGratitudeFlow() async throws {
    let app = try app()
    #expect(app.registry.notifications.map(\.id) == ["gratitude.reminder"])
    #expect(app.registry.notification("gratitude.reminder")?.flow == "gratitude")
    #expect(try await app.host.unopenedNotifications() == [])

    reminders.deliver(at: app.clock.now)
    #expect(try await app.host.unopenedNotifications() == ["gratitude.reminder"])
    try await app.host.openNotification("gratitude.reminder")
    await app.settle()
    #expect(app.flow == "gratitude")
    #expect(app.top?.trigger == .notification)
    #expect(try await app.host.unopenedNotifications() == [])
  }

  @Test func openingWithNoneDeliveredSaysSo() async throws {
    let app = try app()
    await #expect(throws: NoGratitudeReminder()) {
      try await app.host.openNotification("gratitude.reminder")
    }
    #expect(
      NoGratitudeReminder().description == "no gratitude.reminder notification is delivered and unopened")
    #expect(app.isIdle)
  }
}
