import FlowKit
import Foundation
import MoodTracking
import MoodTrackingSQLite
import MoodTrackingTesting
import Storage
import SyncHTTPClient
import Testing

@testable import MoodTrackingSync
@testable import Sync

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The client, processor and pull against a backend that answers what the real one
/// never does (`ScriptedServer`): only the backend's own well-formed refusal parks a
/// row as failed; everything else leaves it pending for a later attempt.
@Suite struct MisbehavingBackendTests {
  static let created = #"{"data":{"id":"b1","type":"mood_score","quantity":7,"date":"2026-03-02"}}"#

  /// A migrated database with `count` pending mood rows of alice.
  func seeded(_ count: Int, clock: ManualClock) async throws -> (SQLiteOutbox, URL) {
    let (database, directory) = try makeAppDatabase()
    try await seedMoods(
      SQLiteMoodRepository(writer: database.writer), user: "alice", count: count, clock: clock)
    return (SQLiteOutbox(database: database), directory)
  }

  @Test func theClassificationTable() {
    let envelope = Data(#"{"error":{"message":"no","code":"validation_failed"}}"#.utf8)
    let html = Data("<html><body>Sign in to the hotel Wi-Fi</body></html>".utf8)
    // The status's standard phrase (its capitals differ between platforms).
    func phrase(_ status: Int) -> String { HTTPURLResponse.localizedString(forStatusCode: status) }
    let notOurs = " (not the backend's error envelope)"
    let cases: [(Int, Data, ProgressAPIError, transient: Bool)] = [
      (400, envelope, .badRequest("no"), false),
      (422, envelope, .badRequest("no"), false),
      (413, envelope, .badRequest("no"), false),
      (413, html, .unexpected(status: 413, message: phrase(413) + notOurs), true),
      (404, envelope, .notFound("no"), false),
      (409, envelope, .conflict("no"), false),
      (400, html, .unexpected(status: 400, message: phrase(400) + notOurs), true),
      (404, html, .unexpected(status: 404, message: phrase(404) + notOurs), true),
      (401, envelope, .unauthorized("no"), true),
      (403, html, .unauthorized(phrase(403)), true),
      (429, html, .rateLimited(message: phrase(429), retryAfter: 30), true),
      (503, envelope, .server(status: 503, message: "no", retryAfter: 30), true),
      (418, envelope, .unexpected(status: 418, message: "no"), true),
      (302, html, .redirected(status: 302, location: nil), true),
    ]
    for (status, body, expected, transient) in cases {
      let error = ProgressAPIError.classify(status: status, body: body, retryAfter: 30)
      #expect(error == expected, "\(status)")
      #expect(error.isTransient == transient, "\(status)")
    }
    // A success whose body is not ours ends the pass (a captive portal answers every
    // row alike); another status of the kind does not hold up the rows behind it.
    #expect(ProgressAPIError.unexpected(status: 200, message: "html").endsPass)
    #expect(!ProgressAPIError.unexpected(status: 418, message: "teapot").endsPass)
    #expect(ProgressAPIError.rateLimited(message: "slow down").endsPass)
  }

  @Test func retryAfterReadsSecondsAndHTTPDatesAndIsBounded() {
    let now = Date(timeIntervalSince1970: 1_772_438_400)  // Mon, 02 Mar 2026 08:00:00 GMT
    #expect(ProgressAPIError.retryAfter(header: "120") == 120)
    #expect(ProgressAPIError.retryAfter(header: " 0 ") == 0)
    #expect(
      ProgressAPIError.retryAfter(header: "Mon, 02 Mar 2026 08:01:30 GMT", now: now) == 90)
    // Measured from the server's clock when it says what time it is.
    #expect(
      ProgressAPIError.retryAfter(
        header: "Mon, 02 Mar 2026 08:01:30 GMT", serverDate: "Mon, 02 Mar 2026 08:01:00 GMT", now: now) == 30)
    #expect(ProgressAPIError.retryAfter(header: "Mon, 02 Mar 2026 07:00:00 GMT", now: now) == 0)
    #expect(ProgressAPIError.retryAfter(header: "99999999999999999999999") == ProgressAPIError.maxRetryAfter)
    #expect(ProgressAPIError.retryAfter(header: "-5") == nil)
    #expect(ProgressAPIError.retryAfter(header: "soon") == nil)
    #expect(ProgressAPIError.retryAfter(header: nil) == nil)
    #expect(ProgressAPIError.server(status: 503, message: "", retryAfter: .infinity).retryAfter == 86_400)
    #expect(ProgressAPIError.rateLimited(message: "", retryAfter: .nan).retryAfter == nil)
  }

  @Test func a429WithRetryAfterLeavesTheRowPendingUntilThen() async throws {
    let limited = Locked(true)
    let server = try ScriptedServer { request in
      limited.current
        ? .http(
          429, "Too Many Requests", headers: ["Retry-After": "120"], body: "slow down",
          contentType: "text/plain")
        : .batch(request) { _, _, body in .created("b1", body) }
    }
    defer { server.stop() }
    let clock = testClock()
    let (outbox, directory) = try await seeded(3, clock: clock)
    defer { try? FileManager.default.removeItem(at: directory) }
    let processor = OutboxProcessor(
      outbox: outbox, api: server.client(), clock: clock, policy: RetryPolicy(baseDelay: 5), maxBatchItems: 2,
      random: { 0.5 })

    // The first batch (two rows) is limited; the pass ends before the third row.
    let report = try await processor.run(userID: "alice")
    #expect(report.retrying == 2 && report.untried == 1 && report.failed == 0)
    #expect(report.notBefore == clock.now.addingTimeInterval(120))
    guard case .backendUnavailable(let reason) = report.stop else {
      Issue.record("a 429 should end the pass, got \(String(describing: report.stop))")
      return
    }
    #expect(reason.contains("429"))
    #expect(try await outbox.failedCount(userID: "alice") == 0)
    let tried = try #require(try await outbox.pending(userID: "alice", dueAt: nil, limit: 1).first)
    // Retry-After (120 s) beats the 5 s backoff.
    #expect(tried.nextAttemptAt == clock.now.addingTimeInterval(120) && tried.attempts == 1)

    limited.withLock { $0 = false }
    clock.advance(by: 119)
    // The untried row is due; the limited one is not.
    let beforeThen = try await processor.run(userID: "alice")
    #expect(beforeThen.synced == 1)
    #expect(server.requests.count == 2)
    clock.advance(by: 1)
    let then = try await processor.run(userID: "alice")
    // Once in CI (full suite, two CPU burners) this pass synced 0 after 600 s, the
    // client's deadline: a request that never came back. Each ScriptedServer now has a
    // pool of its own; if it ever happens again, the report and the requests say more.
    #expect(then.synced == 2, "\(then), requests: \(server.requests.map(\.path))")
    #expect(try await outbox.pendingCount(userID: "alice") == 0)
  }

  @Test func aSyncWaitsOutTheBackendsRetryAfterEvenIgnoringBackoff() async throws {
    let limited = Locked(true)
    let server = try ScriptedServer { request in
      if limited.current {
        return .http(
          429, "Too Many Requests",
          headers: ["Retry-After": "Mon, 02 Mar 2026 08:01:00 GMT", "Date": "Mon, 02 Mar 2026 08:00:00 GMT"],
          body: #"{"error":{"message":"slow down","code":"rate_limited"}}"#)
      }
      return request.method == "GET"
        ? .http(200, "OK", body: #"{"data":{"entries":[],"total":0,"limit":100,"offset":0}}"#)
        : .batch(request) { _, _, body in .created("b1", body) }
    }
    defer { server.stop() }
    let clock = testClock()
    let (database, directory) = try makeAppDatabase()
    defer { try? FileManager.default.removeItem(at: directory) }
    let repository = SQLiteMoodRepository(writer: database.writer)
    try await seedMoods(repository, user: "alice", count: 1, clock: clock)
    struct Connector: BackendConnector {
      let client: ProgressAPIClient
      func api(for userID: String) async throws -> any ProgressAPI { client }
    }
    let service = SyncService(
      connector: Connector(client: server.client()), outbox: SQLiteOutbox(database: database),
      moods: repository, clock: clock, connectivity: NetworkSwitch())

    var result = try await service.sync(userID: "alice")
    #expect(result.push.retrying == 1 && result.push.notBefore == clock.now.addingTimeInterval(60))
    limited.withLock { $0 = false }
    clock.advance(by: 59)
    result = try await service.sync(userID: "alice")
    #expect(result.push.untried == 1 && result.push.synced == 0)
    #expect(server.requests.count == 1, "a sync inside the Retry-After window must not call the backend")
    clock.advance(by: 1)
    result = try await service.sync(userID: "alice")
    #expect(result.push.synced == 1 && result.pullError == nil)
  }

  @Test func aCaptivePortalsHTMLIsTransientAndEndsThePass() async throws {
    let server = try ScriptedServer { _ in
      .http(200, "OK", body: "<html><body>Sign in to the hotel Wi-Fi</body></html>", contentType: "text/html")
    }
    defer { server.stop() }
    let clock = testClock()
    let (outbox, directory) = try await seeded(3, clock: clock)
    defer { try? FileManager.default.removeItem(at: directory) }
    let report = try await OutboxProcessor(outbox: outbox, api: server.client(), clock: clock)
      .run(userID: "alice")
    // The three rows went as one batch, which the portal answered.
    #expect(report.failed == 0 && report.retrying == 3 && report.untried == 0)
    #expect(report.stop != nil)
    #expect(try await outbox.pendingCount(userID: "alice") == 3)
    #expect(try await outbox.failedCount(userID: "alice") == 0)
  }

  @Test func anUnreadable201LeavesTheRowPending() async throws {
    let server = try ScriptedServer { _ in
      .http(201, "Created", body: #"{"data":{"id":"b1","type":"mood_sc"#)
    }
    defer { server.stop() }
    let client = server.client()
    await #expect {
      try await client.createProgress(body: progressBody(), idempotencyKey: nil)
    } throws: { error in
      guard case .unexpected(201, _) = error as? ProgressAPIError else { return false }
      return true
    }
    let clock = testClock()
    let (outbox, directory) = try await seeded(1, clock: clock)
    defer { try? FileManager.default.removeItem(at: directory) }
    let report = try await OutboxProcessor(outbox: outbox, api: client, clock: clock).run(userID: "alice")
    #expect(report.retrying == 1 && report.failed == 0)
    let row = try #require(try await outbox.pending(userID: "alice", dueAt: nil, limit: 1).first)
    #expect(row.status == .pending && row.attempts == 1)
  }

  @Test func onlyAWellFormedRefusalParksTheRowAsFailed() async throws {
    let answers: [(ScriptedServer.Answer, failed: Bool)] = [
      (.refusal(400, "Bad Request", message: "quantity must be 0 or more", code: "validation_failed"), true),
      (.refusal(422, "Unprocessable Content", message: "no", code: "validation_failed"), true),
      (.refusal(409, "Conflict", message: "already changed", code: "conflict"), true),
      (.http(400, "Bad Request", body: "<html>proxy says no</html>", contentType: "text/html"), false),
      (.http(400, "Bad Request", body: #"{"error":"no code"}"#), false),
      (.refusal(503, "Service Unavailable", message: "maintenance", code: "down"), false),
    ]
    for (answer, failed) in answers {
      let server = try ScriptedServer { _ in answer }
      defer { server.stop() }
      let clock = testClock()
      let (outbox, directory) = try await seeded(1, clock: clock)
      defer { try? FileManager.default.removeItem(at: directory) }
      let report = try await OutboxProcessor(outbox: outbox, api: server.client(), clock: clock)
        .run(userID: "alice")
      #expect(report.failed == (failed ? 1 : 0), "\(answer)")
      #expect(try await outbox.failedCount(userID: "alice") == (failed ? 1 : 0), "\(answer)")
      #expect(try await outbox.pendingCount(userID: "alice") == (failed ? 0 : 1), "\(answer)")
    }
  }

  @Test func aDrippingBackendTimesOutAtTheDeadlineAndTheRowWaits() async throws {
    // A byte every 50 ms never trips URLSession's idle timeout; the 0.5 s deadline must.
    // The body would take 14 hours, so however late a busy machine runs the deadline,
    // it is the only way the request can end (a 600-byte body once finished first, in
    // 30 s, on a machine whose threads were all busy).
    let server = try ScriptedServer { _ in
      .drip(
        head: "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n",
        body: Data(repeating: UInt8(ascii: " "), count: 1_000_000), interval: 0.05)
    }
    defer { server.stop() }
    let client = server.client(deadline: 0.5)
    #expect(client.requestDeadline == 0.5)
    await #expect(throws: ProgressAPIError.timeout) {
      try await client.createProgress(body: progressBody(), idempotencyKey: nil)
    }
    let clock = testClock()
    let (outbox, directory) = try await seeded(2, clock: clock)
    defer { try? FileManager.default.removeItem(at: directory) }
    let report = try await OutboxProcessor(outbox: outbox, api: client, clock: clock).run(userID: "alice")
    #expect(report.stop == .backendUnavailable(ProgressAPIError.timeout.description))
    #expect(report.retrying == 2 && report.untried == 0 && report.failed == 0)  // one batch
    #expect(try await outbox.pendingCount(userID: "alice") == 2)
  }

  @Test func theDeadlineDefaultsToTheTimeout() {
    let credentials = BackendCredentials(baseURL: URL(string: "http://127.0.0.1:1")!, apiKey: "k", token: "t")
    #expect(ProgressAPIClient(credentials: credentials).requestDeadline == 15)
    #expect(ProgressAPIClient(credentials: credentials, timeout: 30).requestDeadline == 30)
    #expect(ProgressAPIClient(credentials: credentials, requestDeadline: .nan).requestDeadline == 15)
  }

  /// Rows another client stored on the backend that no device of ours could have sent.
  static let pulledPage = """
    {"data":{"entries":[
      {"id":"good-1","type":"mood_score","quantity":7,"date":"2026-03-01","logged_at":"2026-03-01T09:00:00Z"},
      {"id":"huge","type":"mood_score","quantity":1e308,"date":"2026-03-01"},
      {"id":"zero","type":"mood_score","quantity":0,"date":"2026-03-01"},
      {"id":"eleven","type":"mood_score","quantity":11,"date":"2026-03-01"},
      {"id":"half","type":"mood_score","quantity":5.5,"date":"2026-03-01"},
      {"id":"negative","type":"mood_score","quantity":-3,"date":"2026-03-01"},
      {"id":"nan","type":"mood_score","quantity":"NaN","date":"2026-03-01"},
      {"id":"too-big-for-json","type":"mood_score","quantity":1e999,"date":"2026-03-01"},
      {"id":"bad-date","type":"mood_score","quantity":4,"date":"2026-13-45"},
      {"id":"bad-logged-at","type":"mood_score","quantity":4,"date":"someday","logged_at":"yesterday"},
      {"id":"far-future","type":"mood_score","quantity":4,"date":"9999-12-31"},
      {"id":"no-quantity","type":"mood_score","date":"2026-03-01"},
      {"id":"good-2","type":"mood_score","quantity":3,"date":"2026-02-27"}
    ],"total":13,"limit":100,"offset":0}}
    """

  @Test func outOfRangePulledRowsAreSkippedAndReportedAndTheGoodOnesArrive() async throws {
    let server = try ScriptedServer { request in
      request.method == "GET"
        ? .http(200, "OK", body: Self.pulledPage) : .http(201, "Created", body: Self.created)
    }
    defer { server.stop() }
    let clock = testClock()
    let repository = InMemoryMoodRepository()
    let report = try await MoodPull(api: server.client(), repository: repository, clock: clock)
      .run(userID: "alice")
    #expect(report.imported == 2)
    #expect(report.skippedCount == 11 && report.error == nil)
    let skippedIDs = Set(report.skipped.compactMap(\.backendID))
    #expect(
      skippedIDs == [
        "huge", "zero", "eleven", "half", "negative", "bad-date", "bad-logged-at", "far-future",
      ])
    // The three JSON could not carry are reported by what was wrong with them.
    #expect(report.skipped.filter { $0.backendID == nil }.count == 3)
    let all = repository.entries(userID: "alice", in: DateInterval(start: .distantPast, end: .distantFuture))
    #expect(Set(all.compactMap(\.backendID)) == ["good-1", "good-2"])
    #expect(all.map(\.score).sorted() == [3, 7])

    // Through sync, the skipped rows are reported beside what arrived.
    struct Connector: BackendConnector {
      let client: ProgressAPIClient
      func api(for userID: String) async throws -> any ProgressAPI { client }
    }
    let fresh = InMemoryMoodRepository()
    let result = try await SyncService(
      connector: Connector(client: server.client()), outbox: fresh.outbox, moods: fresh, clock: clock,
      connectivity: NetworkSwitch()
    ).sync(userID: "alice")
    #expect(result.pulled == 2 && result.pullSkippedCount == 11 && result.pullSkipped.count == 11)
  }

  @Test func aPageOfUnreadableRowsDoesNotEndThePullEarly() async throws {
    let server = try ScriptedServer { request in
      let second = request.path.contains("offset=2")
      let body =
        second
        ? #"{"data":{"entries":[{"id":"g","type":"mood_score","quantity":6,"date":"2026-03-01"}],"total":3,"limit":2,"offset":2}}"#
        : #"{"data":{"entries":[{"id":"a","quantity":"x"},{"id":"b"}],"total":3,"limit":2,"offset":0}}"#
      return .http(200, "OK", body: body)
    }
    defer { server.stop() }
    let repository = InMemoryMoodRepository()
    let report = try await MoodPull(api: server.client(), repository: repository, clock: testClock())
      .run(userID: "alice")
    #expect(report.imported == 1 && report.skippedCount == 2)
  }

  @Test func aPullThatGetsGarbageReportsItAndKeepsThePush() async throws {
    let server = try ScriptedServer { request in
      request.method == "GET"
        ? .http(200, "OK", body: "<html>portal</html>", contentType: "text/html")
        : .http(201, "Created", body: Self.created)
    }
    defer { server.stop() }
    let clock = testClock()
    let repository = InMemoryMoodRepository()
    struct Connector: BackendConnector {
      let client: ProgressAPIClient
      func api(for userID: String) async throws -> any ProgressAPI { client }
    }
    let result = try await SyncService(
      connector: Connector(client: server.client()), outbox: repository.outbox, moods: repository,
      clock: clock,
      connectivity: NetworkSwitch()
    ).sync(userID: "alice")
    #expect(result.pulled == 0)
    guard case .unexpected(200, _) = result.pullError else {
      Issue.record("expected the pull's error to be reported, got \(String(describing: result.pullError))")
      return
    }
  }

  @Test func scoresAreCheckedBeforeConversion() {
    for quantity in [1e308, -1e308, .infinity, -.infinity, .nan, 0, 11, 5.5, -3, 10.000001, .ulpOfOne] {
      #expect(MoodPull.score(quantity) == nil, "\(quantity)")
    }
    #expect(MoodPull.score(1) == 1 && MoodPull.score(10) == 10 && MoodPull.score(7.0) == 7)
  }
}
