import FlowKit
import Foundation
import GRDB
import MoodTracking
import Testing
import WellflowComposition

@testable import MoodTrackingSQLite
@testable import Storage

/// The entries list reads summaries from the (user, date) index alone: they must say
/// what the whole entries say, and the read must stay on the index.
@Suite("Mood summaries for the entries list")
struct MoodSummariesTests {
  static let interval = DateInterval(
    start: moment("2026-01-01T00:00", "UTC"), end: moment("2026-01-06T00:00", "UTC"))

  @Test func summariesAreTheWholeEntriesSummedUpInTheSameOrder() async throws {
    let fixture = try SQLiteMoodFixture()
    try await fixture.log(7, notes: "walk", at: "2026-01-02T08:00")
    // Two at the same instant: the save order breaks the tie.
    try await fixture.log(3, at: "2026-01-03T20:00", kind: .momentaryEmotion)
    try await fixture.log(9, at: "2026-01-03T20:00", kind: .momentaryEmotion)
    try await fixture.log(5, at: "2026-01-05T07:00")
    // Outside the interval, and another user's.
    try await fixture.log(4, at: "2025-12-31T23:59")
    fixture.signIn("bob")
    try await fixture.log(6, at: "2026-01-02T09:00")
    // Stored labels as other versions wrote them: an older spelling first, a name this
    // version does not know first, and none at all.
    let all = try await fixture.repository.entries(userID: "alice", in: Self.interval)
    try await fixture.db.write { db in
      try db.execute(
        sql: "UPDATE mood_entries SET labels = 'depressed,calm' WHERE id = ?",
        arguments: [all[0].id.uuidString])
      try db.execute(
        sql: "UPDATE mood_entries SET labels = 'wistful,proud' WHERE id = ?",
        arguments: [all[1].id.uuidString])
      try db.execute(
        sql: "UPDATE mood_entries SET labels = '' WHERE id = ?", arguments: [all[2].id.uuidString])
    }

    let entries = try await fixture.repository.entries(userID: "alice", in: Self.interval)
    let summaries = try await fixture.repository.summaries(userID: "alice", in: Self.interval)
    #expect(entries.count == 4)
    #expect(summaries == entries.map(MoodEntrySummary.init))
    #expect(summaries.map(\.emotion) == [.hopeless, .proud, nil, entries[3].emotion])
    #expect(summaries.map(\.score) == [7, 3, 9, 5])
    #expect(try await fixture.repository.summaries(userID: "carol", in: Self.interval).isEmpty)
  }

  @Test func theReadUsesTheIndexAlone() throws {
    let fixture = try SQLiteMoodFixture()
    let plan = try fixture.db.read { db in
      try Row.fetchAll(
        db,
        sql: """
          EXPLAIN QUERY PLAN SELECT id, date, created_at, score, labels FROM mood_entries
          WHERE user_id = ? AND date >= ? AND date < ? ORDER BY date, save_seq
          """, arguments: ["alice", 0, 1]
      ).map { $0["detail"] as String }
    }
    #expect(
      plan == [
        "SEARCH mood_entries USING COVERING INDEX mood_entries_by_user_date (user_id=? AND date>? AND date<?)"
      ])
  }

  @Test func aDatabaseFromBeforeTheMigrationGetsTheIndexAndKeepsItsEntries() async throws {
    var earlier = OlderVersions.migrator(legacyTimeZone: TimeZone(identifier: "UTC")!)
    let queue = try DatabaseQueue()
    try earlier.migrate(queue, upTo: MoodSchema.moodEntriesWithoutChildTablesMigration)
    let fixture = try SQLiteMoodFixture(db: queue)
    try await fixture.log(7, at: "2026-01-02T08:00")
    try await fixture.log(2, at: "2026-01-04T08:00")
    let before = try await fixture.repository.entries(userID: "alice", in: Self.interval)
    earlier = WellflowFeatures.schema.migrator(legacyTimeZone: TimeZone(identifier: "UTC")!)
    try earlier.migrate(queue)
    #expect(try await fixture.repository.entries(userID: "alice", in: Self.interval) == before)
    #expect(
      try await fixture.repository.summaries(userID: "alice", in: Self.interval)
        == before.map(MoodEntrySummary.init))
    let columns = try await queue.read { db in
      try String.fetchAll(
        db, sql: "SELECT name FROM pragma_index_info('mood_entries_by_user_date') ORDER BY seqno")
    }
    #expect(columns == ["user_id", "date", "save_seq", "score", "created_at", "id", "labels"])
  }
}
