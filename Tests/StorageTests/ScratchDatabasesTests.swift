import FlowKit
import Foundation
import GRDB
import Journal
import MoodTracking
import Testing
import WellflowComposition

@testable import JournalSQLite
@testable import MoodTrackingSQLite
@testable import Storage

/// Reused scratch databases: a run must never see what an earlier run wrote, and a
/// database someone still holds must never go to another run.
@Suite("Reused scratch databases")
struct ScratchDatabasesTests {
  static func template() throws -> DatabaseQueue {
    let queue = try DatabaseQueue()
    try WellflowFeatures.schema.migrator(legacyTimeZone: TimeZone(identifier: "UTC")!).migrate(queue)
    return queue
  }

  /// Every table's rows, sorted, with the schema: what a run could observe.
  static func dump(_ queue: DatabaseQueue) throws -> [String] {
    try queue.read { db in
      let schema = try String.fetchAll(
        db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
      let tables = try String.fetchAll(
        db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      let rows = try tables.flatMap { table in
        try Row.fetchAll(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier)").map { "\(table): \($0)" }
          .sorted()
      }
      return schema + rows
    }
  }

  /// Writes through every adapter a run uses: moods (with outbox, labels and health
  /// samples), the journal, the key-value store. Returns the tables left non-empty.
  static func fill(_ queue: DatabaseQueue) async throws -> [String] {
    let database = try WellflowDatabase(writer: queue, schema: WellflowFeatures.schema)
    let fixture = try SQLiteMoodFixture(db: queue)
    try await fixture.log(7, notes: "a note")
    try await fixture.log(3, at: "2026-01-04T20:00", kind: .momentaryEmotion)
    let journal = SQLiteJournalRepository(database: database, clock: fixture.clock)
    try await journal.finish(
      JournalEntry(id: "j1", userID: "alice", createdAt: fixture.clock.now, primary: 1, initiatedBy: .self))
    try SQLiteKeyValueStore(database: database, userID: "alice").set("yes", forKey: "onboarding.completed")
    return try await queue.read { db in
      try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").filter
      {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0.quotedDatabaseIdentifier)")! > 0
      }
    }
  }

  @Test func aReleasedDatabaseComesBackHoldingExactlyWhatANewOneHolds() async throws {
    let pool = ScratchDatabases { try Self.template() }
    let expected = try Self.dump(Self.template())
    weak var first: DatabaseQueue?
    do {
      let queue = try pool.take()
      first = queue
      #expect(try Self.dump(queue) == expected)
      let written = try await Self.fill(queue)
      // The run really wrote: moods, their outbox rows, the journal and the settings.
      #expect(
        Set(["mood_entries", "mood_days", "outbox", "state_of_mind_samples", "journal_entries", "key_values"])
          .isSubset(of: Set(written)), "\(written)")
      #expect(try Self.dump(queue) != expected)
    }
    weak var second: DatabaseQueue?
    do {
      let again = try pool.take()
      second = again
      #expect(again === first, "the released database is reused")
      #expect(try Self.dump(again) == expected)
      // And it works as a new one does: the same writes succeed again, and are emptied again.
      _ = try await Self.fill(again)
    }
    let third = try pool.take()
    #expect(third === second)
    #expect(try Self.dump(third) == expected)
  }

  @Test func aDatabaseSomeoneHoldsIsNeverHandedOut() async throws {
    let pool = ScratchDatabases { try Self.template() }
    let held = try pool.take()
    _ = try await Self.fill(held)
    let before = try Self.dump(held)
    let other = try pool.take()
    #expect(other !== held)
    #expect(try Self.dump(held) == before, "the held database was not emptied")
    // An adapter holding the writer is enough to keep it.
    let repository = SQLiteMoodRepository(writer: other)
    let otherID = ObjectIdentifier(other)
    _ = consume other
    let third = try pool.take()
    #expect(ObjectIdentifier(third) != otherID)
    withExtendedLifetime(repository) {}
  }
}
