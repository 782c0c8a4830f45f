import Foundation
import GRDB
import ProgressBackend
import Testing

/// A list's `total` is kept beside the rows (not counted on every read): it must follow
/// every create, update, delete and batch, per user and type, and with date bounds.
@Suite struct BackendListTotalTests {
  @Test func theTotalFollowsEveryWriteAndEveryFilter() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let alice = backend.headers(user: "alice")
    func total(_ query: String, _ headers: [String: String]) async throws -> Int? {
      let (status, json) = try await backend.raw("GET", "/api/v1/progress\(query)", headers: headers)
      #expect(status == 200)
      return (json["data"] as? [String: Any])?["total"] as? Int
    }
    var ids: [String] = []
    for day in 1...3 {
      let body = #"{"type":"mood_score","quantity":5,"logged_at":"2026-03-0\#(day)"}"#
      let (status, json) = try await backend.raw("POST", "/api/v1/progress", body: body, headers: alice)
      #expect(status == 201)
      ids.append(try #require((json["data"] as? [String: Any])?["id"] as? String))
    }
    // A create sent again for the same entry updates its row: still one row.
    let entry = #"{"type":"mood_score","quantity":5,"logged_at":"2026-03-04","entry_id":"e-1"}"#
    #expect(try await backend.raw("POST", "/api/v1/progress", body: entry, headers: alice).status == 201)
    #expect(try await backend.raw("POST", "/api/v1/progress", body: entry, headers: alice).status == 200)
    #expect(try await total("", alice) == 4)
    #expect(try await backend.raw("DELETE", "/api/v1/progress/\(ids[0])", headers: alice).status == 204)
    #expect(try await backend.raw("DELETE", "/api/v1/progress/\(ids[0])", headers: alice).status == 404)
    let put = #"{"type":"mood_score","quantity":6,"logged_at":"2026-03-09"}"#
    #expect(
      try await backend.raw("PUT", "/api/v1/progress/\(ids[1])", body: put, headers: alice).status == 200)
    let batch = #"""
      {"items":[
        {"idempotency_key":"k1","method":"POST","body":{"type":"mood_score","quantity":1,"logged_at":"2026-04-01"}},
        {"idempotency_key":"k2","method":"DELETE","id":"\#(ids[2])"},
        {"idempotency_key":"k3","method":"POST","body":{"type":"mood_score","quantity":11,"logged_at":"2026-04-01"}}
      ]}
      """#
    #expect(
      try await backend.raw("POST", "/api/v1/progress/batch", body: batch, headers: alice).status == 200)
    // 3 creates and an entry's row, one deleted alone and one in the batch, one created there.
    #expect(try await total("", alice) == 3)
    #expect(try await total("?type=mood_score", alice) == 3)
    #expect(try await total("?type=steps", alice) == 0)
    #expect(try await total("?from=2026-03-05", alice) == 2)
    #expect(try await total("?from=2026-03-05&to=2026-03-31", alice) == 1)
    #expect(try await total("?limit=1&offset=2", alice) == 3)
    #expect(try await total("", backend.headers(user: "bob")) == 0)
  }

  /// A database written before totals were kept gets them from its rows when it opens.
  @Test func aDatabaseFromBeforeTotalsGetsThemFromItsRows() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wellflow-totals-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("backend.sqlite").path
    let first = try await TestBackend.start(databasePath: path)
    for day in 1...5 {
      let body = #"{"type":"mood_score","quantity":5,"logged_at":"2026-03-0\#(day)"}"#
      #expect(
        try await first.raw("POST", "/api/v1/progress", body: body, headers: first.headers()).status == 201)
    }
    await first.stop()
    // As the server was before migration v3: no totals, no triggers.
    try await DatabaseQueue(path: path).write { db in
      try db.execute(
        sql: """
          DROP TRIGGER progress_totals_insert; DROP TRIGGER progress_totals_delete;
          DROP TRIGGER progress_totals_update; DROP TABLE progress_totals;
          DELETE FROM grdb_migrations WHERE identifier = 'v3: progress totals';
          """)
    }
    let second = try await TestBackend.start(databasePath: path)
    defer { Task { await second.stop() } }
    let (status, json) = try await second.raw("GET", "/api/v1/progress?limit=2", headers: second.headers())
    #expect(status == 200)
    #expect((json["data"] as? [String: Any])?["total"] as? Int == 5)
  }
}
