import FlowKit
import Foundation
import MoodTracking
import MoodTrackingTesting
import Sync
import Testing

/// Rows a pull leaves out are told as `sync_pull_skipped` events: why each was left out,
/// never the notes a person typed.
@Suite struct PullSkipEventsTests {
  static let page = """
    {"data":{"entries":[
      {"id":"good-1","type":"mood_score","quantity":7,"date":"2026-03-01","notes":"a walk by the river"},
      {"id":"eleven","type":"mood_score","quantity":11,"date":"2026-03-01","notes":"my private words"},
      {"id":"half","type":"mood_score","quantity":5.5,"date":"2026-03-01","notes":"my private words"},
      {"id":"no-quantity","type":"mood_score","date":"2026-03-01","notes":"my private words"},
      {"id":"good-2","type":"mood_score","quantity":3,"date":"2026-02-27"}
    ],"total":5,"limit":100,"offset":0}}
    """

  struct Connector: BackendConnector {
    let client: ProgressAPIClient
    func api(for userID: String) async throws -> any ProgressAPI { client }
  }

  @Test func eachSkippedRowIsAnEventWithItsReasonAndNoNotes() async throws {
    let server = try ScriptedServer { _ in .http(200, "OK", body: Self.page) }
    defer { server.stop() }
    let events = InMemoryAnalyticsSink()
    let repository = InMemoryMoodRepository()
    let result = try await SyncService(
      connector: Connector(client: server.client()), outbox: repository.outbox, moods: repository,
      clock: testClock(), connectivity: NetworkSwitch(), analytics: events
    ).sync(userID: "alice")
    #expect(result.pulled == 2 && result.pullSkippedCount == 3)
    let skipped = events.events.filter { $0.event == "sync_pull_skipped" }
    #expect(skipped.count == 3)
    #expect(
      skipped.map { $0.fields["reason"] } == [
        .string("missing quantity"),
        .string("quantity 11.0 is not a score in 1...10"),
        .string("quantity 5.5 is not a score in 1...10"),
      ])
    #expect(skipped.map { $0.fields["backend_id"] } == [nil, .string("eleven"), .string("half")])
    for event in skipped {
      #expect(event.user == "alice")
      #expect(event.fields["entity"] == .string("mood") && event.fields["operation"] == .string("pull"))
      #expect(event.fields["skipped"] == .number(3))
      #expect(!"\(event)".contains("private"))
    }
  }
}
