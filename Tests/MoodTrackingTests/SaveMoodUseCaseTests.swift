import FlowKit
import Foundation
import MoodTracking
import Testing

@Suite struct SaveMoodUseCaseTests {
  @Test func savingAScoreFillsValenceLabelsAndAnOutboxRow() async throws {
    let fixture = MoodFixture()
    let result = try await fixture.log(8, notes: "  excited about the trip  ")
    guard case .created(let entry) = result else {
      Issue.record("expected created, got \(result)")
      return
    }
    #expect(entry.userID == "alice")
    #expect(entry.score == 8)
    #expect(abs(entry.valence - 0.5556) < 0.0001)
    #expect(entry.labels == [.happy, .confident, .excited])
    #expect(entry.notes == "excited about the trip")
    #expect(entry.kind == .dailyMood)
    #expect(entry.source == .userEntry)
    #expect(entry.date == moment("2026-01-05T09:00"))
    #expect(entry.day == day("2026-01-05"))
    #expect(fixture.repository.count(userID: "alice") == 1)
    let rows = fixture.outbox.all
    #expect(rows.count == 1)
    #expect(rows.first?.entity == .mood)
    #expect(rows.first?.entityID == entry.id.uuidString)
    #expect(rows.first?.operation == .create)
    let payload = try JSONDecoder().decode(MoodSyncPayload.self, from: Data(rows[0].payload.utf8))
    #expect(payload.entryID == entry.id.uuidString)
    #expect(payload.score == 8)
    #expect(payload.notes == "excited about the trip")
    #expect(payload.loggedAt == "2026-01-05T09:00:00Z")
  }

  @Test func givenLabelsAndAssociationsAreKept() async throws {
    let fixture = MoodFixture()
    let request = SaveMoodRequest(
      score: 3, labels: [.drained, .stressed], associations: [.work], kind: .momentaryEmotion)
    let entry = try await fixture.save.save(request).entry
    #expect(entry.labels == [.drained, .stressed])
    #expect(entry.emotion == .drained)
    #expect(entry.associations == [.work])
    #expect(entry.kind == .momentaryEmotion)
  }

  @Test func notesOf500CharactersAreAcceptedAnd501Refused() async throws {
    let fixture = MoodFixture()
    await #expect(throws: MoodError.notesTooLong(count: 501)) {
      try await fixture.log(5, notes: String(repeating: "a", count: 501))
    }
    #expect(fixture.repository.count(userID: "alice") == 0)
    #expect(fixture.outbox.all.isEmpty)
    let entry = try await fixture.log(5, notes: String(repeating: "é", count: 500)).entry
    #expect(entry.notes?.count == 500)
  }

  @Test func notesAreTrimmedBeforeTheLimitIsChecked() async throws {
    let fixture = MoodFixture()
    let padded = "  " + String(repeating: "b", count: 500) + "\n\n"
    #expect(try await fixture.log(5, notes: padded).entry.notes?.count == 500)
  }

  @Test func blankNotesBecomeNone() async throws {
    let fixture = MoodFixture()
    #expect(try await fixture.log(5, notes: " \n\t ").entry.notes == nil)
  }

  @Test(arguments: [0, 11, 12])
  func scoresOutside1To10AreRefused(score: Int) async throws {
    let fixture = MoodFixture()
    await #expect(throws: MoodError.invalidScore(score)) { try await fixture.log(score) }
    #expect(fixture.repository.count(userID: "alice") == 0)
  }

  @Test func noSignedInUserIsRefused() async throws {
    let fixture = MoodFixture()
    fixture.signIn(nil)
    await #expect(throws: MoodError.userNotAuthenticated) { try await fixture.log(5) }
  }

  @Test func futureDaysAreRefusedAndBackdatingAllowed() async throws {
    let fixture = MoodFixture(now: "2026-01-05T09:00")
    await #expect(throws: MoodError.futureDate(day("2026-01-06"))) {
      try await fixture.log(5, at: "2026-01-06T08:00")
    }
    let backdated = try await fixture.log(4, at: "2026-01-01T09:00").entry
    #expect(backdated.day == day("2026-01-01"))
    // Later today is still today.
    #expect(try await fixture.log(6, at: "2026-01-05T22:00").entry.day == day("2026-01-05"))
  }

  @Test func theSameDailyMoodAgainIsANoOp() async throws {
    let fixture = MoodFixture()
    let first = try await fixture.log(7, notes: "fine")
    fixture.clock.advance(by: 3_600)
    let again = try await fixture.log(7, notes: "fine ")
    #expect(again == .unchanged(first.entry))
    #expect(fixture.outbox.all.count == 1)
    #expect(fixture.outbox.all[0].revision == 1)
  }

  @Test func aDifferentDailyMoodTheSameDayUpdatesIt() async throws {
    let fixture = MoodFixture()
    let first = try await fixture.log(7).entry
    fixture.clock.advance(by: 3_600)
    let result = try await fixture.log(3, notes: "it got worse")
    guard case .updated(let updated) = result else {
      Issue.record("expected updated, got \(result)")
      return
    }
    #expect(updated.id == first.id)
    #expect(updated.score == 3)
    #expect(updated.labels == [.frustrated, .annoyed])
    #expect(updated.notes == "it got worse")
    #expect(updated.createdAt == first.createdAt)
    #expect(updated.updatedAt == moment("2026-01-05T10:00"))
    #expect(fixture.repository.count(userID: "alice") == 1)
    // The unsent create absorbed the change: one row, the latest state, still a create.
    #expect(fixture.outbox.all.count == 1)
    #expect(fixture.outbox.all[0].operation == .create)
    #expect(fixture.outbox.all[0].revision == 2)
    #expect(fixture.outbox.all[0].payload.contains("\"score\":3"))
  }

  @Test func momentaryEmotionsAreUnlimited() async throws {
    let fixture = MoodFixture()
    try await fixture.log(7)
    for _ in 0..<3 { try await fixture.log(7, kind: .momentaryEmotion) }
    #expect(fixture.repository.count(userID: "alice") == 4)
    #expect(fixture.outbox.all.count == 4)
  }

  @Test func checkInsAt23_59And00_01AreTwoDailyMoods() async throws {
    let fixture = MoodFixture(now: "2026-01-05T23:59", zone: "Europe/Berlin")
    let late = try await fixture.log(6)
    fixture.clock.advance(by: 120)
    let early = try await fixture.log(6)
    guard case .created = late, case .created = early else {
      Issue.record("\(late), \(early)")
      return
    }
    #expect(late.entry.day == day("2026-01-05"))
    #expect(early.entry.day == day("2026-01-06"))
  }

  @Test func anEntryAt23_30InBerlinBelongsToThatBerlinDay() async throws {
    // 23:30 in Berlin (UTC+1 in winter) is 22:30 UTC, the same day in both zones, but
    // 00:30 Berlin the next morning is still 23:30 UTC of the first day.
    let berlin = MoodFixture(now: "2026-01-06T00:30", zone: "Europe/Berlin")
    let evening = try await berlin.log(4, at: "2026-01-05T23:30")
    let afterMidnight = try await berlin.log(8)
    #expect(evening.entry.day == day("2026-01-05"))
    #expect(afterMidnight.entry.day == day("2026-01-06"))
    #expect(berlin.repository.count(userID: "alice") == 2)

    let utc = MoodFixture(now: "2026-01-05T23:30", zone: "UTC")
    try await utc.log(4, at: "2026-01-05T22:30")
    let sameInstant = try await utc.save.save(SaveMoodRequest(score: 8, date: afterMidnight.entry.date))
    guard case .updated(let entry) = sameInstant else {
      Issue.record("expected updated, got \(sameInstant)")
      return
    }
    #expect(entry.day == day("2026-01-05"))
    #expect(utc.repository.count(userID: "alice") == 1)
  }

  @Test func aSummerEntryAt23_30InBerlinIs21_30UTCTheSameDay() async throws {
    let fixture = MoodFixture(now: "2026-07-05T23:45", zone: "Europe/Berlin")
    let entry = try await fixture.log(5, at: "2026-07-05T23:30").entry
    #expect(entry.date == moment("2026-07-05T21:30", "UTC"))
    #expect(entry.day == day("2026-07-05"))
  }

  @Test func aStorageFailureIsReportedAndNothingIsMirrored() async throws {
    struct DiskFull: Error {}
    let fixture = MoodFixture()
    fixture.repository.failNextSave.withLock { $0 = DiskFull() }
    await #expect(throws: MoodError.storageFailed("DiskFull()")) { try await fixture.log(5) }
    #expect(fixture.healthStore.count(userID: "alice") == 0)
    #expect(fixture.repository.count(userID: "alice") == 0)
  }

  @Test func validateChecksWithoutSaving() throws {
    let fixture = MoodFixture()
    #expect(throws: MoodError.notesTooLong(count: 600)) {
      try fixture.save.validate(SaveMoodRequest(score: 5, notes: String(repeating: "x", count: 600)))
    }
    try fixture.save.validate(SaveMoodRequest(score: 5))
    #expect(fixture.repository.count(userID: "alice") == 0)
  }
}

@Suite struct MoodErrorTests {
  @Test func messagesSayWhatToFix() {
    #expect(MoodError.invalidScore(12).message == "mood score must be 1…10, got 12")
    #expect(
      MoodError.notesTooLong(count: 501).message == "notes must be at most 500 characters, got 501; remove 1")
    #expect(MoodError.invalidValence(1.5).message == "valence must be a number from -1 to 1, got 1.5")
    #expect(
      MoodError.invalidDateRange(start: day("2026-03-05"), end: day("2026-03-01")).message
        == "the range starts 2026-03-05, after it ends 2026-03-01; pick a start on or before the end")
    #expect(MoodError.userNotAuthenticated.message == "no user is signed in; sign in to save or read moods")
    #expect(
      MoodError.futureDate(day("2026-03-06")).message
        == "2026-03-06 is in the future; pick today or an earlier day")
    #expect(MoodError.storageFailed("disk full").localizedDescription.contains("disk full"))
  }
}

@Suite struct MoodDayTests {
  @Test func parsesOnlyRealDays() {
    #expect(MoodDay("2026-02-28")?.description == "2026-02-28")
    #expect(MoodDay("2026-02-29") == nil)
    #expect(MoodDay("2024-02-29") != nil)
    #expect(MoodDay("2026-1-05") == nil)
    #expect(MoodDay("yesterday") == nil)
  }

  @Test func arithmeticCrossesMonthsAndYears() {
    #expect(day("2026-01-01").adding(days: -1) == day("2025-12-31"))
    #expect(day("2024-02-28").adding(days: 1) == day("2024-02-29"))
    #expect(day("2026-01-01").days(to: day("2026-03-01")) == 59)
    #expect(day("1970-01-01").dayNumber == 0)
    #expect(day("1969-12-31").dayNumber == -1)
    #expect(day("2000-03-01").dayNumber == day("1970-01-01").days(to: day("2000-03-01")))
    #expect(day("2026-01-05").dayNumber == 20_458)
  }

  @Test func anIsoDateIsThatDayAtTheCurrentLocalTime() {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
    let now = moment("2026-03-02T08:15", "Europe/Berlin")
    #expect(
      day("2026-02-27").moment(atLocalTimeOf: now, in: calendar)
        == moment("2026-02-27T08:15", "Europe/Berlin"))
  }
}
