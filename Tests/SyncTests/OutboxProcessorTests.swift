import FlowKit
import FlowKitTesting
import Foundation
import MoodTracking
import Sync
import Testing

/// A backend in memory that records calls and answers as told.
final class FakeProgressAPI: ProgressAPI {
  struct Call: Equatable {
    var method: String
    var id: String?
    var key: String?
  }

  private let state = Locked<(calls: [Call], failures: [ProgressAPIError], next: Int)>(([], [], 0))

  var calls: [Call] { state.current.calls }

  /// The next requests fail with these, in order; then requests succeed.
  func fail(with errors: ProgressAPIError...) { state.withLock { $0.failures += errors } }

  private func answer(_ call: Call) throws(ProgressAPIError) -> String {
    let result: Result<String, ProgressAPIError> = state.withLock { state in
      state.calls.append(call)
      if !state.failures.isEmpty { return .failure(state.failures.removeFirst()) }
      state.next += 1
      return .success(call.id ?? "b\(state.next)")
    }
    return try result.get()
  }

  private func record(_ id: String) -> ProgressRecord {
    ProgressRecord(id: id, type: "mood_score", quantity: 5, date: "2026-03-02")
  }

  func createProgress(body: Data, idempotencyKey: String?) async throws(ProgressAPIError) -> ProgressRecord {
    record(try answer(Call(method: "POST", id: nil, key: idempotencyKey)))
  }

  func updateProgress(id: String, body: Data, idempotencyKey: String?) async throws(ProgressAPIError)
    -> ProgressRecord
  {
    record(try answer(Call(method: "PUT", id: id, key: idempotencyKey)))
  }

  func deleteProgress(id: String, idempotencyKey: String?) async throws(ProgressAPIError) {
    _ = try answer(Call(method: "DELETE", id: id, key: idempotencyKey))
  }

  func listProgress(_ query: ListQuery) async throws(ProgressAPIError) -> Page<ProgressRecord> {
    Page(entries: [], total: 0, limit: 50, offset: 0)
  }

  func createJournal(body: Data, idempotencyKey: String?) async throws(ProgressAPIError) -> JournalRecord {
    JournalRecord(
      id: try answer(Call(method: "POST journal", id: nil, key: idempotencyKey)), createdAt: "",
      curriculumID: 1,
      initiatedBy: "self")
  }

  func listJournal(_ query: ListQuery) async throws(ProgressAPIError) -> Page<JournalRecord> {
    Page(entries: [], total: 0, limit: 50, offset: 0)
  }
}

@Suite struct OutboxProcessorTests {
  let clock = testClock()

  func row(
    _ entity: String, _ operation: OutboxOperation = .create, backendID: String? = nil, minutesAgo: Double,
    kind: OutboxEntity = .mood
  ) -> OutboxRow {
    let created = clock.now.addingTimeInterval(-minutesAgo * 60)
    return OutboxRow(
      id: UUID(), userID: "alice", entity: kind, entityID: entity, operation: operation, payload: "{}",
      backendID: backendID, nextAttemptAt: created, createdAt: created)
  }

  @Test func sendsOldestFirstWithTheRightMethodAndMarksSynced() async throws {
    let outbox = InMemoryOutbox()
    let (a, b, c) = (
      row("a", minutesAgo: 3), row("b", .update, backendID: "b-b", minutesAgo: 2),
      row("c", .delete, backendID: "b-c", minutesAgo: 1)
    )
    outbox.enqueue(c)
    outbox.enqueue(a)
    outbox.enqueue(b)
    outbox.enqueue(row("j", minutesAgo: 0.5, kind: .journal))
    outbox.enqueue(row("d", .delete, minutesAgo: 0.1))
    // A fake without batches: every row goes alone, as to an older backend.
    let api = FakeProgressAPI()
    let processor = OutboxProcessor(outbox: outbox, api: api, clock: clock)
    let report = try await processor.run(userID: "alice")
    #expect(report.synced == 5 && report.stop == nil)
    // A mood's key names its outbox row too (a change after a sync is a new row); a
    // journal entry's is `entity:revision`.
    let key = { (row: OutboxRow) in "\(row.entityID):\(row.id.uuidString.lowercased()):\(row.revision)" }
    #expect(
      api.calls == [
        .init(method: "POST", id: nil, key: key(a)), .init(method: "PUT", id: "b-b", key: key(b)),
        .init(method: "DELETE", id: "b-c", key: key(c)), .init(method: "POST journal", id: nil, key: "j:1"),
      ])
    #expect(outbox.pendingCount(userID: "alice") == 0)
    #expect(outbox.all.first { $0.entityID == "a" }?.backendID == "b1")
  }

  @Test func a400ParksTheRowAsFailedWithTheReason() async throws {
    let outbox = InMemoryOutbox()
    outbox.enqueue(row("a", minutesAgo: 2))
    outbox.enqueue(row("b", minutesAgo: 1))
    let api = FakeProgressAPI()
    api.fail(with: .badRequest("quantity must be 0 or more, got -1"))
    let events = InMemoryAnalyticsSink()
    let report = try await OutboxProcessor(outbox: outbox, api: api, clock: clock, analytics: events)
      .run(userID: "alice")
    #expect(report.failed == 1 && report.synced == 1)
    let failed = try #require(outbox.all.first { $0.entityID == "a" })
    #expect(failed.status == .failed)
    #expect(failed.lastError == "the backend refused the request (400): quantity must be 0 or more, got -1")
    #expect(outbox.failedCount(userID: "alice") == 1)
    #expect(events.events.map(\.event) == ["sync_failed", "sync_succeeded"])
    #expect(events.events[0].fields["permanent"] == .bool(true))
    // A failed row is not tried again.
    _ = try await OutboxProcessor(outbox: outbox, api: api, clock: clock).run(
      userID: "alice", ignoringBackoff: true)
    #expect(api.calls.count == 2)
  }

  @Test func aTransientFailureBacksOffExponentiallyWithInjectedJitter() async throws {
    let outbox = InMemoryOutbox()
    outbox.enqueue(row("a", minutesAgo: 1))
    let api = FakeProgressAPI()
    api.fail(with: .server(status: 503, message: "busy"), .server(status: 500, message: "oops"))
    let policy = RetryPolicy(baseDelay: 10, maxDelay: 3_600, jitter: 0.5)
    let processor = OutboxProcessor(outbox: outbox, api: api, clock: clock, policy: policy, random: { 0.75 })
    var report = try await processor.run(userID: "alice")
    #expect(report.retrying == 1)
    // 10 s × 2⁰, spread by +25 % (random 0.75 with ±50 % jitter).
    #expect(outbox.all[0].nextAttemptAt == clock.now.addingTimeInterval(12.5))
    #expect(outbox.all[0].attempts == 1)
    #expect(outbox.all[0].lastError == "the backend failed (503): busy")
    // Not due yet: a pass that honours backoff leaves it alone.
    report = try await processor.run(userID: "alice")
    #expect(api.calls.count == 1 && report.synced == 0)
    clock.advance(by: 13)
    report = try await processor.run(userID: "alice")
    #expect(outbox.all[0].nextAttemptAt == clock.now.addingTimeInterval(25))  // 10 × 2¹ × 1.25
    clock.advance(by: 25)
    report = try await processor.run(userID: "alice")
    #expect(report.synced == 1)
    #expect(outbox.pendingCount(userID: "alice") == 0)
  }

  @Test func backoffIsCappedAndJitterStaysInItsBand() {
    let policy = RetryPolicy(baseDelay: 5, maxDelay: 60, jitter: 0.2)
    #expect(policy.delay(afterAttempts: 0, random: 0.5) == 5)
    #expect(policy.delay(afterAttempts: 3, random: 0.5) == 40)
    #expect(policy.delay(afterAttempts: 10, random: 0.5) == 60)
    #expect(policy.delay(afterAttempts: 100, random: 0) == 48)
    #expect(policy.delay(afterAttempts: 100, random: 1) == 72)
  }

  @Test func offlineSendsNothingAndLeavesEveryRowPending() async throws {
    let outbox = InMemoryOutbox()
    outbox.enqueue(row("a", minutesAgo: 2))
    outbox.enqueue(row("b", minutesAgo: 1))
    let api = FakeProgressAPI()
    let network = NetworkSwitch(isOnline: false)
    let processor = OutboxProcessor(outbox: outbox, api: api, clock: clock, connectivity: network)
    let report = try await processor.run(userID: "alice", ignoringBackoff: true)
    #expect(report.stop == .offline && report.untried == 2)
    #expect(api.calls.isEmpty)
    #expect(outbox.all.allSatisfy { $0.attempts == 0 && $0.status == .pending })
    network.set(online: true)
    #expect(try await processor.run(userID: "alice").synced == 2)
  }

  @Test func anUnreachableBackendEndsThePassAndTheRestWaitsUntouched() async throws {
    let outbox = InMemoryOutbox()
    for index in 0..<5 { outbox.enqueue(row("e\(index)", minutesAgo: Double(10 - index))) }
    let api = FakeProgressAPI()
    api.fail(with: .unreachable("connection refused"))
    let report = try await OutboxProcessor(outbox: outbox, api: api, clock: clock).run(userID: "alice")
    #expect(report.retrying == 1 && report.untried == 4 && report.synced == 0)
    #expect(report.stop == .backendUnavailable("the backend cannot be reached: connection refused"))
    #expect(api.calls.count == 1)
    #expect(outbox.all.filter { $0.attempts > 0 }.map(\.entityID) == ["e0"])
  }

  @Test func anUpdateTheBackendLostIsCreatedAgain() async throws {
    let outbox = InMemoryOutbox()
    outbox.enqueue(row("a", .update, backendID: "gone", minutesAgo: 1))
    let api = FakeProgressAPI()
    api.fail(with: .notFound("no progress entry gone"))
    let report = try await OutboxProcessor(outbox: outbox, api: api, clock: clock).run(userID: "alice")
    #expect(report.synced == 1)
    #expect(api.calls.map(\.method) == ["PUT", "POST"])
    #expect(outbox.all[0].backendID == "b1")
  }

  @Test func concurrentPassesSendEveryRowOnce() async throws {
    let outbox = InMemoryOutbox()
    for index in 0..<50 { outbox.enqueue(row("e\(index)", minutesAgo: Double(100 - index))) }
    let api = FakeProgressAPI()
    let report = try await OutboxProcessor(outbox: outbox, api: api, clock: clock, concurrency: 8)
      .run(userID: "alice")
    #expect(report.synced == 50)
    #expect(Set(api.calls.compactMap(\.key)).count == 50)
    #expect(api.calls.count == 50)
  }
}
