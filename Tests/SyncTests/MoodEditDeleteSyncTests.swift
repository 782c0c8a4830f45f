import FlowKit
import Foundation
import MoodTracking
import MoodTrackingSQLite
import MoodTrackingSync
import ProgressBackend
import Storage
import Sync
import Testing

/// Edits and deletes from the entries list, through the SQLite outbox, against the real
/// server: the backend gets each entity's latest state once (`PUT` when it has the
/// entry), a `DELETE` for an entry it has, and nothing for one it never had.
@Suite struct MoodEditDeleteSyncTests {
  /// The writes the server saw, as `METHOD path` (the tests' own reads left out).
  final class RequestLog: Sendable {
    let lines = Locked<[String]>([])
    func take() -> [String] {
      lines.withLock { lines in
        defer { lines = [] }
        return lines.filter { !$0.hasPrefix("GET ") }
      }
    }
  }

  struct World {
    let backend: TestBackend
    let log: RequestLog
    let clock = testClock()
    let database: WellflowDatabase
    let repository: SQLiteMoodRepository
    let outbox: SQLiteOutbox
    let health: SQLiteStateOfMindStore

    var save: SaveMoodUseCase {
      SaveMoodUseCase(repository: repository, clock: clock, healthStore: health, currentUser: { "alice" })
    }
    var entries: MoodEntriesUseCase {
      MoodEntriesUseCase(repository: repository, clock: clock, healthStore: health, currentUser: { "alice" })
    }

    /// One pass; `maxBatchItems` 1 sends each row with its own request.
    func sync(maxBatchItems: Int = 1) async throws -> SyncReport {
      try await OutboxProcessor(
        outbox: outbox, api: backend.client("alice"), clock: clock, maxBatchItems: maxBatchItems
      ).run(userID: "alice", ignoringBackoff: true)
    }

    func backendRows() async throws -> [ProgressRecord] {
      try await backend.client("alice").listProgress(ListQuery(limit: 100)).entries
    }
  }

  func world() async throws -> World {
    let log = RequestLog()
    let backend = try await TestBackend.start(fault: { method, path in
      log.lines.withLock { $0.append("\(method) \(path)") }
      return nil
    })
    let (database, _) = try makeAppDatabase()
    return World(
      backend: backend, log: log, database: database,
      repository: SQLiteMoodRepository(writer: database.writer),
      outbox: SQLiteOutbox(database: database), health: SQLiteStateOfMindStore(writer: database.writer))
  }

  @Test func editsBeforeTheFirstSendAreOneCreateOfTheLatestState() async throws {
    let world = try await world()
    defer { Task { await world.backend.stop() } }
    let entry = try await world.save.save(SaveMoodRequest(score: 5, notes: "first")).entry
    for score in [8, 9] {
      _ = try await world.entries.update(
        entry.id, with: MoodEntryEdit(score: score, labels: [.excited], associations: [.work], notes: "later")
      )
    }
    #expect(try await world.outbox.pendingCount(userID: "alice") == 1)
    let report = try await world.sync()
    #expect(report.synced == 1 && report.failed == 0)
    #expect(world.log.take() == ["POST /api/v1/progress"])
    let rows = try await world.backendRows()
    #expect(rows.map(\.quantity) == [9])
    #expect(rows.first?.notes == "later")
    #expect(rows.first?.entryID == entry.id.uuidString)
    let stored = try #require(try await world.repository.entry(id: entry.id, userID: "alice"))
    #expect(stored.backendID == rows.first?.id)
    #expect(stored.syncStatus == .synced)
  }

  @Test func editsAfterASendAreOnePutOfTheLatestState() async throws {
    let world = try await world()
    defer { Task { await world.backend.stop() } }
    let entry = try await world.save.save(SaveMoodRequest(score: 5)).entry
    _ = try await world.sync()
    let backendID = try #require(try await world.backendRows().first?.id)
    _ = world.log.take()
    world.clock.advance(by: 60)
    for score in [2, 3] {
      _ = try await world.entries.update(
        entry.id,
        with: MoodEntryEdit(score: score, labels: [.sad], associations: [], notes: "rain, \"all\" day"))
    }
    let report = try await world.sync()
    #expect(report.synced == 1 && report.failed == 0)
    #expect(world.log.take() == ["PUT /api/v1/progress/\(backendID)"])
    let rows = try await world.backendRows()
    #expect(rows.map(\.id) == [backendID])
    #expect(rows.map(\.quantity) == [3])
    #expect(rows.first?.notes == "rain, \"all\" day")
    #expect(try await world.outbox.pendingCount(userID: "alice") == 0)
    // Through the batch endpoint too: one item, a PUT.
    _ = try await world.entries.update(
      entry.id, with: MoodEntryEdit(score: 4, labels: [.irritated], associations: [], notes: nil))
    #expect(try await world.sync(maxBatchItems: 100).synced == 1)
    #expect(world.log.take() == ["POST /api/v1/progress/batch"])
    #expect(try await world.backendRows().map(\.quantity) == [4])
  }

  @Test func aDeleteTheBackendHasIsSentOnceAndNotPulledBack() async throws {
    let world = try await world()
    defer { Task { await world.backend.stop() } }
    let kept = try await world.save.save(SaveMoodRequest(score: 7, kind: .momentaryEmotion)).entry
    let gone = try await world.save.save(SaveMoodRequest(score: 2, kind: .momentaryEmotion)).entry
    _ = try await world.sync()
    let goneID = try #require(try await world.repository.entry(id: gone.id, userID: "alice")?.backendID)
    _ = world.log.take()
    try await world.entries.delete(gone.id)
    #expect(try await world.health.count(userID: "alice") == 1)
    #expect(try await world.repository.count(userID: "alice") == 1)
    let report = try await world.sync()
    #expect(report.synced == 1 && report.failed == 0)
    #expect(world.log.take() == ["DELETE /api/v1/progress/\(goneID)"])
    #expect(try await world.backendRows().map(\.entryID) == [kept.id.uuidString])
    #expect(try await world.outbox.pendingCount(userID: "alice") == 0)
    // Pulling finds nothing new: the kept entry is known and the deleted one is gone.
    let pull = try await MoodPull(
      api: world.backend.client("alice"), repository: world.repository, clock: world.clock
    )
    .run(userID: "alice")
    #expect(pull.imported == 0)
    #expect(try await world.repository.count(userID: "alice") == 1)
  }

  @Test func aPullBeforeTheDeleteIsSentDoesNotBringTheEntryBack() async throws {
    let world = try await world()
    defer { Task { await world.backend.stop() } }
    let entry = try await world.save.save(SaveMoodRequest(score: 6)).entry
    _ = try await world.sync()
    try await world.entries.delete(entry.id)
    let pull = try await MoodPull(
      api: world.backend.client("alice"), repository: world.repository, clock: world.clock
    )
    .run(userID: "alice")
    #expect(pull.imported == 0)
    #expect(try await world.repository.count(userID: "alice") == 0)
    #expect(try await world.sync().synced == 1)
    #expect(try await world.backendRows().isEmpty)
  }

  @Test func anEntryTheBackendNeverHadIsDroppedFromTheOutbox() async throws {
    let world = try await world()
    defer { Task { await world.backend.stop() } }
    let entry = try await world.save.save(SaveMoodRequest(score: 6, notes: "oops")).entry
    _ = try await world.entries.update(
      entry.id, with: MoodEntryEdit(score: 7, labels: [.happy], associations: [], notes: nil))
    try await world.entries.delete(entry.id)
    #expect(try await world.outbox.pendingCount(userID: "alice") == 0)
    let report = try await world.sync()
    #expect(report.synced == 0 && report.failed == 0)
    #expect(world.log.take().isEmpty, "no request at all")
    #expect(try await world.backendRows().isEmpty)
    #expect(try await world.health.count(userID: "alice") == 0)
  }

  @Test func aDeleteTheBackendAlreadyLostIsDone() async throws {
    let world = try await world()
    defer { Task { await world.backend.stop() } }
    let entry = try await world.save.save(SaveMoodRequest(score: 6)).entry
    _ = try await world.sync()
    let backendID = try #require(try await world.backendRows().first?.id)
    // Deleted elsewhere first.
    try await world.backend.client("alice").deleteProgress(id: backendID, idempotencyKey: "elsewhere")
    try await world.entries.delete(entry.id)
    let report = try await world.sync()
    #expect(report.synced == 1 && report.failed == 0)
    #expect(try await world.outbox.pendingCount(userID: "alice") == 0)
    #expect(try await world.outbox.failedCount(userID: "alice") == 0)
  }

  @Test func aCreateWhoseAnswerWasLostIsDeletedOnTheBackendAfterThePull() async throws {
    let world = try await world()
    defer { Task { await world.backend.stop() } }
    let entry = try await world.save.save(SaveMoodRequest(score: 6)).entry
    let row = try #require(try await world.outbox.pending(userID: "alice", dueAt: nil, limit: 1).first)
    // The create reaches the backend but its answer is lost: the outbox never learns the id.
    let created = try await world.backend.client("alice").createProgress(
      body: MoodTrackingSync.body(payload: row.payload),
      idempotencyKey: MoodTrackingSync.resource.idempotencyKey(for: row))
    try await world.entries.delete(entry.id)
    #expect(try await world.outbox.pendingCount(userID: "alice") == 0, "no backend id known: the row went")
    let pull = MoodPull(api: world.backend.client("alice"), repository: world.repository, clock: world.clock)
    #expect(try await pull.run(userID: "alice").imported == 0)
    let queued = try await world.outbox.pending(userID: "alice", dueAt: nil, limit: 10)
    #expect(queued.map(\.operation) == [.delete])
    #expect(queued.map(\.backendID) == [created.id])
    #expect(queued.map(\.entityID) == [entry.id.uuidString])
    _ = world.log.take()
    #expect(try await world.sync().synced == 1)
    #expect(world.log.take() == ["DELETE /api/v1/progress/\(created.id)"])
    #expect(try await world.backendRows().isEmpty)
    #expect(try await pull.run(userID: "alice").imported == 0)
    #expect(try await world.outbox.pendingCount(userID: "alice") == 0)
    #expect(try await world.repository.count(userID: "alice") == 0)
  }
}
