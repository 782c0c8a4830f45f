import FlowKit
import Foundation
import ProgressBackend
import Sync
import SyncHTTPClient
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The progress API over loopback against the real server: credentials, bodies, answers,
/// idempotency and isolation.
@Suite struct BackendIntegrationTests {
  @Test func requestsWithoutValidCredentialsGet401AndTheEnvelope() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let now = Date()
    let forged = JWT.sign(subject: "alice", secret: "not-the-secret", issuedAt: now, expiresAt: now + 3_600)
    let expired = JWT.sign(subject: "alice", secret: jwtSecret, issuedAt: now - 7_200, expiresAt: now - 3_600)
    let noSubject = JWT.sign(subject: "", secret: jwtSecret, issuedAt: now, expiresAt: now + 3_600)
    let token = backend.server.token(for: "alice")
    let parts = token.split(separator: ".")
    let unsigned = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.\(parts[1])."
    let cases: [(String, [String: String], String)] = [
      ("no API key", ["Authorization": "Bearer \(token)"], "missing_api_key"),
      ("wrong API key", ["X-API-Key": "nope", "Authorization": "Bearer \(token)"], "invalid_api_key"),
      ("no token", ["X-API-Key": apiKey], "missing_token"),
      ("not bearer", ["X-API-Key": apiKey, "Authorization": "Basic abc"], "missing_token"),
      ("forged", backend.headers(token: forged), "invalid_token"),
      ("expired", backend.headers(token: expired), "token_expired"),
      ("no subject", backend.headers(token: noSubject), "invalid_token"),
      ("alg none", backend.headers(token: unsigned), "invalid_token"),
      ("garbage", backend.headers(token: "abc.def"), "invalid_token"),
    ]
    for (name, headers, code) in cases {
      for (method, path) in [("GET", "/api/v1/progress"), ("POST", "/api/v1/journal")] {
        let (status, json) = try await backend.raw(
          method, path, body: method == "POST" ? "{}" : nil, headers: headers)
        #expect(status == 401, "\(name) \(method) \(path)")
        #expect(json.errorCode == code, "\(name)")
        #expect(json.errorMessage?.isEmpty == false, "\(name)")
      }
    }
    // The client reports it as a typed error with the server's message.
    let client = ProgressAPIClient(
      credentials: BackendCredentials(baseURL: backend.url, apiKey: apiKey, token: forged))
    await #expect(throws: ProgressAPIError.unauthorized("the bearer token's signature does not match")) {
      try await client.listProgress(ListQuery())
    }
  }

  @Test func everyValidationErrorIs400WithTheEnvelope() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let headers = backend.headers()
    let long = String(repeating: "a", count: 501)
    let progress: [(String, String)] = [
      ("not json", "nope"),
      ("an array", "[1]"),
      ("no type", #"{"quantity": 3, "logged_at": "2026-03-02"}"#),
      ("no quantity", #"{"type": "mood_score", "logged_at": "2026-03-02"}"#),
      ("text quantity", #"{"type": "mood_score", "quantity": "3", "logged_at": "2026-03-02"}"#),
      ("negative quantity", #"{"type": "mood_score", "quantity": -1, "logged_at": "2026-03-02"}"#),
      ("no logged_at", #"{"type": "mood_score", "quantity": 3}"#),
      ("bad logged_at", #"{"type": "mood_score", "quantity": 3, "logged_at": "yesterday"}"#),
      ("no such day", #"{"type": "mood_score", "quantity": 3, "logged_at": "2026-02-30"}"#),
      ("bad time", #"{"type": "mood_score", "quantity": 3, "logged_at": "2026-03-02T25:00:00Z"}"#),
      (
        "long notes",
        #"{"type": "mood_score", "quantity": 3, "logged_at": "2026-03-02", "notes": "\#(long)"}"#
      ),
      ("number notes", #"{"type": "mood_score", "quantity": 3, "logged_at": "2026-03-02", "notes": 5}"#),
    ]
    for (name, body) in progress {
      let (status, json) = try await backend.raw("POST", "/api/v1/progress", body: body, headers: headers)
      #expect(status == 400, "\(name)")
      #expect(json.errorCode == "validation_failed", "\(name)")
      #expect(json.errorMessage?.isEmpty == false, "\(name)")
    }
    let journal: [(String, String, String)] = [
      ("no created_at", #"{"curriculum_id": 1, "initiated_by": "self"}"#, "created_at"),
      (
        "bad created_at", #"{"created_at": "soon", "curriculum_id": 1, "initiated_by": "self"}"#, "created_at"
      ),
      ("no curriculum", #"{"created_at": "2026-03-02T08:00:00Z", "initiated_by": "self"}"#, "curriculum_id"),
      (
        "unknown curriculum",
        #"{"created_at": "2026-03-02T08:00:00Z", "curriculum_id": 99999, "initiated_by": "self"}"#,
        "curriculum_id 99999 is not in the catalog"
      ),
      (
        "unknown secondary",
        #"{"created_at": "2026-03-02T08:00:00Z", "curriculum_id": 1, "secondary_curriculum_id": 0, "initiated_by": "self"}"#,
        "secondary_curriculum_id 0"
      ),
      (
        "unknown strategy",
        #"{"created_at": "2026-03-02T08:00:00Z", "curriculum_id": 1, "strategy_id": 99999, "initiated_by": "self"}"#,
        "strategy_id 99999"
      ),
      (
        "bad initiator",
        #"{"created_at": "2026-03-02T08:00:00Z", "curriculum_id": 1, "initiated_by": "robot"}"#,
        "initiated_by"
      ),
      (
        "fractional id",
        #"{"created_at": "2026-03-02T08:00:00Z", "curriculum_id": 1.5, "initiated_by": "self"}"#,
        "whole number"
      ),
    ]
    for (name, body, mentions) in journal {
      let (status, json) = try await backend.raw("POST", "/api/v1/journal", body: body, headers: headers)
      #expect(status == 400, "\(name)")
      #expect(json.errorMessage?.contains(mentions) == true, "\(name): \(json.errorMessage ?? "-")")
    }
    for query in [
      "limit=101", "limit=0", "limit=x", "offset=-1", "from=2026-13-01", "to=03/02/2026",
      "from=2026-03-05&to=2026-03-01",
    ] {
      for resource in ["progress", "journal"] {
        let (status, json) = try await backend.raw("GET", "/api/v1/\(resource)?\(query)", headers: headers)
        #expect(status == 400, "\(resource)?\(query)")
        #expect(json.errorCode == "validation_failed")
      }
    }
    // The client carries the server's message.
    await #expect(throws: ProgressAPIError.badRequest("quantity must be a whole number from 1 to 10, got -2"))
    {
      try await backend.client("alice").createProgress(body: progressBody(quantity: -2), idempotencyKey: nil)
    }
  }

  @Test func validRowsRoundTripWithDatesAndPagination() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let client = backend.client("alice")
    let created = try await client.createProgress(
      body: progressBody(quantity: 1, loggedAt: "2026-03-02T23:30:00+01:00", notes: "ok"), idempotencyKey: nil
    )
    #expect(created.date == "2026-03-02")
    #expect(created.quantity == 1)
    #expect(created.notes == "ok")
    let exactly500 = String(repeating: "n", count: 500)
    _ = try await client.createProgress(
      body: progressBody(loggedAt: "2026-03-01", notes: exactly500), idempotencyKey: nil)
    for day in 3...7 {
      _ = try await client.createProgress(
        body: progressBody(loggedAt: "2026-03-0\(day)"), idempotencyKey: nil)
    }
    let page = try await client.listProgress(ListQuery(limit: 2, offset: 2))
    #expect(page.total == 7)
    #expect(page.limit == 2 && page.offset == 2)
    #expect(page.entries.map(\.date) == ["2026-03-03", "2026-03-04"])
    let ranged = try await client.listProgress(ListQuery(from: "2026-03-02", to: "2026-03-04"))
    #expect(ranged.total == 3)
    #expect(try await client.listProgress(ListQuery(type: "steps")).total == 0)

    let updated = try await client.updateProgress(
      id: created.id, body: progressBody(quantity: 9, loggedAt: "2026-03-02"), idempotencyKey: nil)
    #expect(updated.id == created.id && updated.quantity == 9 && updated.notes == nil)
    try await client.deleteProgress(id: created.id, idempotencyKey: nil)
    #expect(try await client.listProgress(ListQuery()).total == 6)
    await #expect(throws: ProgressAPIError.self) {
      try await client.deleteProgress(id: created.id, idempotencyKey: nil)
    }

    let journal = try await client.createJournal(
      body: Data(
        #"{"created_at": "2026-03-02T08:00:00Z", "curriculum_id": 2, "secondary_curriculum_id": 1, "strategy_id": 5, "initiated_by": "scheduled"}"#
          .utf8),
      idempotencyKey: nil)
    #expect(journal.curriculumID == 2 && journal.secondaryCurriculumID == 1 && journal.strategyID == 5)
    #expect(try await client.listJournal(ListQuery()).entries == [journal])
  }

  @Test func theSameIdempotencyKeyGivesTheFirstResultAndNoSecondRow() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let client = backend.client("alice")
    let first = try await client.createProgress(body: progressBody(quantity: 4), idempotencyKey: "entry-1:1")
    let again = try await client.createProgress(body: progressBody(quantity: 4), idempotencyKey: "entry-1:1")
    #expect(again == first)
    #expect(try await client.listProgress(ListQuery()).total == 1)
    let journalBody = Data(
      #"{"created_at": "2026-03-02T08:00:00Z", "curriculum_id": 1, "initiated_by": "self"}"#.utf8)
    let j1 = try await client.createJournal(body: journalBody, idempotencyKey: "journal-1:1")
    let j2 = try await client.createJournal(body: journalBody, idempotencyKey: "journal-1:1")
    #expect(j1 == j2)
    #expect(try await client.listJournal(ListQuery()).total == 1)
    // Keys are per user: bob's same key is his own request.
    _ = try await backend.client("bob").createProgress(body: progressBody(), idempotencyKey: "entry-1:1")
    #expect(try await backend.client("bob").listProgress(ListQuery()).total == 1)
    // A newer revision of the same entry (a new key) updates the one row.
    let entry = UUID().uuidString
    let r1 = try await client.createProgress(
      body: progressBody(quantity: 2, entryID: entry), idempotencyKey: "\(entry):1")
    let r2 = try await client.createProgress(
      body: progressBody(quantity: 3, entryID: entry), idempotencyKey: "\(entry):2")
    #expect(r1.id == r2.id && r2.quantity == 3)
    #expect(try await client.listProgress(ListQuery()).total == 2)
  }

  @Test func aUserCannotReadChangeOrDeleteAnothersRows() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let alice = backend.client("alice")
    let bob = backend.client("bob")
    let row = try await alice.createProgress(body: progressBody(), idempotencyKey: nil)
    _ = try await alice.createJournal(
      body: Data(#"{"created_at": "2026-03-02T08:00:00Z", "curriculum_id": 1, "initiated_by": "self"}"#.utf8),
      idempotencyKey: nil)
    #expect(try await bob.listProgress(ListQuery()).total == 0)
    #expect(try await bob.listJournal(ListQuery()).total == 0)
    let (status, json) = try await backend.raw(
      "GET", "/api/v1/progress/\(row.id)", headers: backend.headers(user: "bob"))
    #expect(status == 404)
    #expect(json.errorCode == "not_found")
    await #expect(throws: ProgressAPIError.notFound("no progress entry \(row.id)")) {
      try await bob.deleteProgress(id: row.id, idempotencyKey: nil)
    }
    await #expect(throws: ProgressAPIError.self) {
      try await bob.updateProgress(id: row.id, body: progressBody(quantity: 1), idempotencyKey: nil)
    }
    #expect(try await alice.listProgress(ListQuery()).entries == [row])
  }

  /// One line per request: method, path without its query, status, milliseconds; no
  /// header or body, so no key, token or note reaches the log.
  @Test func eachRequestIsLoggedInOneLineWithoutSecrets() async throws {
    let lines = Locked<[String]>([])
    let server = try ProgressServer(
      configuration: ProgressServer.Configuration(
        apiKey: apiKey, jwtSecret: jwtSecret, requestLog: { line in lines.withLock { $0.append(line) } }))
    let backend = TestBackend(server: server, url: try await server.start())
    defer { Task { await backend.stop() } }
    _ = try await backend.raw(
      "POST", "/api/v1/progress",
      body: #"{"type":"mood_score","quantity":4,"logged_at":"2026-03-02","notes":"secret note"}"#,
      headers: backend.headers())
    _ = try await backend.raw("GET", "/api/v1/progress?from=2026-03-01", headers: backend.headers())
    _ = try await backend.raw("GET", "/api/v1/progress", headers: [:])
    let logged = lines.current
    #expect(logged.count == 3, "\(logged)")
    let shapes = logged.map { $0.replacing(/\ [0-9]+\.[0-9] ms$/, with: " _ ms") }
    #expect(
      shapes == [
        "POST /api/v1/progress 201 _ ms", "GET /api/v1/progress 200 _ ms", "GET /api/v1/progress 401 _ ms",
      ])
    let token = backend.server.token(for: "alice")
    #expect(
      !logged.joined().contains(apiKey) && !logged.joined().contains(token)
        && !logged.joined().contains("secret"))
  }

  @Test func unknownEndpointsAndMethodsAreRefused() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    #expect(try await backend.raw("GET", "/api/v1/nothing", headers: backend.headers()).status == 404)
    #expect(try await backend.raw("PATCH", "/api/v1/progress", headers: backend.headers()).status == 405)
    #expect(try await backend.raw("DELETE", "/api/v1/journal", headers: backend.headers()).status == 405)
    // A 405 says which methods the path takes (RFC 9110).
    for (method, path, allow) in [
      ("PATCH", "/api/v1/progress", "GET, POST"), ("TRACE", "/api/v1/journal", "GET, POST"),
      ("GET", "/api/v1/progress/batch", "POST"), ("POST", "/api/v1/progress/some-id", "GET, PUT, DELETE"),
    ] {
      var request = URLRequest(url: URL(string: backend.url.absoluteString + path)!, timeoutInterval: 600)
      request.httpMethod = method
      for (name, value) in backend.headers() { request.setValue(value, forHTTPHeaderField: name) }
      let (_, response) = try await URLSession.shared.data(for: request)
      let http = try #require(response as? HTTPURLResponse)
      #expect(http.statusCode == 405, "\(method) \(path)")
      #expect(http.value(forHTTPHeaderField: "Allow") == allow, "\(method) \(path)")
    }
  }

  @Test func tokensCarryTheUserAndTheTTLParses() throws {
    let now = Date(timeIntervalSince1970: 1_000_000)
    let token = JWT.sign(subject: "carol", secret: "s", issuedAt: now, expiresAt: now + 60)
    #expect(try JWT.verify(token, secret: "s", now: now + 59) == "carol")
    #expect(throws: JWT.Failure.expired) { try JWT.verify(token, secret: "s", now: now + 60) }
    #expect(throws: JWT.Failure.badSignature) { try JWT.verify(token, secret: "t", now: now) }
    #expect(JWT.parseTTL("1h") == 3_600)
    #expect(JWT.parseTTL("90m") == 5_400)
    #expect(JWT.parseTTL("2d") == 172_800)
    #expect(JWT.parseTTL("1y") == nil)
    #expect(JWT.parseTTL("h") == nil)
  }
}
