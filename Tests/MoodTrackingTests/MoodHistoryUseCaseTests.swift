import FlowKit
import Foundation
import MoodTracking
import Testing

@Suite struct MoodHistoryUseCaseTests {
  @Test func sevenDaysAreTodayAndTheSixDaysBefore() throws {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
    let interval = try MoodHistoryRange.week.interval(today: day("2026-03-10"), in: calendar)
    #expect(interval.start == moment("2026-03-04T00:00", "Europe/Berlin"))
    #expect(interval.end == moment("2026-03-11T00:00", "Europe/Berlin"))
    #expect(try MoodHistoryRange.year.days(today: day("2026-03-10")) == day("2025-03-11")...day("2026-03-10"))
    #expect(try MoodHistoryRange.month.days(today: day("2026-03-10")).lowerBound == day("2026-02-09"))
    #expect(try MoodHistoryRange.quarter.days(today: day("2026-03-10")).lowerBound == day("2025-12-11"))
  }

  @Test func rangeIdsOfTheHistoryScreen() {
    #expect(MoodHistoryRange(id: "7d") == .lastDays(7))
    #expect(MoodHistoryRange(id: "30d") == .lastDays(30))
    #expect(MoodHistoryRange(id: "90d") == .lastDays(90))
    #expect(MoodHistoryRange(id: "1y") == .lastDays(365))
    #expect(MoodHistoryRange(id: "2w") == nil)
  }

  @Test func invalidRangesAreRefused() async throws {
    let fixture = MoodFixture()
    await #expect(throws: MoodError.invalidDateRange(start: day("2026-01-05"), end: day("2026-01-01"))) {
      try await fixture.history.entries(in: .custom(from: day("2026-01-05"), through: day("2026-01-01")))
    }
    await #expect(throws: MoodError.invalidDayCount(0)) {
      try await fixture.history.statistics(in: .lastDays(0))
    }
    fixture.signIn(nil)
    await #expect(throws: MoodError.userNotAuthenticated) { try await fixture.history.entries(in: .week) }
  }

  @Test func entriesOfARangeAscendingAndOnlyThoseInside() async throws {
    let fixture = MoodFixture(now: "2026-01-10T12:00", zone: "Europe/Berlin")
    try await fixture.log(2, at: "2026-01-03T23:59")  // one day before the 7-day range
    try await fixture.log(9, at: "2026-01-09T08:00")
    try await fixture.log(5, at: "2026-01-04T00:00")
    try await fixture.log(6, at: "2026-01-10T07:00")
    try await fixture.log(4, at: "2026-01-09T07:00", kind: .momentaryEmotion)
    let entries = try await fixture.history.entries(in: .week)
    #expect(entries.map(\.score) == [5, 4, 9, 6])
    let custom = try await fixture.history.entries(
      in: .custom(from: day("2026-01-03"), through: day("2026-01-04")))
    #expect(custom.map(\.score) == [2, 5])
  }

  @Test func statisticsOfARange() async throws {
    let fixture = MoodFixture(now: "2026-01-10T12:00")
    try await fixture.log(3, at: "2026-01-01T09:00")  // outside 7 days
    try await fixture.log(4, at: "2026-01-05T09:00")
    try await fixture.log(9, at: "2026-01-07T09:00")
    try await fixture.log(6, at: "2026-01-08T09:00")
    let stats = try await fixture.history.statistics(in: .week)
    #expect(stats.count == 3)
    #expect(abs((stats.average ?? 0) - 19.0 / 3.0) < 0.0001)
    #expect(stats.highest == 9)
    #expect(stats.lowest == 4)
    #expect(stats.latest?.score == 6)
    // The 8th is two days back with nothing on the 9th or 10th: no current streak.
    #expect(stats.streak == 0)
  }

  @Test func anEmptyRangeHasNoFigures() async throws {
    let fixture = MoodFixture()
    #expect(try await fixture.history.statistics(in: .month) == .empty)
  }

  @Test func theStreakEndsTodayOrYesterday() async throws {
    let fixture = MoodFixture(now: "2026-01-10T12:00")
    for date in ["2026-01-05", "2026-01-07", "2026-01-08", "2026-01-09"] {
      try await fixture.log(5, at: date + "T09:00")
    }
    try await fixture.log(6, at: "2026-01-09T10:00", kind: .momentaryEmotion)
    // Nothing today yet: the run 7th…9th ending yesterday still counts.
    #expect(try await fixture.history.statistics(in: .week).streak == 3)
    try await fixture.log(7)
    #expect(try await fixture.history.statistics(in: .week).streak == 4)
    fixture.clock.advance(days: 2)
    #expect(try await fixture.history.statistics(in: .week).streak == 0)
  }

  @Test func theStreakCountsCalendarDaysInTheUsersZone() async throws {
    // 00:30 Berlin on the 10th is 23:30 UTC on the 9th: in Berlin that is two days.
    let fixture = MoodFixture(now: "2026-01-10T00:30", zone: "Europe/Berlin")
    try await fixture.log(5, at: "2026-01-09T20:00")
    try await fixture.log(5)
    #expect(try await fixture.history.statistics(in: .week).streak == 2)
  }

  @Test func latestIsTheLatestDateAndOnATieTheOneSavedLast() async throws {
    let fixture = MoodFixture(now: "2026-01-10T12:00")
    try await fixture.log(8, at: "2026-01-10T08:00", kind: .momentaryEmotion)
    try await fixture.log(3, at: "2026-01-09T09:00")  // backdated: saved later, dated earlier
    #expect(try await fixture.history.latest()?.score == 8)
    try await fixture.log(2, at: "2026-01-10T08:00", kind: .momentaryEmotion)
    try await fixture.log(6, at: "2026-01-10T08:00", kind: .momentaryEmotion)
    #expect(try await fixture.history.latest()?.score == 6)
    #expect(try await fixture.history.statistics(in: .week).latest?.score == 6)
    #expect(try await fixture.history.entries(in: .week).map(\.score) == [3, 8, 2, 6])
  }

  @Test func userBReadsNothingOfUserA() async throws {
    let fixture = MoodFixture()
    try await fixture.log(8, notes: "alice's day")
    fixture.signIn("bob")
    #expect(try await fixture.history.count() == 0)
    #expect(try await fixture.history.latest() == nil)
    #expect(try await fixture.history.entries(in: .year).isEmpty)
    #expect(try await fixture.history.statistics(in: .year) == .empty)
    #expect(try await fixture.history.todaysDailyMood() == nil)
    #expect(fixture.outbox.pendingCount(userID: "bob") == 0)
    // Bob's own daily mood does not touch Alice's.
    #expect(try await { if case .created = try await fixture.log(3) { true } else { false } }())
    fixture.signIn("alice")
    #expect(try await fixture.history.todaysDailyMood()?.score == 8)
  }
}
