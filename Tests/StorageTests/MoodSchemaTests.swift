import Foundation
import GRDB
import MoodTracking
import Storage
import Testing
import WellflowComposition

@testable import MoodTrackingSQLite

@Suite struct MoodSchemaTests {
  /// A database as the original implementation left it: the first schema version only.
  func legacyDatabase() throws -> (DatabaseQueue, DatabaseMigrator) {
    let queue = try DatabaseQueue()
    let migrator = OlderVersions.migrator(legacyTimeZone: TimeZone(identifier: "Europe/Berlin")!)
    try migrator.migrate(queue, upTo: MoodSchema.progressEntriesMigration)
    try queue.write { db in
      let rows: [(String, String, String, Double, String, String?, String)] = [
        (
          "0B0E2F3A-0000-4000-8000-000000000001", "alice", "mood_score", 8, "2025-12-01 08:00:00.000",
          "excited!", "synced"
        ),
        (
          "0B0E2F3A-0000-4000-8000-000000000002", "alice", "mood_score", 2, "2025-12-01 22:30:00.000", "  ",
          "pending"
        ),
        ("legacy-3", "alice", "mood_score", 1, "2025-12-02", "so lonely", "pending"),
        ("legacy-4", "alice", "steps", 9_000, "2025-12-02 10:00:00.000", nil, "synced"),
        ("legacy-5", "bob", "mood_score", 5, "2025-12-01 09:00:00.000", nil, "synced"),
      ]
      for (id, user, type, quantity, date, notes, status) in rows {
        try db.execute(
          sql: """
            INSERT INTO progress_entries
              (id, user_id, type, quantity, date, notes, sync_status, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [id, user, type, quantity, date, notes, status, date, date])
      }
    }
    return (queue, migrator)
  }

  @Test func migratingALegacyDatabaseConvertsMoodScores() async throws {
    let (queue, migrator) = try legacyDatabase()
    try migrator.migrate(queue)
    let repository = SQLiteMoodRepository(writer: queue)
    let all = DateInterval(start: moment("2025-11-01T00:00"), end: moment("2026-01-01T00:00"))
    let alice = try await repository.entries(userID: "alice", in: all)
    #expect(alice.map(\.score) == [8, 2, 1])
    #expect(
      alice.map(\.labels) == [
        [.happy, .confident, .excited], [.anxious, .worried], [.sad, .hopeless, .lonely],
      ])
    #expect(abs(alice[0].valence - 0.5556) < 0.0001)
    #expect(alice[0].notes == "excited!")
    #expect(alice[1].notes == nil)
    #expect(alice[2].notes == "so lonely")
    // 22:30 UTC on Dec 1 is 23:30 in Berlin: still Dec 1, so the day's later row is its daily mood.
    #expect(alice.map(\.day) == [day("2025-12-01"), day("2025-12-01"), day("2025-12-02")])
    #expect(alice.map(\.kind) == [.momentaryEmotion, .dailyMood, .dailyMood])
    #expect(alice[0].id.uuidString == "0B0E2F3A-0000-4000-8000-000000000001")
    #expect(alice[0].syncStatus == .synced)
    #expect(alice[0].backendID == "0B0E2F3A-0000-4000-8000-000000000001")
    #expect(alice[1].syncStatus == .pending)
    // A date-only legacy row is that day in the user's zone.
    #expect(alice[2].date == moment("2025-12-02T00:00", "Europe/Berlin"))
    #expect(try await repository.count(userID: "bob") == 1)
    let outbox = SQLiteOutbox(writer: queue, entities: WellflowFeatures.schema.outboxEntities)
    #expect(try await outbox.pendingCount(userID: "alice") == 2)
    #expect(try await outbox.pendingCount(userID: "bob") == 0)
    // Nothing lost: the progress rows are all still there.
    #expect(try await queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM progress_entries") } == 5)
  }

  @Test func runningTheConversionAgainCreatesNothing() throws {
    let (queue, migrator) = try legacyDatabase()
    try migrator.migrate(queue)
    let snapshot = try queue.read { db in
      try Row.fetchAll(db, sql: "SELECT * FROM mood_entries ORDER BY id")
    }
    let created = try queue.write { db in
      try MoodSchema.convertLegacyMoodScores(db, timeZone: TimeZone(identifier: "Europe/Berlin")!)
    }
    #expect(created == 0)
    #expect(
      try queue.read { try Row.fetchAll($0, sql: "SELECT * FROM mood_entries ORDER BY id") } == snapshot)
    #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM outbox") } == 2)
    try migrator.migrate(queue)
    #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM mood_entries") } == 4)
  }

  @Test func aLegacyRowAddedLaterIsConvertedOnce() async throws {
    let (queue, migrator) = try legacyDatabase()
    try migrator.migrate(queue)
    try await queue.write { db in
      try db.execute(
        sql: """
          INSERT INTO progress_entries (id, user_id, type, quantity, date, sync_status, created_at, updated_at)
          VALUES ('late', 'alice', 'mood_score', 12, '2025-12-03', 'pending', '2025-12-03', '2025-12-03')
          """)
      #expect(try MoodSchema.convertLegacyMoodScores(db, timeZone: TimeZone(identifier: "UTC")!) == 1)
      #expect(try MoodSchema.convertLegacyMoodScores(db, timeZone: TimeZone(identifier: "UTC")!) == 0)
    }
    let latest = try await SQLiteMoodRepository(writer: queue).latest(userID: "alice")
    #expect(latest?.score == 10)  // out-of-range legacy quantities are clamped into 1…10
  }

  @Test func theSchemaHasTheIndexesTheQueriesNeed() throws {
    let queue = try migratedQueue()
    let detail = try queue.read { db in
      try Row.fetchAll(
        db,
        sql: """
          EXPLAIN QUERY PLAN SELECT COUNT(*), AVG(score), MAX(score), MIN(score) FROM mood_entries
          WHERE user_id = 'a' AND date >= 0 AND date < 1
          """
      ).map { $0["detail"] as String }.joined(separator: "\n")
    }
    #expect(detail.contains("COVERING INDEX mood_entries_by_user_date"))
  }
}
