import FlowKit
import FlowKitTesting
import Foundation
import MoodTracking
import MoodTrackingTesting
import Reminders
import RemindersTesting
import Testing

@MainActor
@Suite("Reminders: the daily check-in notification")
struct RemindersTests {
  let moods = InMemoryMoodRepository()

  private func app(at local: String = "2026-03-02T08:00", zone: String = "Europe/Berlin") throws -> TestHost {
    let world = TestEnvironment(at: local, timeZone: zone)
    world.providing(MoodRepositoryKey.self, moods)
      .providing(StateOfMindStoreKey.self, InMemoryStateOfMindStore())
      .providing(
        NotificationSchedulerKey.self,
        LocalNotificationScheduler(
          store: world.store, deliveries: InMemoryDeliveredNotificationStore(), clock: world.clock))
    return try TestHost([RemindersFeature.self], environment: world)
  }

  private func delivered(_ app: TestHost) async throws -> [DeliveredNotification] {
    try await app.host.environment.services[NotificationSchedulerKey.self].delivered()
  }

  private func turnOn(_ app: TestHost, at time: String) async throws {
    try await app.present("reminders")
    try await app.run("toggle enabled true", "enter time \(time)", "tap save")
  }

  @Test func timesAreTwoDigitHoursAndMinutes() {
    #expect(ReminderTime("20:00") == ReminderTime(hour: 20, minute: 0))
    #expect(ReminderTime(" 07:05 ") == ReminderTime(hour: 7, minute: 5))
    for bad in ["24:00", "7:30", "12:60", "1230", "ab:cd", "", "12:3", "-1:00", "12:00:00"] {
      #expect(ReminderTime(bad) == nil, "\(bad)")
    }
  }

  @Test func saveWaitsForAValidTimeAndCloseChangesNothing() async throws {
    let app = try app()
    try await app.present("reminders")
    #expect(app.screen?.element("enabled")?.value == .bool(false))
    #expect(app.screen?.element("time")?.value == .text("20:00"))
    try await app.run("toggle enabled true", "enter time 25:00")
    #expect(app.screen?.element("save")?.isEnabled == false)
    #expect(app.screen?.message?.contains("HH:MM") == true)
    try await app.run("close")
    #expect(app.ending(of: "reminders")?.outcome == .cancelled)
    #expect(try await app.query("reminders.enabled") == .bool(false))
    #expect(try await app.host.environment.services[NotificationSchedulerKey.self].scheduled().isEmpty)
    #expect(!app.environment.eventNames.contains("reminder_scheduled"))
  }

  @Test func advancingOverDaysDeliversEachDayInOrder() async throws {
    let app = try app()
    try await turnOn(app, at: "19:30")
    #expect(app.environment.eventNames.contains("reminder_scheduled"))
    #expect(try await app.query("reminders.time") == .text("19:30"))
    await app.host.advanceClock(to: TestEnvironment.date("2026-03-05T23:00", in: app.clock.timeZone))
    let dates = try await delivered(app).map(\.date)
    let expected = ["2026-03-02T19:30", "2026-03-03T19:30", "2026-03-04T19:30", "2026-03-05T19:30"].map {
      TestEnvironment.date($0, in: app.clock.timeZone)
    }
    #expect(dates == expected)
    #expect(app.environment.eventNames.filter { $0 == "notification_delivered" }.count == 4)
    #expect(try await app.query("notifications.pending") == .number(4))
  }

  @Test func aDayWhoseMoodIsInGetsNoReminder() async throws {
    let app = try app()
    try await turnOn(app, at: "20:00")
    _ = try await app.host.environment.saveMood.save(SaveMoodRequest(score: 6, kind: .dailyMood))
    await app.host.advanceClock(to: TestEnvironment.date("2026-03-03T21:00", in: app.clock.timeZone))
    #expect(
      try await delivered(app).map(\.date) == [
        TestEnvironment.date("2026-03-03T20:00", in: app.clock.timeZone)
      ])
  }

  @Test func aTimeInTheDSTGapArrivesWhenTheGapEnds() throws {
    let zone = TimeZone(identifier: "Europe/Berlin")!
    let calendar = ManualClock.gregorian(in: zone)
    // On 2026-03-29 Berlin's clocks jump from 02:00 to 03:00.
    let next = LocalNotificationScheduler.nextOccurrence(
      hour: 2, minute: 30, after: TestEnvironment.date("2026-03-28T12:00", in: zone), calendar: calendar)
    let gapDay = LocalNotificationScheduler.nextOccurrence(
      hour: 2, minute: 30, after: TestEnvironment.date("2026-03-29T00:00", in: zone), calendar: calendar)
    #expect(next == TestEnvironment.date("2026-03-29T03:00", in: zone))
    #expect(gapDay == TestEnvironment.date("2026-03-29T03:00", in: zone))
    let after = LocalNotificationScheduler.nextOccurrence(
      hour: 2, minute: 30, after: gapDay!, calendar: calendar)
    #expect(after == TestEnvironment.date("2026-03-30T02:30", in: zone))
  }

  @Test func acrossTheSpringChangeEachDayKeepsItsLocalTimeAndTheGapDayGetsTheNextValidTime() async throws {
    let app = try app(at: "2026-03-27T12:00")
    try await turnOn(app, at: "02:30")
    await app.host.advanceClock(to: TestEnvironment.date("2026-03-31T12:00", in: app.clock.timeZone))
    let local = try await delivered(app).map { date in
      let parts = app.clock.calendar.dateComponents([.day, .hour, .minute], from: date.date)
      return "\(parts.day!) \(parts.hour!):\(parts.minute!)"
    }
    #expect(local == ["28 2:30", "29 3:0", "30 2:30", "31 2:30"])
  }

  /// The local day and time of each delivery so far.
  private func deliveredLocally(_ app: TestHost) async throws -> [String] {
    try await delivered(app).map { notification in
      let parts = app.clock.calendar.dateComponents([.month, .day, .hour, .minute], from: notification.date)
      return String(format: "%02d-%02d %02d:%02d", parts.month!, parts.day!, parts.hour!, parts.minute!)
    }
  }

  @Test func aDayWhoseGapBeginsAtMidnightGetsItsReminderWhenTheGapEnds() async throws {
    // On 2026-03-08 Havana's clocks jump from 00:00 to 01:00: that day's 00:30 is 01:00.
    let havana = try app(at: "2026-03-06T12:00", zone: "America/Havana")
    try await turnOn(havana, at: "00:30")
    await havana.host.advanceClock(to: TestEnvironment.date("2026-03-10T12:00", in: havana.clock.timeZone))
    #expect(
      try await deliveredLocally(havana) == ["03-07 00:30", "03-08 01:00", "03-09 00:30", "03-10 00:30"])
    #expect(try await havana.query("notifications.delivered") == .number(4))
  }

  @Test func aDayWhoseGapEndsAtMidnightGetsItsReminderAtMidnight() async throws {
    // On 2026-03-28 Nuuk's clocks jump from 23:00 to 00:00: that day's 23:30 is the
    // next day's 00:00, and the next day still gets its own.
    let nuuk = try app(at: "2026-03-26T12:00", zone: "America/Nuuk")
    try await turnOn(nuuk, at: "23:30")
    await nuuk.host.advanceClock(to: TestEnvironment.date("2026-03-30T12:00", in: nuuk.clock.timeZone))
    #expect(
      try await deliveredLocally(nuuk) == ["03-26 23:30", "03-27 23:30", "03-29 00:00", "03-29 23:30"])
  }

  @Test func openingPresentsTheFlowAndMarksItOpened() async throws {
    let app = try app()
    try await turnOn(app, at: "09:00")
    await #expect(throws: ReminderError.noneDelivered("checkin.reminder")) {
      try await RemindersFeature.open("checkin.reminder", on: app.host)
    }
    await app.host.advanceClock(to: TestEnvironment.date("2026-03-02T09:00", in: app.clock.timeZone))
    #expect(try await app.query("notifications.pending") == .number(1))
    // The check-in is not part of this test's app: presenting it is refused after the
    // notification was marked opened, as a host refuses an unknown flow.
    await #expect(throws: HostError.self) {
      try await RemindersFeature.open("checkin.reminder", on: app.host)
    }
    #expect(try await app.query("notifications.pending") == .number(0))
    #expect(app.environment.eventNames.contains("notification_opened"))
  }

  @Test func whatWasScheduledSurvivesANewHost() async throws {
    let first = try app()
    try await turnOn(first, at: "20:00")
    first.terminate()
    let world = first.environment
    let second = try TestHost([RemindersFeature.self], environment: world)
    await second.host.advanceClock(to: TestEnvironment.date("2026-03-02T20:00", in: world.clock.timeZone))
    #expect(try await second.query("notifications.delivered") == .number(1))
  }

  /// The scheduler keeps the requests it decoded, but each read still compares the
  /// stored text, so a change another scheduler over the same store made is seen.
  @Test func aChangeMadeThroughAnotherSchedulerIsSeen() async throws {
    let world = TestEnvironment(at: "2026-03-02T08:00", timeZone: "Europe/Berlin")
    let deliveries = InMemoryDeliveredNotificationStore()
    let first = LocalNotificationScheduler(store: world.store, deliveries: deliveries, clock: world.clock)
    let second = LocalNotificationScheduler(store: world.store, deliveries: deliveries, clock: world.clock)
    let evening = DailyNotificationRequest(id: "a", hour: 20, minute: 0, title: "t", body: "b")
    try await first.scheduleDaily(evening)
    #expect(try await first.scheduled() == [evening])
    try await second.cancel(id: "a")
    #expect(try await first.scheduled().isEmpty)
    let morning = DailyNotificationRequest(id: "b", hour: 7, minute: 30, title: "t", body: "b")
    try await second.scheduleDaily(morning)
    #expect(try await first.scheduled() == [morning])
  }
}
