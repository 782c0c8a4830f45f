import FlowKit
import Foundation
import GRDB
import MoodTracking
import MoodTrackingSQLite
import MoodTrackingSync
import Storage
import SyncHTTPClient
import Testing

@testable import Sync

/// Mood rows sent through `POST /api/v1/progress/batch`: each item's result applied as
/// its single call's would be, a batch's results recorded in one transaction, an answer
/// that does not fit leaving every row pending, single calls for a backend without the
/// endpoint, synced rows leaving the outbox, and idempotency across a retried batch.
@Suite struct BatchSyncTests {
  let clock = testClock()

  /// A migrated app database and its repository and outbox.
  struct App {
    let database: WellflowDatabase
    let directory: URL
    let repository: SQLiteMoodRepository
    let outbox: SQLiteOutbox

    init() throws {
      (database, directory) = try makeAppDatabase()
      repository = SQLiteMoodRepository(writer: database.writer)
      outbox = SQLiteOutbox(database: database)
    }

    /// Rows in the outbox table, whatever their status.
    func outboxRows() throws -> Int {
      try database.writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM outbox")! }
    }

    func entry(_ entry: MoodEntry) async throws -> MoodEntry? {
      try await repository.entry(id: entry.id, userID: entry.userID)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
  }

  /// Saves a mood entry of alice with `score` (the scripted servers answer by it) and
  /// its outbox row, `minutes` after the first.
  @discardableResult
  func save(
    _ score: Int, _ operation: OutboxOperation = .create, backendID: String? = nil, minutes: Double,
    in app: App
  ) async throws -> MoodEntry {
    let date = clock.now.addingTimeInterval(-86_400 + minutes * 60)
    let entry = MoodEntry(
      id: UUID(), userID: "alice", date: date, day: MoodDay(date, in: clock.calendar), score: score,
      valence: try MoodTranslation.valence(forScore: score),
      labels: try MoodTranslation.labels(forScore: score, notes: nil), kind: .momentaryEmotion,
      createdAt: date, updatedAt: date, backendID: backendID)
    try await app.repository.save(entry, outbox: .mood(entry, operation: operation, id: UUID(), now: date))
    return entry
  }

  @Test func eachItemsResultIsAppliedInOrderAsItsSingleCallsWouldBe() async throws {
    let server = try ScriptedServer { request in
      if request.path.hasSuffix("/journal") {
        return .http(
          201, "Created",
          body:
            #"{"data":{"id":"j-1","created_at":"2026-03-02T08:00:00Z","curriculum_id":1,"initiated_by":"self"}}"#
        )
      }
      return .batch(request) { method, id, body in
        switch (method, id, body?["quantity"] as? Int) {
        case ("POST", _, 1): .created("b-a", body)
        case ("PUT", "b-b", _): .ok("b-b", body)
        case ("DELETE", "b-c", _): .refused(404, "not_found")
        case ("PUT", "b-d", _): .refused(404, "not_found")
        case ("POST", _, 4): .created("b-d2", body)
        case ("POST", _, 5): .refused(400, "validation_failed")
        case ("POST", _, 6): .refused(503, "down")
        default: .refused(500, "unexpected item")
        }
      }
    }
    defer { server.stop() }
    let app = try App()
    defer { app.remove() }
    let a = try await save(1, minutes: 1, in: app)
    let b = try await save(2, .update, backendID: "b-b", minutes: 2, in: app)
    let c = try await save(3, .delete, backendID: "b-c", minutes: 3, in: app)
    let d = try await save(4, .update, backendID: "b-d", minutes: 4, in: app)
    let e = try await save(5, minutes: 5, in: app)
    let f = try await save(6, minutes: 6, in: app)
    let g = try await save(7, .delete, minutes: 7, in: app)  // never reached the backend
    try await app.outbox.enqueue(
      OutboxRow(
        id: UUID(), userID: "alice", entity: .journal, entityID: "journal-1", operation: .create,
        payload: #"{"created_at":"2026-03-02T08:00:00Z","curriculum_id":1,"initiated_by":"self"}"#,
        nextAttemptAt: clock.now, createdAt: clock.now))
    let sent = try await app.outbox.pending(userID: "alice", dueAt: nil, limit: 10)
    let events = InMemoryAnalyticsSink()

    let report = try await OutboxProcessor(
      outbox: app.outbox, api: server.client(), clock: clock, random: { 0.5 }, analytics: events
    ).run(userID: "alice")

    #expect(report.synced == 6 && report.failed == 1 && report.retrying == 1 && report.untried == 0)
    #expect(report.stop == nil)
    // One batch (the delete the backend never had needs no request), the lost row again
    // as a POST under its key, and the journal entry alone.
    let requests = server.requests
    #expect(requests.map(\.path) == ["/api/v1/progress/batch", "/api/v1/progress/batch", "/api/v1/journal"])
    let first = batchItems(requests[0])
    #expect(first.map { $0["method"] as? String } == ["POST", "PUT", "DELETE", "PUT", "POST", "POST"])
    #expect(
      first.map { $0["idempotency_key"] as? String }
        == sent.prefix(6).map { MoodTrackingSync.resource.idempotencyKey(for: $0) })
    let again = batchItems(requests[1])
    #expect(again.map { $0["method"] as? String } == ["POST"])
    #expect(again.first?["idempotency_key"] as? String == first[3]["idempotency_key"] as? String)
    #expect(again.first?["id"] == nil)

    // Synced rows are gone; the refused one is parked, the passing failure waits.
    #expect(try app.outboxRows() == 2)
    #expect(try await app.outbox.failedCount(userID: "alice") == 1)
    let waiting = try await app.outbox.pending(userID: "alice", dueAt: nil, limit: 10)
    #expect(waiting.map(\.entityID) == [f.id.uuidString])
    #expect(waiting.first?.attempts == 1 && waiting.first?.nextAttemptAt == clock.now.addingTimeInterval(5))
    #expect(waiting.first?.lastError == "the backend failed (503): refused")
    #expect(try await app.entry(a)?.backendID == "b-a")
    #expect(try await app.entry(a)?.syncStatus == .synced)
    #expect(try await app.entry(b)?.syncStatus == .synced)
    #expect(try await app.entry(c)?.syncStatus == .synced)
    #expect(try await app.entry(d)?.backendID == "b-d2")
    #expect(try await app.entry(e)?.syncStatus == .failed)
    #expect(try await app.entry(f)?.syncStatus == .pending)
    #expect(try await app.entry(g)?.syncStatus == .synced)

    // An event per row, in the rows' order, as the single calls gave them.
    #expect(
      events.events.map(\.event) == [
        "sync_succeeded", "sync_succeeded", "sync_succeeded", "sync_succeeded", "sync_failed", "sync_failed",
        "sync_succeeded", "sync_succeeded",
      ])
    #expect(events.events[4].fields["permanent"] == .bool(true))
    #expect(events.events[4].fields["error"] == .string("bad_request"))
    #expect(events.events[5].fields["permanent"] == .bool(false))
    #expect(events.events[5].fields["error"] == .string("server_error"))
    #expect(events.events[2].fields["operation"] == .string("delete"))
    #expect(events.events[7].fields["entity"] == .string("journal"))
    #expect(events.events.allSatisfy { $0.fields["attempts"] == .number(1) })
  }

  @Test func aBatchAnswerThatDoesNotFitLeavesEveryRowPending() async throws {
    let answers: [(String, @Sendable (ScriptedServer.Request) -> ScriptedServer.Answer)] = [
      ("one result short", { .batchResults(Array(goodResults($0).dropLast())) }),
      ("one result too many", { .batchResults(goodResults($0) + [#"{"status":204}"#]) }),
      ("garbage JSON", { _ in .http(200, "OK", body: #"{"data":{"results":[{"status":201,"da"#) }),
      (
        "HTML",
        { _ in .http(200, "OK", body: "<html>Sign in to the hotel Wi-Fi</html>", contentType: "text/html") }
      ),
      ("no results", { _ in .http(200, "OK", body: #"{"data":{}}"#) }),
      ("a status no answer has", { .batchResults([#"{"status":0}"#] + goodResults($0).dropFirst()) }),
      ("a status as text", { .batchResults([#"{"status":"201"}"#] + goodResults($0).dropFirst()) }),
      ("a success without its row", { .batchResults([#"{"status":201}"#] + goodResults($0).dropFirst()) }),
      (
        "a row without an id",
        { request in
          .batchResults(
            [#"{"status":201,"data":{"type":"mood_score","quantity":1,"date":"2026-03-01"}}"#]
              + goodResults(request).dropFirst())
        }
      ),
      ("results out of order", { .batchResults(Array(goodResults($0).reversed())) }),
    ]
    for (name, answer) in answers {
      let server = try ScriptedServer(answer)
      defer { server.stop() }
      let app = try App()
      defer { app.remove() }
      let entries = [
        try await save(1, minutes: 1, in: app), try await save(2, minutes: 2, in: app),
        try await save(3, minutes: 3, in: app),
      ]
      let report = try await OutboxProcessor(outbox: app.outbox, api: server.client(), clock: clock)
        .run(userID: "alice")
      #expect(report.retrying == 3 && report.synced == 0 && report.failed == 0, "\(name): \(report)")
      #expect(report.stop != nil, "\(name): a 200 that is not the contract's ends the pass")
      #expect(server.requests.count == 1, "\(name)")
      let rows = try await app.outbox.pending(userID: "alice", dueAt: nil, limit: 10)
      #expect(rows.count == 3 && rows.allSatisfy { $0.attempts == 1 && $0.status == .pending }, "\(name)")
      #expect(
        rows.allSatisfy { $0.lastError?.contains("unexpected answer from the backend (200)") == true },
        "\(name)")
      for entry in entries {
        let stored = try await app.entry(entry)
        #expect(stored?.backendID == nil && stored?.syncStatus == .pending, "\(name)")
      }
    }
  }

  @Test func aBackendWithoutTheBatchEndpointGetsSingleCalls() async throws {
    let refusals: [ScriptedServer.Answer] = [
      .refusal(405, "Method Not Allowed", message: "POST is not allowed", code: "method_not_allowed"),
      .http(404, "Not Found", body: "<html>no such page</html>", contentType: "text/html"),
    ]
    for refusal in refusals {
      let created = Locked(0)
      let server = try ScriptedServer { request in
        if request.path.hasSuffix("/batch") { return refusal }
        let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any]
        let id = created.withLock { count in
          count += 1
          return "s-\(count)"
        }
        return .http(201, "Created", body: "{\"data\":\(BatchReply.record(id, body))}")
      }
      defer { server.stop() }
      let app = try App()
      defer { app.remove() }
      for score in 1...5 { try await save(score, minutes: Double(score), in: app) }
      let report = try await OutboxProcessor(
        outbox: app.outbox, api: server.client(), clock: clock, concurrency: 2, maxBatchItems: 2
      ).run(userID: "alice")
      #expect(report.synced == 5 && report.stop == nil, "\(refusal): \(report)")
      let paths = server.requests.map(\.path)
      // The batches in flight when the first refusal came; then single calls only.
      let batches = paths.filter { $0.hasSuffix("/batch") }.count
      #expect((1...2).contains(batches), "\(paths)")
      #expect(paths.filter { $0 == "/api/v1/progress" }.count == 5)
      #expect(try app.outboxRows() == 0)
      // Single calls carry the same idempotency keys a batch would.
      #expect(
        server.requests.allSatisfy { $0.path.hasSuffix("/batch") || $0.headers["idempotency-key"] != nil })
    }
  }

  @Test func aBatchRefusedWholeSendsItsRowsAloneAndTheNextBatchesStillGo() async throws {
    let server = try ScriptedServer { request in
      guard request.path.hasSuffix("/batch") else {
        let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any]
        return body?["quantity"] as? Int == 5
          ? .refusal(400, "Bad Request", message: "quantity is wrong", code: "validation_failed")
          : .http(
            201, "Created", body: "{\"data\":\(BatchReply.record("s-\(body?["quantity"] ?? 0)", body))}")
      }
      let items = batchItems(request)
      if items.contains(where: { ($0["body"] as? [String: Any])?["quantity"] as? Int == 5 }) {
        return .refusal(400, "Bad Request", message: "items[1].body is wrong", code: "validation_failed")
      }
      return .batch(request) { _, _, body in .created("b-\(body?["quantity"] ?? 0)", body) }
    }
    defer { server.stop() }
    let app = try App()
    defer { app.remove() }
    for (minutes, score) in [1, 5, 2, 3].enumerated() {
      try await save(score, minutes: Double(minutes), in: app)
    }
    let report = try await OutboxProcessor(
      outbox: app.outbox, api: server.client(), clock: clock, maxBatchItems: 2
    )
    .run(userID: "alice")
    #expect(report.synced == 3 && report.failed == 1)
    #expect(
      server.requests.map(\.path) == [
        "/api/v1/progress/batch", "/api/v1/progress", "/api/v1/progress", "/api/v1/progress/batch",
      ])
    #expect(try await app.outbox.failedCount(userID: "alice") == 1)
    #expect(try app.outboxRows() == 1)
  }

  @Test func syncedRowsLeaveTheOutboxAndAnEditAfterSyncIsSentAsAPUT() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let app = try App()
    defer { app.remove() }
    let save = SaveMoodUseCase(repository: app.repository, clock: clock, currentUser: { "alice" })
    let api = backend.client("alice")
    let processor = OutboxProcessor(outbox: app.outbox, api: api, clock: clock)

    let first = try await save.save(SaveMoodRequest(score: 5, notes: "first")).entry
    #expect(try await processor.run(userID: "alice").synced == 1)
    #expect(try app.outboxRows() == 0)
    let synced = try #require(try await app.entry(first))
    let backendID = try #require(synced.backendID)
    #expect(synced.syncStatus == .synced)

    // The day's mood again: an update of the entity the backend knows, by its id.
    clock.advance(by: 600)
    guard case .updated = try await save.save(SaveMoodRequest(score: 8, notes: "better")) else {
      Issue.record("the second save of the day should update the daily mood")
      return
    }
    let edit = try #require(try await app.outbox.pending(userID: "alice", dueAt: nil, limit: 10).first)
    #expect(edit.operation == .update && edit.backendID == backendID)
    let report = try await processor.run(userID: "alice")
    #expect(report.synced == 1 && report.failed == 0, "\(report)")
    #expect(try app.outboxRows() == 0)
    let rows = try await api.listProgress(ListQuery())
    #expect(rows.total == 1)
    #expect(rows.entries.first?.id == backendID)
    #expect(rows.entries.first?.quantity == 8 && rows.entries.first?.notes == "better")
    #expect(try await app.entry(first)?.syncStatus == .synced)

    // And a third, sent alone (as to a backend without batches): still the same row.
    clock.advance(by: 600)
    _ = try await save.save(SaveMoodRequest(score: 3))
    let alone = OutboxProcessor(outbox: app.outbox, api: api, clock: clock, maxBatchItems: 1)
    #expect(try await alone.run(userID: "alice").synced == 1)
    let after = try await api.listProgress(ListQuery())
    #expect(after.total == 1 && after.entries.first?.quantity == 3)
    #expect(try await app.outbox.failedCount(userID: "alice") == 0)
  }

  @Test func aBatchWhoseAnswerWasLostIsSentAgainWithoutDuplicates() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let app = try App()
    defer { app.remove() }
    let entries = try await seedMoods(app.repository, user: "alice", count: 250, clock: clock)
    // The backend applies the first batches, but their answers never arrive.
    let api = LosingAnswers(backend.client("alice"), losing: 2)
    let processor = OutboxProcessor(outbox: app.outbox, api: api, clock: clock, concurrency: 2)
    let first = try await processor.run(userID: "alice")
    #expect(first.synced == 0 && first.retrying == 200 && first.untried == 50, "\(first)")
    #expect(try await backend.client("alice").listProgress(ListQuery(limit: 1)).total == 200)

    // One of the sent entries changes before the retry: its row is a new revision.
    var changed = entries[10]
    changed.score = 9
    changed.updatedAt = clock.now
    try await app.repository.save(
      changed, outbox: .mood(changed, operation: .update, id: UUID(), now: clock.now))

    let second = try await processor.run(userID: "alice", ignoringBackoff: true)
    #expect(second.synced == 250 && second.stop == nil, "\(second)")
    #expect(try app.outboxRows() == 0)
    var records: [ProgressRecord] = []
    while true {
      let page = try await backend.client("alice").listProgress(ListQuery(limit: 100, offset: records.count))
      records += page.entries
      if page.entries.isEmpty { break }
    }
    #expect(records.count == 250)
    #expect(Set(records.compactMap(\.entryID)) == Set(entries.map(\.id.uuidString)))
    let backendChanged = try #require(try await app.entry(changed)?.backendID)
    #expect(records.first { $0.id == backendChanged }?.quantity == 9)
  }

  @Test func theBatchBodyCarriesEachItemAsItsSingleCallWould() throws {
    let items: [ProgressBatchItem] = [
      .create(
        body: Data(#"{"type":"mood_score","quantity":3,"entry_id":"e-1"}"#.utf8), idempotencyKey: #"k"1\"#),
      .update(id: "b/2", body: Data(#"{"quantity":4}"#.utf8), idempotencyKey: "k\n2"),
      .delete(id: "b-3", idempotencyKey: "k-3"),
    ]
    let (body, entryIDs) = try ProgressAPIClient.batchBody(items)
    #expect(entryIDs == ["e-1", nil, nil])
    let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
    let sent = try #require(object["items"] as? [[String: Any]])
    #expect(sent.map { $0["idempotency_key"] as? String } == [#"k"1\"#, "k\n2", "k-3"])
    #expect(sent.map { $0["method"] as? String } == ["POST", "PUT", "DELETE"])
    #expect(sent.map { $0["id"] as? String } == [nil, "b/2", "b-3"])
    #expect((sent[0]["body"] as? [String: Any])?["quantity"] as? Int == 3)
    #expect(sent[2]["body"] == nil)
    // A body that is not a JSON object cannot sit among the others.
    #expect(throws: ProgressAPIError.badRequest("items[0].body is not a JSON object")) {
      try ProgressAPIClient.batchBody([.create(body: Data("[1]".utf8), idempotencyKey: "k")])
    }
    #expect(throws: ProgressAPIError.self) {
      try ProgressAPIClient.batchBody([.create(body: Data(#"{"a":1}], "x": [{"#.utf8), idempotencyKey: "k")])
    }
  }
}

/// An API that forwards to a real client, but loses the answers of the first `losing`
/// batches after the backend applied them (the connection dropped on the way back).
final class LosingAnswers: ProgressAPI {
  let client: ProgressAPIClient
  private let remaining: Locked<Int>

  init(_ client: ProgressAPIClient, losing: Int) {
    self.client = client
    remaining = Locked(losing)
  }

  func batch(_ items: [ProgressBatchItem]) async throws(ProgressAPIError) -> [ProgressBatchResult] {
    let results = try await client.batch(items)
    let lose = remaining.withLock { count in
      defer { count -= 1 }
      return count > 0
    }
    if lose { throw .timeout }
    return results
  }

  func createProgress(body: Data, idempotencyKey: String?) async throws(ProgressAPIError) -> ProgressRecord {
    try await client.createProgress(body: body, idempotencyKey: idempotencyKey)
  }

  func updateProgress(id: String, body: Data, idempotencyKey: String?) async throws(ProgressAPIError)
    -> ProgressRecord
  {
    try await client.updateProgress(id: id, body: body, idempotencyKey: idempotencyKey)
  }

  func deleteProgress(id: String, idempotencyKey: String?) async throws(ProgressAPIError) {
    try await client.deleteProgress(id: id, idempotencyKey: idempotencyKey)
  }

  func listProgress(_ query: ListQuery) async throws(ProgressAPIError) -> Page<ProgressRecord> {
    try await client.listProgress(query)
  }

  func createJournal(body: Data, idempotencyKey: String?) async throws(ProgressAPIError) -> JournalRecord {
    try await client.createJournal(body: body, idempotencyKey: idempotencyKey)
  }

  func listJournal(_ query: ListQuery) async throws(ProgressAPIError) -> Page<JournalRecord> {
    try await client.listJournal(query)
  }
}

/// A created row for each item of the request.
func goodResults(_ request: ScriptedServer.Request) -> [String] {
  batchItems(request).enumerated().map { index, item in
    BatchReply.created("b-\(index)", item["body"] as? [String: Any]).json
  }
}

/// The items of a batch request the client sent.
func batchItems(_ request: ScriptedServer.Request) -> [[String: Any]] {
  let object = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any]
  return object?["items"] as? [[String: Any]] ?? []
}

/// One item's result as a scripted server writes it.
enum BatchReply {
  case created(String, [String: Any]?)
  case ok(String, [String: Any]?)
  case refused(Int, String)

  /// A progress row for `body` (its quantity and entry id) under `id`.
  static func record(_ id: String, _ body: [String: Any]?) -> String {
    var record: [String: Any] = [
      "id": id, "type": "mood_score", "quantity": body?["quantity"] ?? 5, "date": "2026-03-01",
    ]
    if let entryID = body?["entry_id"] { record["entry_id"] = entryID }
    return String(decoding: try! JSONSerialization.data(withJSONObject: record), as: UTF8.self)
  }

  var json: String {
    switch self {
    case .created(let id, let body): #"{"status":201,"data":\#(Self.record(id, body))}"#
    case .ok(let id, let body): #"{"status":200,"data":\#(Self.record(id, body))}"#
    case .refused(let status, let code):
      #"{"status":\#(status),"error":{"message":"refused","code":"\#(code)"}}"#
    }
  }
}

extension ScriptedServer.Answer {
  /// `200` with these results.
  static func batchResults(_ results: [String]) -> Self {
    .http(200, "OK", body: #"{"data":{"results":["# + results.joined(separator: ",") + "]}}")
  }

  /// `200` with a result per item of the request, by its method, id and body.
  static func batch(
    _ request: ScriptedServer.Request, _ reply: (String, String?, [String: Any]?) -> BatchReply
  ) -> Self {
    batchResults(
      batchItems(request).map { item in
        reply(item["method"] as? String ?? "", item["id"] as? String, item["body"] as? [String: Any]).json
      })
  }
}
