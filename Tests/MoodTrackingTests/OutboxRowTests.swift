import FlowKit
import FlowKitTesting
import Foundation
import MoodTracking
import Testing

@Suite struct OutboxRowTests {
  let now = Date(timeIntervalSince1970: 1_000)

  func row(_ operation: OutboxOperation, payload: String = "{}", backendID: String? = nil) -> OutboxRow {
    OutboxRow(
      id: UUID(), userID: "alice", entity: .mood, entityID: "e1", operation: operation, payload: payload,
      backendID: backendID, nextAttemptAt: now, createdAt: now)
  }

  @Test func aChangeFoldsIntoTheUnsentCreate() throws {
    var created = row(.create, payload: "v1")
    created.attempts = 2
    created.lastError = "offline"
    let merged = try #require(created.coalescing(row(.update, payload: "v2")))
    #expect(merged.id == created.id)
    #expect(merged.operation == .create)
    #expect(merged.payload == "v2")
    #expect(merged.revision == 2)
    #expect(merged.attempts == 0)
    #expect(merged.lastError == nil)
    #expect(merged.status == .pending)
  }

  @Test func createThenDeleteCancelsOutUnlessTheBackendHasIt() {
    #expect(row(.create).coalescing(row(.delete)) == nil)
    #expect(row(.create, backendID: "42").coalescing(row(.delete))?.operation == .delete)
    #expect(row(.update).coalescing(row(.delete))?.operation == .delete)
  }

  @Test func inMemoryOutboxCoalescesAndAcknowledgesRevisions() {
    let outbox = InMemoryOutbox()
    let first = row(.create, payload: "v1")
    outbox.enqueue(first)
    outbox.enqueue(row(.update, payload: "v2"))
    #expect(outbox.pendingCount(userID: "alice") == 1)
    // Sent v1 while v2 arrived: stays pending, now known to the backend.
    outbox.markSynced(id: first.id, revision: 1, backendID: "42")
    #expect(outbox.pending(userID: "alice", dueAt: nil, limit: 10).first?.backendID == "42")
    outbox.markSynced(id: first.id, revision: 2, backendID: "42")
    #expect(outbox.pendingCount(userID: "alice") == 0)
    outbox.enqueue(row(.update, payload: "v3", backendID: "42"))
    #expect(outbox.all.count == 2)
  }
}
