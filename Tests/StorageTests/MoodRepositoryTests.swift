import FlowKit
import Foundation
import GRDB
import MoodTracking
import Testing
import WellflowComposition

@testable import MoodTrackingSQLite
@testable import Storage

@Suite struct SQLiteMoodRepositoryTests {
  @Test func aSaveWritesEntryLabelsAndOutboxRowTogether() async throws {
    let fixture = try SQLiteMoodFixture()
    let entry = try await fixture.log(8, notes: "excited, met friends").entry
    let stored = try #require(try await fixture.repository.entry(id: entry.id, userID: "alice"))
    #expect(stored == entry)
    #expect(stored.labels.count == 3)
    #expect(try fixture.count("SELECT COUNT(*) FROM outbox") == 1)
    let rows = try await fixture.outbox.pending(userID: "alice", dueAt: nil, limit: 10)
    #expect(rows.map(\.entityID) == [entry.id.uuidString])
    #expect(rows.first?.operation == .create)
  }

  @Test func aFailedSaveWritesNeitherEntryNorOutboxRow() async throws {
    let fixture = try SQLiteMoodFixture()
    let entry = try await fixture.log(5).entry
    var stolen = entry
    stolen.userID = "mallory"
    let row = OutboxRow.mood(stolen, operation: .update, id: UUID(), now: fixture.clock.now)
    await #expect(throws: DatabaseError.self) { try await fixture.repository.save(stolen, outbox: row) }
    #expect(try fixture.count("SELECT COUNT(*) FROM outbox") == 1)
    #expect(try await fixture.repository.entry(id: entry.id, userID: "alice") == entry)
    #expect(try await fixture.repository.count(userID: "mallory") == 0)
  }

  @Test func theDatabaseRefusesASecondDailyMoodForADay() async throws {
    let fixture = try SQLiteMoodFixture()
    var second = try await fixture.log(5).entry
    second.id = UUID()
    let row = OutboxRow.mood(second, operation: .create, id: UUID(), now: fixture.clock.now)
    await #expect(throws: DatabaseError.self) { try await fixture.repository.save(second, outbox: row) }
    second.kind = .momentaryEmotion
    try await fixture.repository.save(second, outbox: row)
    #expect(try await fixture.repository.count(userID: "alice") == 2)
  }

  @Test func oneDailyMoodPerDayUpdateOrNoOp() async throws {
    let fixture = try SQLiteMoodFixture()
    let first = try await fixture.log(6, notes: "ok")
    #expect(try await fixture.log(6, notes: "ok") == .unchanged(first.entry))
    fixture.clock.advance(by: 60)
    let updated = try await fixture.log(9, notes: "great news")
    guard case .updated(let entry) = updated else {
      Issue.record("expected updated, got \(updated)")
      return
    }
    #expect(entry.id == first.entry.id)
    #expect(try await fixture.repository.entry(id: entry.id, userID: "alice") == entry)
    #expect(try fixture.count("SELECT COUNT(*) FROM mood_entries") == 1)
    #expect(try fixture.count("SELECT COUNT(*) FROM outbox") == 1)
    #expect(try fixture.count("SELECT revision FROM outbox") == 2)
    // The update replaced the labels: a query by label finds the entry by its new ones only.
    let all = DateInterval(start: moment("2026-01-01T00:00"), end: moment("2026-02-01T00:00"))
    for label in entry.labels {
      #expect(try await fixture.repository.entries(userID: "alice", labelled: label, in: all) == [entry])
    }
    for label in Set(first.entry.labels).subtracting(entry.labels) {
      #expect(try await fixture.repository.entries(userID: "alice", labelled: label, in: all).isEmpty)
    }
  }

  @Test func checkInsAt23_59And00_01AreTwoDailyMoods() async throws {
    let fixture = try SQLiteMoodFixture(now: "2026-01-05T23:59", zone: "Europe/Berlin")
    try await fixture.log(6)
    fixture.clock.advance(by: 120)
    try await fixture.log(6)
    let days = try await fixture.repository.dailyMoods(
      userID: "alice", days: day("2026-01-01")...day("2026-01-31"))
    #expect(days.map(\.day) == [day("2026-01-05"), day("2026-01-06")])
    #expect(try await fixture.repository.dailyMood(userID: "alice", day: day("2026-01-06"))?.score == 6)
  }

  @Test func whetherADayHasADailyMoodIsAskedOfTheIndexAlone() async throws {
    let fixture = try SQLiteMoodFixture(now: "2026-01-07T09:00", zone: "Europe/Berlin")
    try await fixture.log(6, at: "2026-01-05T09:00")
    try await fixture.log(4, at: "2026-01-06T10:00", kind: .momentaryEmotion)
    let repository = fixture.repository
    #expect(try await repository.hasDailyMood(userID: "alice", day: day("2026-01-05")))
    #expect(try await !repository.hasDailyMood(userID: "alice", day: day("2026-01-06")))
    #expect(try await !repository.hasDailyMood(userID: "alice", day: day("2026-01-04")))
    #expect(try await !repository.hasDailyMood(userID: "bob", day: day("2026-01-05")))
  }

  @Test func historyStatisticsAndStreakComeFromTheDatabase() async throws {
    let fixture = try SQLiteMoodFixture(now: "2026-01-10T12:00", zone: "Europe/Berlin")
    try await fixture.log(3, at: "2026-01-03T23:59")  // outside 7 days
    try await fixture.log(4, at: "2026-01-05T09:00")
    try await fixture.log(9, at: "2026-01-08T09:00")
    try await fixture.log(2, at: "2026-01-09T09:00")
    try await fixture.log(7, at: "2026-01-09T09:00", kind: .momentaryEmotion)
    #expect(try await fixture.history.entries(in: .week).map(\.score) == [4, 9, 2, 7])
    let stats = try await fixture.history.statistics(in: .week)
    #expect(stats.count == 4)
    #expect(stats.average == 5.5)
    #expect(stats.highest == 9)
    #expect(stats.lowest == 2)
    #expect(stats.latest?.score == 7)  // same date as the 2, saved after it
    #expect(stats.streak == 2)  // the 8th and 9th, ending yesterday
    try await fixture.log(5)
    #expect(try await fixture.history.statistics(in: .week).streak == 3)
    // Updating a daily mood does not count its day twice.
    fixture.clock.advance(by: 60)
    try await fixture.log(6)
    #expect(try await fixture.history.statistics(in: .week).streak == 3)
    fixture.clock.advance(days: 2)
    #expect(try await fixture.history.statistics(in: .week).streak == 0)
    #expect(try await fixture.history.statistics(in: .month).count == 6)
  }

  @Test func theOneReadHistoryMatchesTheListingAndTheStatistics() async throws {
    let fixture = try SQLiteMoodFixture(now: "2026-01-10T12:00", zone: "Europe/Berlin")
    #expect(try await fixture.history.history(in: .week) == MoodHistory(entries: [], statistics: .empty))
    try await fixture.log(3, at: "2026-01-03T23:59")  // outside 7 days
    try await fixture.log(4, notes: "a, \"quoted\" note", at: "2026-01-05T09:00")
    try await fixture.log(9, at: "2026-01-08T09:00")
    try await fixture.log(2, at: "2026-01-09T09:00")
    try await fixture.log(7, at: "2026-01-09T09:00", kind: .momentaryEmotion)
    for range in [
      MoodHistoryRange.week, .month, .custom(from: day("2026-01-09"), through: day("2026-01-09")),
    ] {
      let together = try await fixture.history.history(in: range)
      #expect(together.entries == (try await fixture.history.entries(in: range)))
      #expect(together.statistics == (try await fixture.history.statistics(in: range)))
    }
    let week = try await fixture.history.history(in: .week).statistics
    #expect(week.count == 4 && week.average == 5.5 && week.highest == 9 && week.lowest == 2)
    #expect(week.latest?.score == 7 && week.streak == 2)
  }

  /// The decoder reads SQLite's bytes in place; what it makes of odd rows must be what
  /// the String-based reading made: lowercase ids, unknown names skipped, NULLs, and
  /// enumeration values no row should hold.
  @Test func rowsDecodeFieldByFieldIncludingOddValues() async throws {
    let fixture = try SQLiteMoodFixture()
    let first = try await fixture.log(8, notes: "über, \"quoted\"\nline").entry
    let second = try await fixture.log(3, kind: .momentaryEmotion).entry
    #expect(try await fixture.repository.entry(id: first.id, userID: "alice") == first)
    #expect(try await fixture.repository.entry(id: second.id, userID: "alice") == second)
    try await fixture.db.write { db in
      try db.execute(
        sql: """
          UPDATE mood_entries SET labels = ',sad,,nope,relaxed,', associations = 'work,,selfCare,x',
            source = 'healthStore', sync_status = 'synced', backend_id = 'b-1'
          WHERE id = ?
          """,
        arguments: [second.id.uuidString])
    }
    let listed = try await fixture.history.entries(in: .month)
    #expect(listed.count == 2)
    let odd = try #require(listed.first { $0.score == 3 })
    #expect(odd.id == second.id)
    #expect(odd.labels == [.sad, .peaceful])
    #expect(odd.associations == [.work, .selfCare])
    #expect(odd.kind == .momentaryEmotion)
    #expect(odd.source == .healthStore)
    #expect(odd.syncStatus == .synced)
    #expect(odd.backendID == "b-1")
    #expect(odd.notes == nil)
    #expect(odd.userID == "alice" && odd.day == second.day && odd.date == second.date)
    #expect(listed.first { $0.score == 8 } == first)
    // Ids in either case, as UUID(uuidString:) reads them; anything else is not an id.
    for text in [second.id.uuidString, second.id.uuidString.lowercased()] {
      var text = text
      #expect(text.withUTF8 { MoodRowDecoder.uuid($0) } == second.id)
    }
    for text in ["", "not-a-uuid", String(second.id.uuidString.dropLast()) + "G", second.id.uuidString + "0"]
    {
      var text = text
      #expect(text.withUTF8 { MoodRowDecoder.uuid($0) } == nil)
    }
  }

  /// Label and association lists are decoded once per distinct stored text and shared;
  /// with more distinct lists than the decoder keeps, each row still gets its own.
  @Test func manyDistinctListsEachDecodeAsTheirRowSays() async throws {
    let fixture = try SQLiteMoodFixture()
    let labels = MoodLabel.allCases
    let associations = MoodAssociation.allCases
    var saved: [MoodEntry] = []
    for index in 0..<600 {
      let date = moment("2026-01-05T08:00").addingTimeInterval(Double(index))
      let entry = MoodEntry(
        id: UUID(), userID: "alice", date: date, day: day("2026-01-05"), score: index % 10 + 1, valence: 0,
        labels: [labels[index % labels.count], labels[(index / 3) % labels.count]].uniqued(),
        associations: index % 5 == 0 ? [] : [associations[(index * 7) % associations.count]],
        kind: .momentaryEmotion, createdAt: date, updatedAt: date)
      saved.append(entry)
    }
    try await fixture.repository.save(
      saved.map { ($0, OutboxRow.mood($0, operation: .create, id: UUID(), now: $0.date)) })
    let listed = try await fixture.history.entries(in: .week)
    #expect(listed == saved)
    let plain = try fixture.db.read { db in
      try Row.fetchAll(db, sql: "SELECT labels, associations FROM mood_entries ORDER BY date, save_seq")
    }
    #expect(listed.map(\.labels) == plain.map { MoodRows.labels($0[0]) })
    #expect(listed.map(\.associations) == plain.map { MoodRows.associations($0[1]) })
  }

  @Test func aStreakAcrossAMonthAndYearEnd() async throws {
    let fixture = try SQLiteMoodFixture(now: "2026-01-02T12:00")
    for date in ["2025-12-29", "2025-12-30", "2025-12-31", "2026-01-01", "2026-01-02"] {
      try await fixture.log(5, at: date + "T08:00")
    }
    try await fixture.log(5, at: "2025-12-27T08:00")
    #expect(try await fixture.history.statistics(in: .week).streak == 5)
  }

  /// On a tie of instants (a script's still clock), the latest entry is the one created
  /// last, as the entries list numbers them: saving a daily mood again, or editing it,
  /// does not move it past an entry created after it.
  @Test func latestOnATieIsTheOneCreatedLastEvenAfterAnUpdate() async throws {
    let fixture = try SQLiteMoodFixture(now: "2026-01-10T08:00")
    try await fixture.log(4)
    try await fixture.log(8, kind: .momentaryEmotion)
    #expect(try await fixture.repository.latest(userID: "alice")?.score == 8)
    try await fixture.log(2)  // updates the daily mood, same date, created first
    #expect(try await fixture.repository.latest(userID: "alice")?.score == 8)
    let day = DateInterval(start: moment("2026-01-10T00:00", "UTC"), duration: 86_400)
    #expect(try await fixture.repository.entries(userID: "alice", in: day).map(\.score) == [2, 8])
    try await fixture.log(3, at: "2026-01-09T08:00")
    #expect(try await fixture.repository.latest(userID: "alice")?.score == 8)
  }

  @Test func userBReadsNothingOfUserA() async throws {
    let fixture = try SQLiteMoodFixture()
    let entry = try await fixture.log(8).entry
    fixture.signIn("bob")
    #expect(try await fixture.repository.entry(id: entry.id, userID: "bob") == nil)
    #expect(try await fixture.history.count() == 0)
    #expect(try await fixture.history.latest() == nil)
    #expect(try await fixture.history.entries(in: .year).isEmpty)
    #expect(try await fixture.history.statistics(in: .year) == .empty)
    #expect(try await fixture.history.todaysDailyMood() == nil)
    #expect(try await fixture.outbox.pendingCount(userID: "bob") == 0)
    #expect(try await fixture.outbox.pending(userID: "bob", dueAt: nil, limit: 10).isEmpty)
    #expect(try await fixture.healthStore.count(userID: "bob") == 0)
    try await fixture.log(3)
    #expect(try await fixture.history.count() == 1)
    fixture.signIn("alice")
    #expect(try await fixture.history.todaysDailyMood()?.score == 8)
  }

  @Test func entriesCanBeQueriedByLabel() async throws {
    let fixture = try SQLiteMoodFixture()
    try await fixture.log(8)
    try await fixture.log(7, kind: .momentaryEmotion)
    try await fixture.log(2, kind: .momentaryEmotion)
    let all = DateInterval(start: moment("2026-01-01T00:00"), end: moment("2026-02-01T00:00"))
    let happy = try await fixture.repository.entries(userID: "alice", labelled: .happy, in: all)
    #expect(happy.map(\.score) == [8, 7])
    #expect(try await fixture.repository.entries(userID: "bob", labelled: .happy, in: all).isEmpty)
  }

  @Test func olderLabelSpellingsReadAsToday() async throws {
    let fixture = try SQLiteMoodFixture()
    let entry = try await fixture.log(5).entry
    try await fixture.db.write { db in
      try db.execute(
        sql: "UPDATE mood_entries SET labels = 'depressed,relaxed,unknownFutureLabel' WHERE id = ?",
        arguments: [entry.id.uuidString])
    }
    #expect(
      try await fixture.repository.entry(id: entry.id, userID: "alice")?.labels == [.hopeless, .peaceful])
    // A query by label finds the older spellings too, and a name that merely contains
    // another (`unknownFutureLabel`) matches nothing.
    let all = DateInterval(start: moment("2026-01-01T00:00"), end: moment("2026-02-01T00:00"))
    #expect(
      try await fixture.repository.entries(userID: "alice", labelled: .hopeless, in: all).map(\.id) == [
        entry.id
      ])
    #expect(
      try await fixture.repository.entries(userID: "alice", labelled: .peaceful, in: all).map(\.id) == [
        entry.id
      ])
    #expect(try await fixture.repository.entries(userID: "alice", labelled: .relieved, in: all).isEmpty)
  }

  @Test func entriesSurviveReopeningAWALDatabase() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("wellflow.sqlite").path
    func open() throws -> DatabasePool {
      let pool = try DatabasePool(path: path)
      try WellflowFeatures.schema.migrator().migrate(pool)
      return pool
    }
    let saved = try await SQLiteMoodFixture(db: try open()).log(7, notes: "kept").entry
    let reopened = try SQLiteMoodFixture(db: try open())
    #expect(try await reopened.repository.entry(id: saved.id, userID: "alice") == saved)
    #expect(try await reopened.outbox.pendingCount(userID: "alice") == 1)
    #expect(try await reopened.db.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
  }
}

@Suite struct SQLiteOutboxTests {
  func row(_ user: String, _ entityID: String, at seconds: Double, operation: OutboxOperation = .create)
    -> OutboxRow
  {
    OutboxRow(
      id: UUID(), userID: user, entity: .journal, entityID: entityID, operation: operation,
      payload: #"{"v":\#(Int(seconds))}"#, nextAttemptAt: Date(timeIntervalSince1970: seconds),
      createdAt: Date(timeIntervalSince1970: seconds))
  }

  @Test func pendingRowsComeOldestFirstPerUser() async throws {
    let outbox = SQLiteOutbox(writer: try migratedQueue(), entities: WellflowFeatures.schema.outboxEntities)
    try await outbox.enqueue(row("alice", "b", at: 20))
    try await outbox.enqueue(row("alice", "a", at: 10))
    try await outbox.enqueue(row("bob", "c", at: 5))
    try await outbox.enqueue(row("alice", "c", at: 30))
    let pending = try await outbox.pending(userID: "alice", dueAt: nil, limit: 10)
    #expect(pending.map(\.entityID) == ["a", "b", "c"])
    #expect(try await outbox.pending(userID: "alice", dueAt: nil, limit: 2).count == 2)
    #expect(try await outbox.pendingCount(userID: "alice") == 3)
    #expect(try await outbox.pendingCount(userID: "bob") == 1)
  }

  @Test func rowsOfTheSameEntityCoalesce() async throws {
    let outbox = SQLiteOutbox(writer: try migratedQueue(), entities: WellflowFeatures.schema.outboxEntities)
    try await outbox.enqueue(row("alice", "a", at: 10))
    try await outbox.enqueue(row("alice", "a", at: 20, operation: .update))
    let pending = try await outbox.pending(userID: "alice", dueAt: nil, limit: 10)
    #expect(pending.count == 1)
    #expect(pending[0].operation == .create)
    #expect(pending[0].payload == #"{"v":20}"#)
    #expect(pending[0].revision == 2)
    try await outbox.enqueue(row("alice", "a", at: 30, operation: .delete))
    #expect(try await outbox.pendingCount(userID: "alice") == 0)
  }

  @Test func retriesWaitUntilDueAndFailuresStop() async throws {
    let outbox = SQLiteOutbox(writer: try migratedQueue(), entities: WellflowFeatures.schema.outboxEntities)
    let first = row("alice", "a", at: 10)
    let second = row("alice", "b", at: 11)
    try await outbox.enqueue(first)
    try await outbox.enqueue(second)
    try await outbox.scheduleRetry(id: first.id, at: Date(timeIntervalSince1970: 100), reason: "offline")
    let due = try await outbox.pending(userID: "alice", dueAt: Date(timeIntervalSince1970: 50), limit: 10)
    #expect(due.map(\.entityID) == ["b"])
    let later = try await outbox.pending(userID: "alice", dueAt: Date(timeIntervalSince1970: 100), limit: 10)
    #expect(later.first?.attempts == 1)
    #expect(later.first?.lastError == "offline")
    try await outbox.markFailed(id: second.id, reason: "400: unknown curriculum id")
    #expect(try await outbox.failedCount(userID: "alice") == 1)
    #expect(try await outbox.pendingCount(userID: "alice") == 1)
    #expect(try await outbox.failedCount(userID: "bob") == 0)
  }

  @Test func markingSyncedRecordsTheBackendIdOnTheEntry() async throws {
    let fixture = try SQLiteMoodFixture()
    let entry = try await fixture.log(6).entry
    let sent = try #require(try await fixture.outbox.pending(userID: "alice", dueAt: nil, limit: 1).first)
    try await fixture.outbox.markSynced(id: sent.id, revision: sent.revision, backendID: "101")
    #expect(try await fixture.outbox.pendingCount(userID: "alice") == 0)
    let synced = try await fixture.repository.entry(id: entry.id, userID: "alice")
    #expect(synced?.backendID == "101")
    #expect(synced?.syncStatus == .synced)
    // The next change is an update the sender can address by the backend id.
    fixture.clock.advance(by: 60)
    try await fixture.log(7)
    let next = try await fixture.outbox.pending(userID: "alice", dueAt: nil, limit: 10)
    #expect(next.map(\.operation) == [.update])
    #expect(next.map(\.backendID) == ["101"])
  }

  @Test func aChangeArrivingDuringASendIsStillSent() async throws {
    let fixture = try SQLiteMoodFixture()
    try await fixture.log(6)
    let sent = try #require(try await fixture.outbox.pending(userID: "alice", dueAt: nil, limit: 1).first)
    fixture.clock.advance(by: 60)
    try await fixture.log(2)
    try await fixture.outbox.markSynced(id: sent.id, revision: sent.revision, backendID: "7")
    let pending = try await fixture.outbox.pending(userID: "alice", dueAt: nil, limit: 10)
    #expect(pending.count == 1)
    #expect(pending.first?.backendID == "7")
    #expect(pending.first?.payload.contains(#""score":2"#) == true)
  }
}

@Suite struct SQLiteStateOfMindStoreTests {
  @Test func samplesAreSavedReplacedAndScopedToTheUser() async throws {
    let store = SQLiteStateOfMindStore(writer: try migratedQueue())
    var sample = StateOfMindSample(
      id: UUID(), date: moment("2026-01-05T09:00"), kind: .dailyMood, valence: 0.5, labels: [.happy, .calm],
      associations: [.work, .weather], updatedAt: moment("2026-01-05T09:00"))
    try await store.save(sample, userID: "alice")
    sample.valence = 0.7
    try await store.save(sample, userID: "alice")
    let week = DateInterval(start: moment("2026-01-01T00:00"), end: moment("2026-01-08T00:00"))
    #expect(try await store.samples(userID: "alice", in: week) == [sample])
    #expect(try await store.count(userID: "alice") == 1)
    #expect(try await store.samples(userID: "bob", in: week).isEmpty)
    #expect(try await store.count(userID: "bob") == 0)
  }

  @Test func theHealthMirrorRoundTripsThroughSQLite() async throws {
    let fixture = try SQLiteMoodFixture(now: "2026-01-10T12:00")
    let entry = try await fixture.log(8).entry
    #expect(try await fixture.healthStore.count(userID: "alice") == 1)
    let foreign = StateOfMindSample(
      id: UUID(), date: moment("2026-01-09T20:00"), kind: .momentaryEmotion, valence: -0.2,
      labels: [.drained], associations: [.work], updatedAt: moment("2026-01-09T20:00"))
    try await fixture.healthStore.save(foreign, userID: "alice")
    #expect(
      try await fixture.importer.importSamples(in: .week) == .init(created: 1, updated: 0, unchanged: 1))
    #expect(
      try await fixture.importer.importSamples(in: .week) == .init(created: 0, updated: 0, unchanged: 2))
    let imported = try #require(try await fixture.repository.entry(id: foreign.id, userID: "alice"))
    #expect(imported.source == .healthStore)
    #expect(imported.score == 5)
    #expect(try await fixture.repository.entry(id: entry.id, userID: "alice") == entry)
    #expect(try await fixture.history.count() == 2)
  }
}

extension Array where Element: Hashable {
  fileprivate func uniqued() -> [Element] {
    var seen = Set<Element>()
    return filter { seen.insert($0).inserted }
  }
}
