import FlowKit
import Foundation
import GRDB
import MoodTracking
import Storage
import Testing
import WellflowComposition

@testable import MoodTrackingSQLite

/// What recording a send's result does to the SQLite outbox: a synced row leaves it in
/// the same transaction that gives its entity the backend's id, and a batch's results
/// are one transaction.
@Suite struct OutboxResultTests {
  /// Counts the write transactions committed on a database.
  final class CommitCounter: TransactionObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var commits: Int { lock.withLock { count } }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { lock.withLock { count += 1 } }
    func databaseDidRollback(_ db: Database) {}
  }

  /// A data folder's file gives the pages of synced rows back: a backlog of thousands
  /// must not keep its size once sent.
  @Test func syncedRowsPagesGoBackToTheFileSystem() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "wf-vacuum-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let database = try WellflowDatabase.open(directory: directory, schema: WellflowFeatures.schema)
    #expect(try await database.writer.read { try Int.fetchOne($0, sql: "PRAGMA auto_vacuum") } == 2)
    let fixture = try SQLiteMoodFixture(db: database.writer)
    for minute in 0..<400 {
      fixture.clock.advance(by: 60)
      try await fixture.log(
        5, notes: String(repeating: "n", count: 400), kind: minute == 0 ? .dailyMood : .momentaryEmotion)
    }
    let pending = try await fixture.outbox.pending(userID: "alice", dueAt: nil, limit: 1_000)
    #expect(pending.count == 400)
    try await fixture.outbox.record(
      pending.map {
        OutboxResult(id: $0.id, outcome: .synced(revision: $0.revision, backendID: "b-\($0.entityID)"))
      })
    #expect(try fixture.count("SELECT COUNT(*) FROM outbox") == 0)
    #expect(try fixture.count("PRAGMA freelist_count") == 0)
  }

  @Test func aSyncedRowLeavesTheOutboxAndItsEntryKeepsTheBackendID() async throws {
    let fixture = try SQLiteMoodFixture()
    let entry = try await fixture.log(6).entry
    let sent = try #require(try await fixture.outbox.pending(userID: "alice", dueAt: nil, limit: 1).first)
    try await fixture.outbox.record([
      OutboxResult(id: sent.id, outcome: .synced(revision: sent.revision, backendID: "b-6"))
    ])
    #expect(try fixture.count("SELECT COUNT(*) FROM outbox") == 0)
    let synced = try #require(try await fixture.repository.entry(id: entry.id, userID: "alice"))
    #expect(synced.backendID == "b-6" && synced.syncStatus == .synced)
    // The queries keep their meaning.
    #expect(try await fixture.outbox.pendingCount(userID: "alice") == 0)
    #expect(try await fixture.outbox.failedCount(userID: "alice") == 0)
    // The next change of the day's mood is an update addressed by the entry's backend id.
    fixture.clock.advance(by: 60)
    try await fixture.log(8)
    let next = try await fixture.outbox.pending(userID: "alice", dueAt: nil, limit: 10)
    #expect(next.map(\.operation) == [.update] && next.map(\.backendID) == ["b-6"])
    #expect(next.first?.id != sent.id)
  }

  @Test func aBatchsResultsAreOneTransactionEachAsItsOwnCallWouldBe() async throws {
    let fixture = try SQLiteMoodFixture()
    var entries: [MoodEntry] = []
    for (minutes, score) in [1, 2, 3, 4].enumerated() {
      fixture.clock.advance(by: 60)
      entries.append(
        try await fixture.log(score, at: "2026-01-05T0\(minutes + 1):00", kind: .momentaryEmotion).entry)
    }
    let rows = try await fixture.outbox.pending(userID: "alice", dueAt: nil, limit: 10)
    #expect(rows.map(\.entityID) == entries.map(\.id.uuidString))
    // The fourth entry changes while its row is in flight: a newer revision to send.
    fixture.clock.advance(by: 60)
    var changed = entries[3]
    changed.score = 9
    try await fixture.repository.save(
      changed, outbox: .mood(changed, operation: .update, id: UUID(), now: fixture.clock.now))

    let counter = CommitCounter()
    try await fixture.db.write { db in db.add(transactionObserver: counter, extent: .databaseLifetime) }
    let before = counter.commits
    let retryAt = fixture.clock.now.addingTimeInterval(30)
    try await fixture.outbox.record([
      OutboxResult(id: rows[0].id, outcome: .synced(revision: rows[0].revision, backendID: "b-1")),
      OutboxResult(id: rows[1].id, outcome: .failed(reason: "the backend refused the request (400): no")),
      OutboxResult(id: rows[2].id, outcome: .retry(at: retryAt, reason: "the backend failed (503): busy")),
      OutboxResult(id: rows[3].id, outcome: .synced(revision: rows[3].revision, backendID: "b-4")),
    ])
    #expect(counter.commits == before + 1)

    #expect(try fixture.count("SELECT COUNT(*) FROM outbox") == 3)
    func entry(_ index: Int) async throws -> MoodEntry? {
      try await fixture.repository.entry(id: entries[index].id, userID: "alice")
    }
    let (first, second, third, fourth) = (
      try await entry(0), try await entry(1), try await entry(2), try await entry(3)
    )
    #expect(first?.backendID == "b-1" && first?.syncStatus == .synced)
    #expect(second?.syncStatus == .failed && second?.backendID == nil)
    #expect(third?.syncStatus == .pending)
    // The backend has the old revision only: the row stays, with the id for the newer one.
    #expect(fourth?.backendID == "b-4" && fourth?.syncStatus == .pending)
    let pending = try await fixture.outbox.pending(userID: "alice", dueAt: nil, limit: 10)
    #expect(pending.map(\.id) == [rows[2].id, rows[3].id])
    #expect(pending[0].attempts == 1 && pending[0].nextAttemptAt == retryAt)
    #expect(pending[0].lastError == "the backend failed (503): busy")
    #expect(pending[1].backendID == "b-4" && pending[1].revision == 2 && pending[1].lastError == nil)
    #expect(pending[1].payload.contains(#""score":9"#))
    #expect(try await fixture.outbox.failedCount(userID: "alice") == 1)

    // A result for a row no longer there (another device's sync took it) changes nothing.
    try await fixture.outbox.record([
      OutboxResult(id: rows[0].id, outcome: .synced(revision: 1, backendID: "other")),
      OutboxResult(id: UUID(), outcome: .failed(reason: "gone")),
    ])
    #expect(try await entry(0)?.backendID == "b-1")
    #expect(try fixture.count("SELECT COUNT(*) FROM outbox") == 3)
  }

  @Test func aJournalRowLeavesTheOutboxOnceSynced() async throws {
    let outbox = SQLiteOutbox(writer: try migratedQueue(), entities: WellflowFeatures.schema.outboxEntities)
    let row = OutboxRow(
      id: UUID(), userID: "alice", entity: .journal, entityID: "j-1", operation: .create, payload: "{}",
      nextAttemptAt: Date(timeIntervalSince1970: 10), createdAt: Date(timeIntervalSince1970: 10))
    try await outbox.enqueue(row)
    try await outbox.markSynced(id: row.id, revision: 1, backendID: "b-j")
    #expect(try await outbox.pending(userID: "alice", dueAt: nil, limit: 10).isEmpty)
    #expect(try await outbox.pendingCount(userID: "alice") == 0)
  }

  @Test func upgradingDropsTheSyncedRowsKeptBefore() throws {
    let queue = try DatabaseQueue()
    let migrator = OlderVersions.migrator(legacyTimeZone: TimeZone(identifier: "UTC")!)
    try migrator.migrate(queue, upTo: "moodEntriesByBackendID")
    try queue.write { db in
      for (index, status) in ["synced", "synced", "pending", "failed"].enumerated() {
        try db.execute(
          sql: """
            INSERT INTO outbox (id, user_id, entity, entity_id, operation, payload, revision, attempts,
              next_attempt_at, status, created_at)
            VALUES (?, 'alice', 'mood', ?, 'create', '{}', 1, 0, 0, ?, ?)
            """, arguments: [UUID().uuidString, "e-\(index)", status, Double(index)])
      }
    }
    try migrator.migrate(queue)
    let statuses = try queue.read {
      try String.fetchAll($0, sql: "SELECT status FROM outbox ORDER BY created_at")
    }
    #expect(statuses == ["pending", "failed"])
  }
}
