import FlowKit
import FlowKitTesting
import Foundation
import Journal
import JournalSync
import MoodTracking
import MoodTrackingSync
import ProgressContract
import Sync
import Testing
import WellflowComposition

/// The features' sync resources: each turns its feature's row into the contract's body,
/// and the processor sends only what a resource was registered for.
@Suite struct SyncResourceTests {
  let clock = testClock()

  func object(_ body: Data) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
  }

  @Test func aMoodRowBecomesTheContractsProgressInput() throws {
    let entry = MoodEntry(
      id: UUID(uuidString: "6F1C2D3E-0000-4000-8000-000000000001")!, userID: "alice",
      date: Date(timeIntervalSince1970: 1_772_438_400), day: MoodDay("2026-03-02")!, score: 8, valence: 0.5,
      labels: [], notes: "a/b \"quoted\"", kind: .dailyMood, source: .userEntry,
      createdAt: Date(timeIntervalSince1970: 1_772_438_400),
      updatedAt: Date(timeIntervalSince1970: 1_772_438_460))
    let row = OutboxRow.mood(entry, operation: .create, id: UUID(), now: entry.updatedAt)
    let body = MoodTrackingSync.body(payload: row.payload)
    #expect(
      String(decoding: body, as: UTF8.self)
        == #"{"entry_id":"6F1C2D3E-0000-4000-8000-000000000001","logged_at":"2026-03-02T08:00:00Z","#
        + #""notes":"a/b \"quoted\"","quantity":8,"type":"mood_score"}"#)
    // Every member is one the contract's ProgressInput names.
    let names = Set(ProgressInputField.allCases.map(\.rawValue))
    #expect(Set(try object(body).keys).isSubset(of: names))
  }

  @Test func aRowQueuedByAnOlderVersionIsSentAsItWasStored() {
    // Before the resources, the outbox kept the wire body itself.
    let legacy =
      #"{"entry_id":"E1","logged_at":"2026-03-02T08:00:00Z","quantity":4,"type":"mood_score","updated_at":"x"}"#
    #expect(MoodTrackingSync.body(payload: legacy) == Data(legacy.utf8))
    let journal = #"{"created_at":"2026-03-02T08:00:00Z","curriculum_id":1,"initiated_by":"self"}"#
    #expect(JournalSync.body(payload: journal) == Data(journal.utf8))
  }

  @Test func aJournalRowBecomesTheContractsJournalInput() throws {
    let entry = JournalEntry(
      id: "j1", userID: "alice", createdAt: Date(timeIntervalSince1970: 1_772_438_400), primary: 1,
      secondary: 7,
      strategy: 3, initiatedBy: .scheduled)
    let body = JournalSync.body(payload: JournalSyncPayload(entry: entry).json())
    #expect(
      String(decoding: body, as: UTF8.self)
        == #"{"created_at":"2026-03-02T08:00:00Z","curriculum_id":1,"initiated_by":"scheduled","#
        + #""secondary_curriculum_id":7,"strategy_id":3}"#)
    let alone = JournalEntry(
      id: "j2", userID: "alice", createdAt: Date(timeIntervalSince1970: 1_772_438_400), primary: 2,
      initiatedBy: .self)
    let names = Set(JournalInputField.allCases.map(\.rawValue))
    let members = try object(JournalSync.body(payload: JournalSyncPayload(entry: alone).json())).keys
    #expect(Set(members) == names.subtracting(["secondary_curriculum_id", "strategy_id"]))
  }

  @Test func theAppRegistersOneResourcePerSyncedEntityWithItsCountQuery() throws {
    // Read from the registry: a feature that syncs too adds its resource, not a line here.
    let resources = try WellflowFeatures.syncResources
    #expect(Set(resources.map(\.entity)).count == resources.count)
    #expect(Set(resources.map(\.entity)).isSuperset(of: [.mood, .journal]))
    #expect(Set(resources.map(\.path)).isSubset(of: APIPath.all))
    let registry = try WellflowFeatures.makeRegistry()
    for resource in resources {
      #expect(registry.query("backend.\(resource.name).count") != nil, "\(resource.name)")
    }
  }

  @Test func aRowOfAnEntityNoResourceSendsStaysPendingUntried() async throws {
    let outbox = InMemoryOutbox()
    let now = clock.now
    outbox.enqueue(
      OutboxRow(
        id: UUID(), userID: "alice", entity: OutboxEntity(rawValue: "gratitude"), entityID: "g1",
        operation: .create, payload: "{}", nextAttemptAt: now, createdAt: now))
    outbox.enqueue(
      OutboxRow(
        id: UUID(), userID: "alice", entity: .journal, entityID: "j1", operation: .create, payload: "{}",
        nextAttemptAt: now, createdAt: now))
    let api = FakeProgressAPI()
    // Only the journal's resource: the unknown row is neither sent as a journal entry
    // (what the processor did before) nor parked as failed.
    let report = try await OutboxProcessor(
      outbox: outbox, api: api, resources: [JournalSync.resource], clock: clock
    ).run(userID: "alice")
    #expect(report.synced == 1 && report.untried == 1 && report.failed == 0)
    #expect(api.calls.map(\.method) == ["POST journal"])
    #expect(outbox.pendingCount(userID: "alice") == 1)
    #expect(outbox.all.first { $0.entityID == "g1" }?.status == .pending)
  }
}
