import FlowKit
import Foundation
import GRDB
import MoodTracking
import Storage
import Testing

@testable import MoodTrackingSQLite

/// Edits and deletes from the entries list over the SQLite adapters.
@Suite struct MoodDeletionStorageTests {
  func entries(_ fixture: SQLiteMoodFixture) -> MoodEntriesUseCase {
    MoodEntriesUseCase(
      repository: fixture.repository, clock: fixture.clock, healthStore: fixture.healthStore,
      currentUser: { [user = fixture.user] in user.current })
  }

  @Test func aDeleteTakesTheEntryItsDayAndItsSampleAndRemembersIt() async throws {
    let fixture = try SQLiteMoodFixture()
    let entry = try await fixture.log(8, notes: "excited, met friends", at: "2026-01-05T08:00").entry
    try await fixture.log(4, at: "2026-01-04T08:00")
    #expect(try fixture.count("SELECT COUNT(*) FROM mood_days") == 2)
    try await entries(fixture).delete(entry.id)
    #expect(try await fixture.repository.entry(id: entry.id, userID: "alice") == nil)
    #expect(try fixture.count("SELECT COUNT(*) FROM mood_entries") == 1)
    #expect(
      try await fixture.repository.entries(
        userID: "alice", labelled: entry.labels[0], in: DateInterval(start: entry.date, duration: 1)
      ).isEmpty)
    #expect(try fixture.count("SELECT COUNT(*) FROM mood_days") == 1)
    #expect(try fixture.count("SELECT COUNT(*) FROM health_samples_owed") == 0)
    #expect(try await fixture.healthStore.count(userID: "alice") == 1)
    #expect(try await fixture.repository.wasDeleted(id: entry.id, userID: "alice"))
    #expect(try await fixture.repository.wasDeleted(id: entry.id, userID: "mallory") == false)
    // Never sent: its create leaves the outbox with it.
    let pending = try await fixture.outbox.pending(userID: "alice", dueAt: nil, limit: 10)
    #expect(!pending.contains { $0.entityID == entry.id.uuidString })
    #expect(try await fixture.history.statistics(in: .week).streak == 1)
  }

  @Test func aDeleteOfASyncedEntryQueuesADeleteWithTheBackendsID() async throws {
    let fixture = try SQLiteMoodFixture()
    let entry = try await fixture.log(6).entry
    let row = try #require(try await fixture.outbox.pending(userID: "alice", dueAt: nil, limit: 1).first)
    try await fixture.outbox.markSynced(id: row.id, revision: row.revision, backendID: "b-1")
    try await entries(fixture).delete(entry.id)
    let pending = try await fixture.outbox.pending(userID: "alice", dueAt: nil, limit: 10)
    #expect(pending.map(\.operation) == [.delete])
    #expect(pending.first?.backendID == "b-1")
    #expect(try fixture.count("SELECT COUNT(*) FROM mood_entry_deletions WHERE backend_id = 'b-1'") == 1)
    // The backend still has it until the DELETE goes: a pull must not bring it back,
    // by its id or by the backend's.
    var pulled = entry
    pulled.source = .backend
    pulled.backendID = "b-1"
    #expect(try await fixture.repository.importFromBackend(pulled) == false)
    pulled.id = UUID()
    #expect(try await fixture.repository.importFromBackend(pulled) == false)
    #expect(try await fixture.repository.count(userID: "alice") == 0)
  }

  @Test func anEditIsOneUpsertKeepingDateDayAndKind() async throws {
    let fixture = try SQLiteMoodFixture()
    let entry = try await fixture.log(6, at: "2026-01-04T21:30").entry
    fixture.clock.advance(by: 120)
    let result = try await entries(fixture).update(
      entry.id,
      with: MoodEntryEdit(score: 2, labels: [.anxious, .lonely], associations: [.work], notes: "late"))
    guard case .updated(let edited) = result else {
      Issue.record("expected an update, got \(result)")
      return
    }
    let stored = try #require(try await fixture.repository.entry(id: entry.id, userID: "alice"))
    #expect(stored == edited)
    #expect(stored.date == entry.date && stored.day == entry.day && stored.kind == .dailyMood)
    #expect(
      try await fixture.repository.entries(
        userID: "alice", labelled: .lonely,
        in: DateInterval(
          start: entry.date, duration: 1)
      ).map(\.id) == [entry.id])
    #expect(
      try await fixture.repository.entries(
        userID: "alice", labelled: entry.labels[0], in: DateInterval(start: entry.date, duration: 1)
      ).isEmpty)
    let samples = try await fixture.healthStore.samples(
      userID: "alice", in: DateInterval(start: entry.date, duration: 1))
    #expect(samples == [StateOfMindSample(mirroring: stored)])
    #expect(try fixture.count("SELECT COUNT(*) FROM outbox") == 1)
  }

  @Test func anotherUsersEntryCannotBeDeleted() async throws {
    let fixture = try SQLiteMoodFixture()
    let entry = try await fixture.log(6).entry
    var stolen = entry
    stolen.userID = "mallory"
    let row = OutboxRow.mood(stolen, operation: .delete, id: UUID(), now: fixture.clock.now)
    #expect(try await fixture.repository.delete(stolen, outbox: row) == false)
    #expect(try await fixture.repository.count(userID: "alice") == 1)
    #expect(try fixture.count("SELECT COUNT(*) FROM mood_entry_deletions") == 0)
    #expect(try await fixture.outbox.pendingCount(userID: "mallory") == 0)
  }

  @Test func aSampleWhoseDeleteWasLostGoesWhenTheStoreOpens() async throws {
    let fixture = try SQLiteMoodFixture()
    let entry = try await fixture.log(6).entry
    let kept = try await fixture.log(3, at: "2026-01-04T09:00").entry
    let dying = MoodEntriesUseCase(
      repository: fixture.repository, clock: fixture.clock, healthStore: LostStateOfMindStore(),
      currentUser: { "alice" })
    try await dying.delete(entry.id)
    #expect(try await fixture.healthStore.count(userID: "alice") == 2, "the sample outlived its entry")
    let reopened = SQLiteStateOfMindStore(writer: fixture.db)
    #expect(try await reopened.count(userID: "alice") == 1)
    let left = try await reopened.samples(userID: "alice", in: DateInterval(start: kept.date, duration: 1))
    #expect(left.map(\.id) == [kept.id])
    #expect(try reopened.removeSamplesOfDeletedEntries() == 0, "nothing left to remove")
  }

  @Test func theDeletionsTableIsAnAppendedMigration() throws {
    #expect(
      MoodSchema.migrations.prefix(4).map(\.identifier) == [
        "v1_progressEntries", "v2_moodEntries", "v3_healthSamplesOwed", "v4_moodEntryDeletions",
      ])
  }
}
