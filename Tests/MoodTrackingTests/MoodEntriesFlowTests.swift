import FlowKit
import FlowKitTesting
import Foundation
import MoodTrackingTesting
import Testing

@testable import MoodTracking
@testable import MoodTrackingDomain

@Suite("Entries list: option ids")
struct MoodEntryListingTests {
  let calendar: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
    return calendar
  }()

  func entry(_ local: String, seconds: Double = 0, created: Double = 0) -> MoodEntry {
    let date = moment(local, "Europe/Berlin").addingTimeInterval(seconds)
    return MoodEntry(
      id: UUID(), userID: "alice", date: date, day: MoodDay(date, in: calendar), score: 5, valence: 0,
      labels: [.calm], kind: .momentaryEmotion, createdAt: date.addingTimeInterval(created), updatedAt: date)
  }

  @Test func idsAreLocalMinutesNumberedWithinAMinuteAndListedNewestFirst() {
    let first = entry("2026-03-02T08:00", seconds: 10)
    let second = entry("2026-03-02T08:00", seconds: 50)
    // The same instant as the second, created later.
    let third = entry("2026-03-02T08:00", seconds: 50, created: 5)
    let other = entry("2026-03-01T23:59")
    let listings = MoodEntryListing.newestFirst(
      [third, other, second, first].map(MoodEntrySummary.init), in: calendar)
    #expect(
      listings.map(\.id) == [
        "2026-03-02T08:00-3", "2026-03-02T08:00-2", "2026-03-02T08:00", "2026-03-01T23:59",
      ])
    #expect(listings.map(\.entry.id) == [third.id, second.id, first.id, other.id])
  }

  @Test func theLocalMinuteIsInTheUsersZone() {
    // 07:30 UTC is 08:30 in Berlin in winter.
    let date = moment("2026-01-05T07:30", "UTC")
    #expect(MoodEntryListing.localMinute(date, in: calendar) == "2026-01-05T08:30")
  }

  /// The listing works the minutes out by arithmetic on the zone's offset, asking the
  /// zone again only at its transitions: it must say what the calendar says, in zones
  /// with daylight saving, half-hour and 45-minute offsets, a skipped day (Apia,
  /// 2011-12-30), a changed standard offset (Moscow 2011 and 2014), and for dates
  /// from 1600 to 9999, in ascending order (as a listing asks) and in random order.
  @Test func localMinutesAreTheCalendarsInEveryZoneAndCentury() {
    let zones = [
      "UTC", "Europe/Berlin", "America/New_York", "America/St_Johns", "Asia/Kathmandu", "Pacific/Apia",
      "Europe/Moscow", "Australia/Lord_Howe", "Pacific/Chatham", "America/Sao_Paulo", "Africa/Casablanca",
    ]
    var generator = SplitMix64(seed: 11)
    for identifier in zones {
      var calendar = Calendar(identifier: .gregorian)
      calendar.timeZone = TimeZone(identifier: identifier)!
      // Hourly (and a little) through 2011–2014, which holds Apia's skipped day and
      // Moscow's changes; a few seconds around every transition the zone names from
      // 1970 to 2040; random moments over the centuries; the ends of the range.
      var dates = stride(from: 1_293_840_000.0, to: 1_420_070_400, by: 3_617).map(
        Date.init(timeIntervalSince1970:))
      var transition = calendar.timeZone.nextDaylightSavingTimeTransition(
        after: Date(timeIntervalSince1970: 0))
      while let moment = transition, moment.timeIntervalSince1970 < 2_208_988_800 {
        dates += [-3_600, -61, -1, 0, 1, 59, 3_600].map { moment.addingTimeInterval($0) }
        transition = calendar.timeZone.nextDaylightSavingTimeTransition(after: moment)
      }
      dates += (0..<2_000).map { _ in
        Date(timeIntervalSince1970: .random(in: -11_676_096_000..<253_402_128_000, using: &generator))
      }
      let expected = dates.map { LocalMinutes.asked($0, calendar) }
      var minutes = [String]()
      for order in [
        dates.indices.sorted { dates[$0] < dates[$1] }, dates.indices.shuffled(using: &generator),
      ] {
        minutes = Array(repeating: "", count: dates.count)
        var listing = LocalMinutes(calendar)
        for index in order { minutes[index] = listing.text(dates[index]) }
        let wrong = dates.indices.filter { minutes[$0] != expected[$0] }
        #expect(
          wrong.isEmpty,
          "\(identifier): \(wrong.count) differ, first \(wrong.first.map { "\(dates[$0].timeIntervalSince1970): \(minutes[$0]) != \(expected[$0])" } ?? "")"
        )
      }
    }
  }
}

@MainActor
@Suite("mood.entries and mood.edit")
struct MoodEntriesFlowTests {
  let clock = ManualClock(
    now: moment("2026-03-02T20:00", "Europe/Berlin"), timeZone: TimeZone(identifier: "Europe/Berlin")!)
  let repository: InMemoryMoodRepository
  let outbox = InMemoryOutbox()
  let health = FlakyStateOfMindStore()
  let host: FlowHost

  init() throws {
    repository = InMemoryMoodRepository(outbox: outbox)
    health.failing.withLock { $0 = false }
    var registry = FlowRegistry()
    try registry.register(MoodTrackingFeature.self)
    var services = Services()
    services[MoodRepositoryKey.self] = repository
    services[StateOfMindStoreKey.self] = health
    services[OutboxKey.self] = outbox
    host = try FlowHost(
      registry: registry,
      environment: HostEnvironment(
        userID: "alice", clock: clock, keyValueStore: InMemoryKeyValueStore(),
        analytics: InMemoryAnalyticsSink(),
        services: services),
      workMode: .deferred)
  }

  var save: SaveMoodUseCase {
    SaveMoodUseCase(repository: repository, clock: clock, healthStore: health, currentUser: { "alice" })
  }

  @discardableResult
  func log(_ score: Int, at local: String, kind: MoodKind = .dailyMood, notes: String? = nil) async throws
    -> MoodEntry
  {
    try await save.save(
      SaveMoodRequest(score: score, notes: notes, date: moment(local, "Europe/Berlin"), kind: kind)
    ).entry
  }

  func openList() async throws {
    try host.present(FlowRequest(flow: "mood.entries"))
    await host.settle()
  }

  func options(_ element: String) -> [ChoiceOption] {
    guard case .choice(let options, _)? = host.screen?.element(element)?.kind else { return [] }
    return options
  }

  @Test func theListShowsTheRangeNewestFirstAndEnablesEditAndDeleteOnceChosen() async throws {
    try await log(7, at: "2026-03-01T08:00")
    try await log(3, at: "2026-03-02T09:15", kind: .momentaryEmotion)
    try await log(9, at: "2026-03-02T09:15", kind: .momentaryEmotion)
    try await log(5, at: "2026-01-10T10:00")
    try await openList()
    #expect(host.screenID == "mood.entries")
    #expect(host.screen?.element("range")?.value == .text("30d"))
    #expect(
      options("entry") == [
        ChoiceOption(id: "2026-03-02T09:15-2", label: "2026-03-02 09:15 · 9/10 · Excited"),
        ChoiceOption(id: "2026-03-02T09:15", label: "2026-03-02 09:15 · 3/10 · Frustrated"),
        ChoiceOption(id: "2026-03-01T08:00", label: "2026-03-01 08:00 · 7/10 · Happy"),
      ])
    #expect(host.screen?.element("entry")?.value == ElementValue.none)
    #expect(host.screen?.element("edit")?.isEnabled == false)
    #expect(host.screen?.element("delete")?.isEnabled == false)
    try host.send(.select("range", ["90d"]))
    await host.settle()
    #expect(options("entry").map(\.id).last == "2026-01-10T10:00")
    try host.send(.select("entry", ["2026-03-01T08:00"]))
    #expect(host.screen?.element("edit")?.isEnabled == true)
    #expect(host.screen?.element("delete")?.isEnabled == true)
    try host.send(.select("range", ["7d"]))
    await host.settle()
    #expect(host.screen?.element("entry")?.value == .text("2026-03-01T08:00"), "still in the range")
    try host.send(.tap("close"))
    #expect(host.latestEndings["mood.entries"]?.outcome == .completed)
    #expect(host.isIdle)
  }

  /// Entries of one instant, saved on a still clock, are numbered in the order they
  /// were created: an edit of the first neither moves it nor renumbers the others.
  @Test func anEditKeepsEveryOptionIdOnItsEntry() async throws {
    try await log(3, at: "2026-03-02T09:15", kind: .momentaryEmotion)
    try await log(5, at: "2026-03-02T09:15", kind: .momentaryEmotion)
    try await log(8, at: "2026-03-02T09:15", kind: .momentaryEmotion)
    try await openList()
    func scores() -> [String] {
      options("entry").map { "\($0.id) \($0.label.split(separator: " · ")[1])" }
    }
    #expect(scores() == ["2026-03-02T09:15-3 8/10", "2026-03-02T09:15-2 5/10", "2026-03-02T09:15 3/10"])
    try host.send(.select("entry", ["2026-03-02T09:15"]))
    try host.send(.tap("edit"))
    await host.settle()
    try host.send(.set("score", 2))
    try host.send(.tap("save"))
    await host.settle()
    #expect(host.screenID == "mood.entries")
    #expect(host.screen?.element("entry")?.value == .text("2026-03-02T09:15"))
    #expect(scores() == ["2026-03-02T09:15-3 8/10", "2026-03-02T09:15-2 5/10", "2026-03-02T09:15 2/10"])
  }

  @Test func backLeavesTheEntryAsItWas() async throws {
    let saved = try await log(7, at: "2026-03-01T08:00", notes: "long walk")
    try await openList()
    try host.send(.select("entry", ["2026-03-01T08:00"]))
    try host.send(.tap("edit"))
    await host.settle()  // the whole entry is read
    #expect(host.screenID == "mood.edit")
    #expect(host.screen?.element("score")?.value == .number(7))
    #expect(host.screen?.element("labels")?.value == .list(["happy", "peaceful"]))
    #expect(host.screen?.element("associations")?.value == .list([]))
    #expect(host.screen?.element("notes")?.value == .text("long walk"))
    #expect(options("labels").count == 38)
    #expect(options("associations").count == 18)
    try host.send(.set("score", 2))
    try host.send(.enter("notes", "changed my mind"))
    try host.send(.back)
    await host.settle()
    #expect(host.screenID == "mood.entries")
    #expect(repository.entry(id: saved.id, userID: "alice") == saved)
  }

  @Test func savingAnEditKeepsDateAndKindRecomputesValenceAndMirrorsIt() async throws {
    let saved = try await log(7, at: "2026-03-01T08:00", kind: .momentaryEmotion)
    clock.advance(by: 60)
    try await openList()
    try host.send(.select("entry", ["2026-03-01T08:00"]))
    try host.send(.tap("edit"))
    await host.settle()  // the whole entry is read
    try host.send(.set("score", 3))
    try host.send(.select("labels", ["frustrated", "proud"]))
    try host.send(.select("associations", ["work", "weather"]))
    try host.send(.enter("notes", "  rain all day  "))
    #expect(host.screen?.element("score")?.kind == .slider(range: 1...10, step: 1, caption: "Unpleasant"))
    try host.send(.tap("save"))
    await host.settle()
    #expect(host.screenID == "mood.entries")
    #expect(host.screen?.element("entry")?.value == .text("2026-03-01T08:00"))
    #expect(options("entry").first?.label == "2026-03-01 08:00 · 3/10 · Frustrated")
    let edited = try #require(repository.entry(id: saved.id, userID: "alice"))
    #expect(edited.score == 3)
    #expect(abs(edited.valence - (2.0 / 4.5 - 1)) < 1e-9)
    #expect(edited.labels == [.frustrated, .proud])
    #expect(edited.associations == [.work, .weather])
    #expect(edited.notes == "rain all day")
    #expect(edited.date == saved.date)
    #expect(edited.kind == .momentaryEmotion)
    #expect(edited.updatedAt == clock.now)
    #expect(health.inner.sample(id: saved.id, userID: "alice") == StateOfMindSample(mirroring: edited))
    // Never sent: the create and the edit are one row, still a create, with the new state.
    #expect(outbox.all.count == 1)
    #expect(outbox.all.first?.operation == .create)
    #expect(outbox.all.first?.payload == MoodSyncPayload(entry: edited).json())
    #expect(try await host.query("mood.latest.score") == .number(3))
    #expect(try await host.query("mood.latest.labels") == .list(["frustrated", "proud"]))
    try host.send(.close)
    let summary = host.latestEndings["mood.entries"]?.output as? MoodEntriesSummary
    #expect(summary == MoodEntriesSummary(edited: 1, deleted: 0))
  }

  /// An entry the backend has, stored as a pull stores it (no outbox row).
  func backendEntry(_ score: Int, at local: String, backendID: String) throws -> MoodEntry {
    let date = moment(local, "Europe/Berlin")
    let entry = MoodEntry(
      id: UUID(), userID: "alice", date: date, day: MoodDay(date, in: clock.calendar), score: score,
      valence: try MoodTranslation.valence(forScore: score), labels: [.content], kind: .dailyMood,
      source: .backend, createdAt: date, updatedAt: date, backendID: backendID, syncStatus: .synced)
    #expect(repository.importFromBackend(entry))
    return entry
  }

  @Test func anEditOfAnEntryTheBackendHasIsQueuedAsAnUpdateWithItsID() async throws {
    let saved = try backendEntry(6, at: "2026-03-02T08:00", backendID: "b-1")
    let result = try await host.environment.moodEntries.update(
      saved.id, with: MoodEntryEdit(score: 8, labels: [.happy], associations: [], notes: nil))
    #expect(result == .updated(try #require(repository.entry(id: saved.id, userID: "alice"))))
    let edited = try #require(repository.entry(id: saved.id, userID: "alice"))
    let pending = outbox.pending(userID: "alice", dueAt: nil, limit: 10)
    #expect(pending.map(\.operation) == [.update])
    #expect(pending.first?.backendID == "b-1")
    #expect(pending.first?.payload == MoodSyncPayload(entry: edited).json())
    // A second edit before any send coalesces: one row, the latest state.
    _ = try await host.environment.moodEntries.update(
      saved.id, with: MoodEntryEdit(score: 2, labels: [.anxious], associations: [], notes: "later"))
    let again = outbox.pending(userID: "alice", dueAt: nil, limit: 10)
    #expect(again.count == 1)
    #expect(again.first?.revision == 2)
    #expect(again.first?.payload.contains("\"score\":2") == true)
  }

  @Test func anEditThatChangesNothingWritesNothing() async throws {
    let saved = try await log(6, at: "2026-03-02T08:00")
    let before = outbox.all
    let result = try await host.environment.moodEntries.update(saved.id, with: MoodEntryEdit(saved))
    #expect(result == .unchanged(saved))
    #expect(outbox.all == before)
  }

  @Test func deleteAsksFirstAndCancelKeepsTheEntry() async throws {
    try await log(6, at: "2026-03-02T08:00")
    try await openList()
    try host.send(.select("entry", ["2026-03-02T08:00"]))
    try host.send(.tap("delete"))
    #expect(host.screen?.alert?.id == "mood.confirmDelete")
    #expect(host.screen?.alert?.buttons.map(\.id) == ["delete", "cancel"])
    #expect(host.screen?.alert?.message.contains("2026-03-02 08:00 · 6/10 · Content") == true)
    #expect(throws: HostError.self) { try host.send(.select("range", ["7d"])) }
    do {
      try host.send(.select("range", ["7d"]))
    } catch {
      #expect(
        error.description
          == "mood.entries: alert mood.confirmDelete is up; only its buttons accept input (delete, cancel)")
    }
    try host.send(.tap("cancel"))
    await host.settle()
    #expect(host.screen?.alert == nil)
    #expect(try await host.query("mood.count") == .number(1))
  }

  @Test func deletingAnUnsentEntryRemovesItItsSampleAndItsOutboxRow() async throws {
    let saved = try await log(6, at: "2026-03-02T08:00")
    try await log(4, at: "2026-03-01T08:00")
    #expect(try await host.query("health.count") == .number(2))
    try await openList()
    try host.send(.select("entry", ["2026-03-02T08:00"]))
    try host.send(.tap("delete"))
    try host.send(.tap("delete"))
    await host.settle()
    #expect(host.screen?.alert == nil)
    #expect(host.screen?.element("entry")?.value == ElementValue.none)
    #expect(options("entry").map(\.id) == ["2026-03-01T08:00"])
    #expect(try await host.query("mood.count") == .number(1))
    #expect(try await host.query("mood.latest.score") == .number(4))
    #expect(try await host.query("mood.streak") == .number(1), "today's entry is gone; yesterday's counts")
    #expect(try await host.query("health.count") == .number(1))
    #expect(try await host.query("outbox.pending") == .number(1), "the unsent create is simply dropped")
    #expect(!outbox.all.contains { $0.entityID == saved.id.uuidString })
    #expect(repository.wasDeleted(id: saved.id, userID: "alice"))
    try host.send(.close)
    #expect((host.latestEndings["mood.entries"]?.output as? MoodEntriesSummary)?.deleted == 1)
  }

  @Test func deletingAnEntryTheBackendHasQueuesADelete() async throws {
    let synced = try backendEntry(6, at: "2026-03-02T08:00", backendID: "b-7")
    try await host.environment.moodEntries.delete(synced.id)
    let pending = outbox.pending(userID: "alice", dueAt: nil, limit: 10)
    #expect(pending.map(\.operation) == [.delete])
    #expect(pending.first?.backendID == "b-7")
    // A pull of the row the backend still has does not bring it back.
    var pulled = synced
    pulled.id = UUID()
    pulled.source = .backend
    #expect(repository.importFromBackend(pulled) == false)
    #expect(try await host.query("mood.count") == .number(0))
  }

  @Test func aSampleTheStoreFailedToDeleteIsRemovedByTheNextImportNotImported() async throws {
    let saved = try await log(6, at: "2026-03-02T08:00")
    health.failing.withLock { $0 = true }
    try await host.environment.moodEntries.delete(saved.id)
    health.failing.withLock { $0 = false }
    #expect(health.inner.count(userID: "alice") == 1, "the store kept it")
    let importer = ImportStateOfMindUseCase(store: health, save: save, clock: clock, currentUser: { "alice" })
    let summary = try await importer.importSamples(in: .week)
    #expect(summary == ImportStateOfMindUseCase.Summary(removed: 1))
    #expect(health.inner.count(userID: "alice") == 0)
    #expect(repository.count(userID: "alice") == 0)
  }

  @Test func editingOrDeletingAnEntryThatIsGoneSaysSo() async throws {
    let saved = try await log(6, at: "2026-03-02T08:00")
    let entries = host.environment.moodEntries
    try await entries.delete(saved.id)
    await #expect(throws: MoodError.entryNotFound(saved.id)) { try await entries.delete(saved.id) }
    await #expect(throws: MoodError.entryNotFound(saved.id)) {
      try await entries.update(saved.id, with: MoodEntryEdit(saved))
    }
    #expect(
      MoodError.entryNotFound(saved.id).message
        == "this mood entry no longer exists (it was deleted); pick another entry")
  }

  /// The list holds what it shows; `edit` reads the whole entry, which may be gone.
  @Test func editingAnEntryDeletedSinceTheListWasReadSaysSoAndDropsItFromTheList() async throws {
    let gone = try await log(6, at: "2026-03-02T08:00")
    try await log(4, at: "2026-03-01T08:00")
    try await openList()
    try host.send(.select("entry", ["2026-03-02T08:00"]))
    try await host.environment.moodEntries.delete(gone.id)
    try host.send(.tap("edit"))
    #expect(host.screen?.element("edit")?.isEnabled == false, "disabled while the entry is read")
    await host.settle()
    #expect(host.screenID == "mood.entries")
    #expect(host.screen?.alert?.id == "mood.error")
    #expect(host.screen?.alert?.message == MoodError.entryNotFound(gone.id).message)
    try host.send(.tap("ok"))
    #expect(options("entry").map(\.id) == ["2026-03-01T08:00"])
    #expect(host.screen?.element("entry")?.value == ElementValue.none)
  }

  @Test func anEditIsValidatedAsASave() async throws {
    let saved = try await log(6, at: "2026-03-02T08:00")
    let entries = host.environment.moodEntries
    await #expect(throws: MoodError.invalidScore(11)) {
      try await entries.update(
        saved.id, with: MoodEntryEdit(score: 11, labels: [], associations: [], notes: nil))
    }
    let long = String(repeating: "x", count: 501)
    await #expect(throws: MoodError.notesTooLong(count: 501)) {
      try await entries.update(
        saved.id, with: MoodEntryEdit(score: 5, labels: [], associations: [], notes: long))
    }
    try await openList()
    try host.send(.select("entry", ["2026-03-02T08:00"]))
    try host.send(.tap("edit"))
    await host.settle()  // the whole entry is read
    do {
      try host.send(.enter("notes", long))
      Issue.record("text past the limit was accepted")
    } catch {
      #expect(error.description == "mood.edit: 'notes' takes at most 500 characters, got 501")
    }
    try host.send(.enter("notes", "   "))
    try host.send(.tap("save"))
    await host.settle()
    #expect(repository.entry(id: saved.id, userID: "alice")?.notes == nil)
  }

  @Test func aFailedSaveShowsTheErrorAlertAndStaysOnTheEditScreen() async throws {
    try await log(6, at: "2026-03-02T08:00")
    try await openList()
    try host.send(.select("entry", ["2026-03-02T08:00"]))
    try host.send(.tap("edit"))
    await host.settle()  // the whole entry is read
    try host.send(.set("score", 9))
    struct DiskFull: Error {}
    repository.failNextSave.withLock { $0 = DiskFull() }
    try host.send(.tap("save"))
    await host.settle()
    #expect(host.screenID == "mood.edit")
    #expect(host.screen?.alert?.id == "mood.error")
    try host.send(.tap("ok"))
    try host.send(.tap("save"))
    await host.settle()
    #expect(host.screenID == "mood.entries")
    #expect(try await host.query("mood.latest.score") == .number(9))
  }
}
