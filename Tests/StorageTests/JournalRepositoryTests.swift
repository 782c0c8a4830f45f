import FlowKit
import Foundation
import GRDB
import Journal
import MoodTracking
import Storage
import Testing
import WellflowComposition

@testable import JournalSQLite

@Suite("SQLite journal repository")
struct JournalRepositoryTests {
  let database: WellflowDatabase
  let clock = ManualClock(
    now: Date(timeIntervalSince1970: 1_772_438_400), timeZone: TimeZone(identifier: "UTC")!)
  let repository: SQLiteJournalRepository

  init() throws {
    database = try WellflowDatabase.inMemory(schema: WellflowFeatures.schema)
    repository = SQLiteJournalRepository(database: database, clock: clock)
  }

  func entry(_ id: String, user: String = "alice", at seconds: Double = 0, primary: Int = 1) -> JournalEntry {
    JournalEntry(
      id: id, userID: user, createdAt: clock.now.addingTimeInterval(seconds), primary: primary,
      initiatedBy: .self)
  }

  func outboxRows() throws -> [Row] {
    try database.writer.read { db in try Row.fetchAll(db, sql: "SELECT * FROM outbox ORDER BY created_at") }
  }

  @Test func savingUpdatesTheEntryAndWritesNoOutboxRowUntilTheFlowEnds() async throws {
    var journal = entry("j1")
    try await repository.save(journal)
    journal.secondary = 7
    try await repository.save(journal)
    #expect(try await repository.count(userID: "alice") == 1)
    #expect(try await repository.latest(userID: "alice")?.secondary == 7)
    #expect(try outboxRows().isEmpty)

    journal.strategy = 3
    try await repository.finish(journal)
    let rows = try outboxRows()
    #expect(rows.count == 1)
    #expect(rows.first?["entity"] == "journal")
    #expect(rows.first?["entity_id"] == "j1")
    #expect(rows.first?["status"] == "pending")
    let payload = try #require((rows.first?["payload"] as String?).map { Data($0.utf8) })
    // The entry in the journal's own words; JournalSync makes the body (JournalSyncTests).
    let kept = try JSONDecoder().decode(JournalSyncPayload.self, from: payload)
    #expect(kept.primary == 1 && kept.secondary == 7 && kept.strategy == 3)
    #expect(kept.initiatedBy == .self)
    #expect(kept.createdAt == "2026-03-02T08:00:00Z")
  }

  @Test func latestIsTheLatestDateThenTheOneSavedLast() async throws {
    try await repository.save(entry("early", at: -60, primary: 1))
    try await repository.save(entry("tieA", primary: 2))
    try await repository.save(entry("tieB", primary: 3))
    #expect(try await repository.latest(userID: "alice")?.id == "tieB")
    try await repository.save(entry("tieA", primary: 4))
    #expect(try await repository.latest(userID: "alice")?.id == "tieA")
  }

  @Test func anotherUserSeesNothing() async throws {
    try await repository.finish(entry("j1"))
    #expect(try await repository.count(userID: "bob") == 0)
    #expect(try await repository.latest(userID: "bob") == nil)
    // Bob cannot overwrite Alice's entry by reusing its id.
    try await repository.save(entry("j1", user: "bob", primary: 9))
    #expect(try await repository.latest(userID: "alice")?.primary == 1)
  }

  @Test func entriesLeftOpenWhenTheAppQuitAreQueuedOnceAtTheNextStart() async throws {
    try await repository.save(entry("open"))
    try await repository.finish(entry("done", at: 10))
    #expect(try outboxRows().count == 1)
    #expect(try repository.queueUnfinished(userID: "alice") == 1)
    #expect(try outboxRows().map { $0["entity_id"] as String } == ["done", "open"])
    #expect(try repository.queueUnfinished(userID: "alice") == 0)
    #expect(try outboxRows().count == 2)
  }
}
