import Foundation
import GRDB
import ProgressBackend
import Testing

/// `POST /api/v1/events`: an app's analytics events, stored for the report, once per
/// Idempotency-Key, in SQLite and in PostgreSQL.
@Suite struct EventsEndpointTests {
  static func storedEvents(_ database: BackendDatabase) async throws -> [String] {
    switch database {
    case .sqlite(let path):
      return try await DatabaseQueue(path: path!).read { db in
        try String.fetchAll(db, sql: "SELECT data FROM events ORDER BY seq")
      }
    case .postgres(let location):
      return try await TestPostgres.column("SELECT data::text FROM events ORDER BY seq", on: location)
        .compactMap { $0 }
    }
  }

  @Test(arguments: TestStore.available)
  func eventsAreStoredOncePerKeyAsTheTokensUser(store: TestStore) async throws {
    let database = try await store.freshDatabase()
    let backend = try await SharedDatabaseTests.start(database)
    defer { Task { await backend.stop() } }
    let body = """
      {"events": [
        {"ts": "2026-03-02T08:00:00.000Z", "event": "experiment_viewed", "user": "mallory",
         "experiment": "checkin-length", "variation": "quick"},
        {"ts": "2026-03-02T08:00:01.000Z", "event": "flow_completed", "flow": "checkin", "steps": 3, "ok": true}
      ]}
      """
    var headers = backend.headers(user: "alice")
    headers["Idempotency-Key"] = "events-1"
    for _ in 0..<2 {
      let (status, json) = try await backend.raw("POST", "/api/v1/events", body: body, headers: headers)
      #expect(status == 201, "\(json)")
      #expect((json["data"] as? [String: Any])?["accepted"] as? Int == 2)
    }
    let stored = try await Self.storedEvents(database).map {
      try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
    }
    #expect(stored.count == 2)
    #expect(stored.map { $0["user"] as? String } == ["alice", "alice"])
    #expect(stored.first?["variation"] as? String == "quick")
    #expect(stored.last?["steps"] as? Double == 3)
  }

  @Test func badEventsAreRefusedWithTheirPosition() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let many = (0...1_000).map { _ in #"{"ts": "2026-03-02T08:00:00Z", "event": "e"}"# }.joined(
      separator: ",")
    let cases: [(String, String)] = [
      ("{}", "events is required: an array of 1 to 1000 events"),
      (#"{"events": []}"#, "events is required: an array of 1 to 1000 events"),
      (#"{"events": [\#(many)]}"#, "a call holds at most 1000 events, got 1001"),
      (#"{"events": [5]}"#, "events[0] must be an object"),
      (
        #"{"events": [{"event": "e"}]}"#,
        "events[0].ts is required (a UTC date-time such as 2026-03-02T08:00:00.000Z)"
      ),
      (
        #"{"events": [{"ts": "2026-02-30T08:00:00Z", "event": "e"}]}"#,
        #"events[0].ts must be a UTC date-time such as 2026-03-02T08:00:00.000Z, got "2026-02-30T08:00:00Z""#
      ),
      (
        #"{"events": [{"ts": "2026-03-02", "event": "e"}]}"#,
        #"events[0].ts must be a UTC date-time such as 2026-03-02T08:00:00.000Z, got "2026-03-02""#
      ),
      (
        #"{"events": [{"ts": "2026-03-02T08:00:00Z"}]}"#,
        "events[0].event is required: a name of 1 to 64 characters"
      ),
      (
        #"{"events": [{"ts": "2026-03-02T08:00:00Z", "event": "e"}, {"ts": "2026-03-02T08:00:00Z", "event": "e", "x": [1]}]}"#,
        "events[1].x must be text, a number, a boolean or null"
      ),
      (
        #"{"events": [{"ts": "2026-03-02T08:00:00Z", "event": "e", "user": 5}]}"#,
        "events[0].user must be text"
      ),
      (
        #"{"events": [{"ts": "2026-03-02T08:00:00Z", "event": "e", "x": "a\u0000b"}]}"#,
        "events[0].x holds U+0000"
      ),
    ]
    for (body, message) in cases {
      let (status, json) = try await backend.raw(
        "POST", "/api/v1/events", body: body, headers: backend.headers())
      #expect(status == 400, "\(body.prefix(80))")
      #expect(json.errorMessage == message, "\(body.prefix(80))")
    }
    // Only POST: a GET is 405.
    #expect(try await backend.raw("GET", "/api/v1/events", headers: backend.headers()).status == 405)
  }
}
