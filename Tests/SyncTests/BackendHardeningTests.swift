import FlowKit
import Foundation
import GRDB
import ProgressBackend
import Sync
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The backend's refusals of hostile or broken input: body size, numbers,
/// query parameters, reused idempotency keys, batches, and connections that never
/// send a whole request. Each refusal is followed by a request that must still work.
@Suite struct BackendHardeningTests {
  // MARK: body size

  @Test func bodiesOverOneMebibyteGet413WithTheEnvelope() async throws {
    // No connection deadline: on a busy machine, sending a body the server refuses and
    // drains can outlast any fixed one, and a close mid-upload resets the connection
    // before the client reads the 413. The deadline has tests of its own.
    let backend = try await TestBackend.start(idleTimeout: nil)
    defer { Task { await backend.stop() } }
    let headers = backend.headers()
    // Valid JSON that is too large (padding inside notes), sent with a Content-Length.
    let padding = String(repeating: " ", count: (1 << 20) + 1)
    let large = #"{"type": "mood_score", "quantity": 3, "logged_at": "2026-03-02"\#(padding)}"#
    for (method, path) in [
      ("POST", "/api/v1/progress"), ("POST", "/api/v1/progress/batch"), ("POST", "/api/v1/journal"),
      ("PUT", "/api/v1/progress/some-id"),
    ] {
      let (status, json) = try await backend.raw(method, path, body: large, headers: headers)
      #expect(status == 413, "\(method) \(path)")
      #expect(json.errorCode == "payload_too_large", "\(method) \(path)")
      #expect(json.errorMessage?.isEmpty == false)
    }
    // Sent chunked, with no length to refuse it by: the reading stops at the limit.
    let connection = try await RawConnection.open(port: backend.port)
    var request = "POST /api/v1/progress HTTP/1.1\r\nHost: localhost\r\nX-API-Key: \(apiKey)\r\n"
    request += "Authorization: Bearer \(backend.server.token(for: "alice"))\r\n"
    request += "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    #expect(await connection.send(request))
    let chunk = String(repeating: " ", count: 64 * 1_024)
    for _ in 0..<17 {  // 1 MiB + 64 KiB
      #expect(await connection.send(String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n"))
    }
    #expect(await connection.send("0\r\n\r\n"))
    let answer = await connection.receiveResponse()
    #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer.prefix(200))")
    #expect(answer.contains(#""code":"payload_too_large""#))
    connection.close()
    // At the limit it is read, and the server still answers.
    let notes = String(repeating: "n", count: 10)
    let exact = #"{"type": "mood_score", "quantity": 3, "logged_at": "2026-03-02", "notes": "\#(notes)"}"#
    let fill = String(repeating: " ", count: (1 << 20) - exact.utf8.count)
    let (status, json) = try await backend.raw(
      "POST", "/api/v1/progress", body: String(exact.dropLast()) + fill + "}", headers: headers)
    #expect(status == 201)
    #expect((json["data"] as? [String: Any])?["notes"] as? String == notes)
  }

  // MARK: failures

  /// A failure the server did not foresee (here its table is gone) is answered 500 with
  /// the envelope and an id; the error's own text (SQL, paths) goes to the log only.
  @Test func aServerFailureIsA500NamingAnIdAndTheErrorIsLoggedNotSent() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wellflow-500-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("backend.sqlite").path
    let logged = Locked<[(id: String, error: String)]>([])
    let server = try ProgressServer(
      configuration: ProgressServer.Configuration(
        databasePath: path, apiKey: apiKey, jwtSecret: jwtSecret,
        failureLog: { id, error in logged.withLock { $0.append((id, "\(error)")) } }))
    let backend = TestBackend(server: server, url: try await server.start())
    defer { Task { await backend.stop() } }
    try await DatabaseQueue(path: path).write { try $0.execute(sql: "DROP TABLE progress") }
    let (status, json) = try await backend.raw("GET", "/api/v1/progress", headers: backend.headers())
    #expect(status == 500)
    #expect(json.errorCode == "internal")
    let entries = logged.current
    #expect(entries.count == 1)
    let id = try #require(entries.first?.id)
    #expect(id.count == 8)
    #expect(json.errorMessage == "the server failed; its log names this failure \(id)")
    #expect(entries.first?.error.contains("no such table") == true, "\(entries)")
  }

  /// `entry_id`, when sent, is text: a number or an object is refused, not ignored (a
  /// client that sent one would otherwise get a second row for its entry on every retry).
  @Test func anEntryIDThatIsNotTextIs400() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    for value in ["5", "{}", "[\"a\"]", "true"] {
      let body = #"{"type": "mood_score", "quantity": 3, "logged_at": "2026-03-02", "entry_id": \#(value)}"#
      let (status, json) = try await backend.raw(
        "POST", "/api/v1/progress", body: body, headers: backend.headers())
      #expect(status == 400, "\(value)")
      #expect(json.errorMessage == "entry_id must be text", "\(value)")
    }
    let null = #"{"type": "mood_score", "quantity": 3, "logged_at": "2026-03-02", "entry_id": null}"#
    #expect(
      try await backend.raw("POST", "/api/v1/progress", body: null, headers: backend.headers()).status == 201)
  }

  /// Header bytes that are not UTF-8 would all read as U+FFFD, so the keys 0x85 and 0x86
  /// would be one key and the second write would get the first one's answer.
  @Test func anIdempotencyKeyThatIsNotUTF8IsRefusedNotMergedWithAnother() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    for byte in [0x85, 0x86, 0xFF] {
      let connection = try await RawConnection.open(port: backend.port)
      let body = #"{"type": "mood_score", "quantity": 3, "logged_at": "2026-03-02"}"#
      var head = "POST /api/v1/progress HTTP/1.1\r\nHost: localhost\r\nX-API-Key: \(apiKey)\r\n"
      head +=
        "Authorization: Bearer \(backend.server.token(for: "alice"))\r\nContent-Type: application/json\r\n"
      head += "Content-Length: \(body.utf8.count)\r\nConnection: close\r\nIdempotency-Key: k"
      #expect(await connection.send(bytes: Array(head.utf8) + [UInt8(byte)] + Array("\r\n\r\n\(body)".utf8)))
      let answer = await connection.receiveResponse()
      #expect(answer.hasPrefix("HTTP/1.1 400"), "\(byte): \(answer.prefix(200))")
      #expect(answer.contains(#""message":"the Idempotency-Key header is not UTF-8 text""#), "\(answer)")
      connection.close()
    }
    #expect(try await backend.client("alice").listProgress(ListQuery()).total == 0)
  }

  // MARK: numbers

  @Test func aScoreThatIsNotAWholeNumberFromOneToTenIs400AndTheServerLives() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let headers = backend.headers()
    let kept = try await backend.client("alice").createProgress(
      body: progressBody(quantity: 4), idempotencyKey: nil)
    let quantities = [
      "-1e19", "1e19", "0", "-0", "11", "5.5", "1.0000001", "1e308", "-1e308", "1e400", "9223372036854775807",
      "9223372036854775808", "-9223372036854775809", "\"7\"", "true", "null", "[7]", "{}", "NaN", "Infinity",
      "-Infinity", "nan", "0x7", "07", "+7", ".5",
    ]
    for quantity in quantities {
      let body = #"{"type": "mood_score", "quantity": \#(quantity), "logged_at": "2026-03-02"}"#
      for (method, path) in [("POST", "/api/v1/progress"), ("PUT", "/api/v1/progress/\(kept.id)")] {
        let (status, json) = try await backend.raw(method, path, body: body, headers: headers)
        #expect(status == 400, "\(method) quantity \(quantity)")
        #expect(json.errorCode == "validation_failed", "\(method) quantity \(quantity)")
        #expect(json.errorMessage?.isEmpty == false)
      }
    }
    // Another type is not a mood score.
    let steps = #"{"type": "steps", "quantity": 5, "logged_at": "2026-03-02"}"#
    #expect(try await backend.raw("POST", "/api/v1/progress", body: steps, headers: headers).status == 400)
    // Nested too deep for the decoder: refused, not a crash.
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    let nested = #"{"type": "mood_score", "quantity": 5, "logged_at": "2026-03-02", "x": \#(deep)}"#
    #expect(try await backend.raw("POST", "/api/v1/progress", body: nested, headers: headers).status == 400)
    // The server is alive, nothing was stored or changed, and the bounds themselves are scores.
    let client = backend.client("alice")
    #expect(try await client.listProgress(ListQuery()).entries == [kept])
    for score in [1.0, 10.0] {
      #expect(
        try await client.createProgress(body: progressBody(quantity: score), idempotencyKey: nil).quantity
          == score)
    }
    let (status, json) = try await backend.raw(
      "POST", "/api/v1/progress",
      body: #"{"type": "mood_score", "quantity": 7.0, "logged_at": "2026-03-02"}"#,
      headers: headers)
    #expect(status == 201)
    #expect((json["data"] as? [String: Any])?["quantity"] as? Double == 7)
    #expect(try await client.listProgress(ListQuery()).total == 4)
  }

  @Test func badLimitsOffsetsAndDatesAre400NotACrash() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let headers = backend.headers()
    for query in [
      "limit=1e300", "limit=-1", "limit=99999999999999999999", "limit=", "limit=1.5", "limit=%2B5",
      "limit=%EF%BC%91",
      "offset=-1", "offset=99999999999999999999", "offset=1e300", "offset=", "offset=NaN",
      "from=2026-02-30", "to=2026-02-29", "from=2026-04-31", "from=0000-00-00", "from=2026-3-1",
      "to=2026-03-1x",
      "from=%EF%BC%92026-03-01", "to=2026-03-02T00:00:00Z",
    ] {
      for resource in ["progress", "journal"] {
        let (status, json) = try await backend.raw("GET", "/api/v1/\(resource)?\(query)", headers: headers)
        #expect(status == 400, "\(resource)?\(query)")
        #expect(json.errorCode == "validation_failed", "\(resource)?\(query)")
      }
    }
    for loggedAt in [
      "2026-02-30", "2026-02-29T10:00:00Z", "2026-13-01", "2026-03-02T+1:00:00Z", "2026-03-02T10:+1:00Z",
      "2026-03-02T1٣:00:00Z", "2026-03-02T10:00:00+1:00", "2026-03-02T24:00:00Z",
    ] {
      let body = #"{"type": "mood_score", "quantity": 3, "logged_at": "\#(loggedAt)"}"#
      let (status, json) = try await backend.raw("POST", "/api/v1/progress", body: body, headers: headers)
      #expect(status == 400, "logged_at \(loggedAt)")
      #expect(json.errorCode == "validation_failed")
    }
    // The largest offset is a valid, empty page; the server is alive.
    let (status, json) = try await backend.raw(
      "GET", "/api/v1/progress?offset=9223372036854775807&limit=100", headers: headers)
    #expect(status == 200)
    #expect(((json["data"] as? [String: Any])?["entries"] as? [Any])?.isEmpty == true)
    _ = try await backend.client("alice").createProgress(body: progressBody(), idempotencyKey: nil)
  }

  // MARK: idempotency keys

  @Test func aReusedKeyReplaysTheSameRequestAndRefusesAnotherWith422() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    var headers = backend.headers()
    headers["Idempotency-Key"] = "k-1"
    let body = #"{"type": "mood_score", "quantity": 4, "logged_at": "2026-03-02", "notes": "tea"}"#
    let (created, first) = try await backend.raw("POST", "/api/v1/progress", body: body, headers: headers)
    #expect(created == 201)
    let id = try #require((first["data"] as? [String: Any])?["id"] as? String)
    // The same request, its keys in another order and spaced otherwise: the first answer.
    let reordered = #"{"notes":"tea","logged_at":"2026-03-02","quantity":4.0,"type":"mood_score"}"#
    let (again, replay) = try await backend.raw("POST", "/api/v1/progress", body: reordered, headers: headers)
    #expect(again == 201)
    #expect((replay["data"] as? [String: Any])?["id"] as? String == id)
    // Another body, method or path under the key: 422, and nothing happens.
    let other = #"{"type": "mood_score", "quantity": 9, "logged_at": "2026-03-02", "notes": "tea"}"#
    let journal = #"{"created_at": "2026-03-02T08:00:00Z", "curriculum_id": 1, "initiated_by": "self"}"#
    let refused: [(String, String, String?)] = [
      ("POST", "/api/v1/progress", other),
      ("POST", "/api/v1/progress", #"{"type": "mood_score", "quantity": 4, "logged_at": "2026-03-02"}"#),
      ("POST", "/api/v1/progress", "not json"),
      ("DELETE", "/api/v1/progress/\(id)", nil),
      ("PUT", "/api/v1/progress/\(id)", body),
      ("POST", "/api/v1/journal", journal),
    ]
    for (method, path, body) in refused {
      let (status, json) = try await backend.raw(method, path, body: body, headers: headers)
      #expect(status == 422, "\(method) \(path) \(body ?? "")")
      #expect(json.errorCode == "idempotency_key_reused", "\(method) \(path)")
      #expect(json.errorMessage?.isEmpty == false)
    }
    let client = backend.client("alice")
    let rows = try await client.listProgress(ListQuery())
    #expect(rows.total == 1)
    #expect(rows.entries.first?.id == id && rows.entries.first?.quantity == 4)
    #expect(try await client.listJournal(ListQuery()).total == 0)
    // A DELETE sent again with its key gets its 204 again, not a 404.
    headers["Idempotency-Key"] = "k-2"
    #expect(try await backend.raw("DELETE", "/api/v1/progress/\(id)", headers: headers).status == 204)
    #expect(try await backend.raw("DELETE", "/api/v1/progress/\(id)", headers: headers).status == 204)
    #expect(try await client.listProgress(ListQuery()).total == 0)
    // A refusal is not kept: the key is free for the request that follows.
    headers["Idempotency-Key"] = "k-3"
    #expect(
      try await backend.raw("PUT", "/api/v1/progress/\(id)", body: body, headers: headers).status == 404)
    #expect(try await backend.raw("POST", "/api/v1/progress", body: body, headers: headers).status == 201)
    #expect(try await client.listProgress(ListQuery()).total == 1)
  }

  // MARK: batch

  @Test func aBatchAnswersEachItemInOrderAsItsSingleCallWould() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let client = backend.client("alice")
    let kept = try await client.createProgress(body: progressBody(quantity: 2), idempotencyKey: nil)
    let gone = try await client.createProgress(body: progressBody(quantity: 3), idempotencyKey: nil)
    let bobs = try await backend.client("bob").createProgress(
      body: progressBody(quantity: 5), idempotencyKey: nil)
    let items: [[String: Any]] = [
      item("b-1", "POST", body: mood(6, notes: "first")),
      item("b-2", "POST", body: mood(11)),
      item("b-3", "PUT", id: kept.id, body: mood(8)),
      item("b-4", "DELETE", id: "no-such-row"),
      item("b-5", "DELETE", id: gone.id),
      item("b-6", "PUT", id: bobs.id, body: mood(1)),
      item("b-7", "DELETE", id: bobs.id),
      item("b-8", "POST", body: ["type": "mood_score", "quantity": "7", "logged_at": "2026-03-02"]),
      item("b-9", "POST", body: mood(7, loggedAt: "2026-03-05")),
    ]
    let results = try await backend.batch(items, user: "alice")
    #expect(results.map(\.status) == [201, 400, 200, 404, 204, 404, 404, 400, 201])
    #expect(results[0].data?["notes"] as? String == "first")
    #expect(results[0].data?["quantity"] as? Double == 6)
    #expect(results[2].data?["id"] as? String == kept.id && results[2].data?["quantity"] as? Double == 8)
    #expect(results[8].data?["date"] as? String == "2026-03-05")
    for index in [1, 7] {
      #expect(results[index].error?["code"] as? String == "validation_failed")
      #expect((results[index].error?["message"] as? String)?.isEmpty == false)
      #expect(results[index].data == nil)
    }
    for index in [3, 5, 6] { #expect(results[index].error?["code"] as? String == "not_found") }
    #expect(results[4].data == nil && results[4].error == nil)
    let rows = try await client.listProgress(ListQuery())
    #expect(Set(rows.entries.map(\.id)) == Set([kept.id, results[0].id, results[8].id].compactMap { $0 }))
    #expect(rows.entries.first { $0.id == kept.id }?.quantity == 8)
    // Bob's row is his alone.
    #expect(try await backend.client("bob").listProgress(ListQuery()).entries == [bobs])
  }

  @Test func aBatchItemAndASingleCallWithTheSameKeyAreTheSameRequest() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let client = backend.client("alice")
    let single = try await client.createProgress(body: progressBody(quantity: 4), idempotencyKey: "s-1")
    let body = try JSONSerialization.jsonObject(with: progressBody(quantity: 4)) as! [String: Any]
    let first = try await backend.batch(
      [
        item("s-1", "POST", body: body),  // the single call's request: its answer again
        item("b-1", "POST", body: mood(6)),
        item("b-1", "POST", body: mood(6)),  // the same key twice in one batch: the first answer
        item("b-2", "POST", body: mood(8)),
        item("b-2", "POST", body: mood(9)),  // another request under a key just used: 422
        item("s-1", "DELETE", id: single.id),  // another method under the single call's key: 422
        item("s-1", "POST", body: mood(5)),  // another body: 422
      ], user: "alice")
    #expect(first.map(\.status) == [201, 201, 201, 201, 422, 422, 422])
    #expect(first[0].id == single.id)
    #expect(first[1].id != nil && first[2].id == first[1].id)
    for index in 4...6 { #expect(first[index].error?["code"] as? String == "idempotency_key_reused") }
    // Single calls with a batch item's key get the batch's answer; another body is refused.
    let replayed = try await client.createProgress(
      body: Data(#"{"type":"mood_score","quantity":6,"logged_at":"2026-03-02"}"#.utf8), idempotencyKey: "b-1")
    #expect(replayed.id == first[1].id)
    var headers = backend.headers()
    headers["Idempotency-Key"] = "b-2"
    #expect(
      try await backend.raw(
        "POST", "/api/v1/progress", body: String(decoding: progressBody(quantity: 9), as: UTF8.self),
        headers: headers
      ).status
        == 422)
    // The whole batch sent again: the same answers, and no second row anywhere.
    let again = try await backend.batch(
      [
        item("s-1", "POST", body: body), item("b-1", "POST", body: mood(6)),
        item("b-1", "POST", body: mood(6)),
        item("b-2", "POST", body: mood(8)),
      ], user: "alice")
    #expect(again.map(\.status) == [201, 201, 201, 201])
    #expect(again.map(\.id) == first.prefix(4).map(\.id))
    #expect(try await client.listProgress(ListQuery()).total == 3)
    // A DELETE in a batch and a DELETE sent alone under one key.
    let deleted = try await backend.batch([item("d-1", "DELETE", id: single.id)], user: "alice")
    #expect(deleted.map(\.status) == [204])
    headers["Idempotency-Key"] = "d-1"
    #expect(try await backend.raw("DELETE", "/api/v1/progress/\(single.id)", headers: headers).status == 204)
    #expect(try await client.listProgress(ListQuery()).total == 2)
    // Keys are per user: bob's b-1 is his own.
    let bobs = try await backend.batch([item("b-1", "POST", body: mood(2))], user: "bob")
    #expect(bobs.map(\.status) == [201])
    #expect(bobs[0].id != first[1].id)
  }

  @Test func anOversizedOrMalformedBatchIs400AndWritesNothing() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let headers = backend.headers()
    let valid = item("v-1", "POST", body: mood(5))
    let tooMany = (0...100).map { item("many-\($0)", "POST", body: mood(5)) }
    let malformed: [(String, Any)] = [
      ("101 items", ["items": tooMany]),
      ("no items", ["things": [valid]]),
      ("items not an array", ["items": valid]),
      ("an item not an object", ["items": [valid, 7] as [Any]]),
      ("no key", ["items": [valid, ["method": "POST", "body": mood(5)] as [String: Any]]]),
      ("empty key", ["items": [valid, item("", "POST", body: mood(5))]]),
      (
        "number key",
        ["items": [valid, ["idempotency_key": 7, "method": "POST", "body": mood(5)] as [String: Any]]]
      ),
      ("bad method", ["items": [valid, item("m", "PATCH", id: "x", body: mood(5))]]),
      ("lower-case method", ["items": [valid, item("m", "post", body: mood(5))]]),
      ("PUT without id", ["items": [valid, item("m", "PUT", body: mood(5))]]),
      ("DELETE without id", ["items": [valid, item("m", "DELETE")]]),
      ("POST with id", ["items": [valid, item("m", "POST", id: "x", body: mood(5))]]),
      ("POST without body", ["items": [valid, item("m", "POST")]]),
      (
        "body not an object",
        ["items": [valid, ["idempotency_key": "m", "method": "POST", "body": [1]] as [String: Any]]]
      ),
      ("an array", [valid]),
    ]
    for (name, object) in malformed {
      let body = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
      let (status, json) = try await backend.raw(
        "POST", "/api/v1/progress/batch", body: body, headers: headers)
      #expect(status == 400, "\(name)")
      #expect(json.errorCode == "validation_failed", "\(name)")
      #expect(json.errorMessage?.isEmpty == false, "\(name)")
    }
    for body in ["not json", "", "{\"items\": [", "{\"items\": null}"] {
      let (status, json) = try await backend.raw(
        "POST", "/api/v1/progress/batch", body: body, headers: headers)
      #expect(status == 400, "\(body)")
      #expect(json.errorCode == "validation_failed")
    }
    #expect(try await backend.client("alice").listProgress(ListQuery()).total == 0)
    // Credentials as for every call; only POST on the batch.
    let (unauthorized, envelope) = try await backend.raw(
      "POST", "/api/v1/progress/batch", body: #"{"items": []}"#, headers: ["X-API-Key": apiKey])
    #expect(unauthorized == 401 && envelope.errorCode == "missing_token")
    #expect(try await backend.raw("GET", "/api/v1/progress/batch", headers: headers).status == 405)
    // 100 items is a batch; an empty one has no results.
    let hundred = try await backend.batch(
      (0..<100).map { item("h-\($0)", "POST", body: mood($0 % 10 + 1)) }, user: "alice")
    #expect(hundred.count == 100 && hundred.allSatisfy { $0.status == 201 })
    #expect(try await backend.batch([], user: "alice").isEmpty)
    #expect(try await backend.client("alice").listProgress(ListQuery()).total == 100)
  }

  // MARK: tokens

  @Test func aTokenSeenBeforeStillExpiresAndAForgedOneIsRefusedEveryTime() async throws {
    let clock = TestNow(Date(timeIntervalSince1970: 1_772_438_400))
    let server = try ProgressServer(
      configuration: ProgressServer.Configuration(apiKey: apiKey, jwtSecret: jwtSecret, now: { clock.now }))
    let backend = TestBackend(server: server, url: try await server.start())
    defer { Task { await backend.stop() } }
    let token = server.token(for: "alice", ttl: 60)
    for _ in 0..<3 {
      #expect(
        try await backend.raw("GET", "/api/v1/progress", headers: backend.headers(token: token)).status == 200
      )
    }
    clock.now += 60
    let (status, json) = try await backend.raw(
      "GET", "/api/v1/progress", headers: backend.headers(token: token))
    #expect(status == 401 && json.errorCode == "token_expired")
    let forged = JWT.sign(subject: "alice", secret: "guess", issuedAt: clock.now, expiresAt: clock.now + 60)
    for _ in 0..<3 {
      let (status, json) = try await backend.raw(
        "GET", "/api/v1/progress", headers: backend.headers(token: forged))
      #expect(status == 401 && json.errorCode == "invalid_token")
    }
    #expect(try await backend.raw("GET", "/api/v1/progress", headers: backend.headers()).status == 200)
  }

  // MARK: token claims

  @Test func aSubjectWithANULIsRefusedAndTheAccountItStartsWithIsUntouched() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let alice = backend.headers(user: "alice")
    var ids: [String] = []
    for quantity in [3, 7] {
      let body = String(decoding: try JSONSerialization.data(withJSONObject: mood(quantity)), as: UTF8.self)
      let (status, json) = try await backend.raw("POST", "/api/v1/progress", body: body, headers: alice)
      #expect(status == 201)
      ids.append(try #require((json["data"] as? [String: Any])?["id"] as? String))
    }
    let now = Date()
    let cut = JWT.sign(
      subject: "alice\u{0}anything", secret: jwtSecret, issuedAt: now, expiresAt: now + 3_600)
    let headers = backend.headers(token: cut)
    let message =
      "the bearer token's user (sub) holds the control character U+0000 at character 6"
      + " (a user id is 1 to 256 characters, none of them a control character)"
    for (method, path) in [
      ("GET", "/api/v1/progress"), ("GET", "/api/v1/progress/\(ids[0])"),
      ("DELETE", "/api/v1/progress/\(ids[0])"), ("PUT", "/api/v1/progress/\(ids[1])"),
      ("POST", "/api/v1/progress"), ("GET", "/api/v1/journal"),
    ] {
      let body =
        ["PUT", "POST"].contains(method)
        ? #"{"type": "mood_score", "quantity": 1, "logged_at": "2026-03-02"}"# : nil
      let (status, json) = try await backend.raw(method, path, body: body, headers: headers)
      #expect(status == 401, "\(method) \(path)")
      #expect(json.errorCode == "invalid_token", "\(method) \(path)")
      #expect(json.errorMessage == message, "\(method) \(path)")
    }
    // Alice's rows are as she left them.
    let (status, json) = try await backend.raw("GET", "/api/v1/progress", headers: alice)
    #expect(status == 200)
    let entries = try #require((json["data"] as? [String: Any])?["entries"] as? [[String: Any]])
    #expect(Set(entries.compactMap { $0["id"] as? String }) == Set(ids))
    #expect(Set(entries.compactMap { ($0["quantity"] as? NSNumber)?.intValue }) == [3, 7])
  }

  @Test func aSubjectIsAtMost256CharactersWithNoControlCharacter() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let long = String(repeating: "a", count: 256)
    #expect(
      try await backend.raw("GET", "/api/v1/progress", headers: backend.headers(user: long)).status == 200)
    let cases = [
      (long + "b", "has 257 characters"),
      ("bob\u{1B}[2J", "holds the control character U+001B at character 4"),
      ("bob\u{7F}", "holds the control character U+007F at character 4"),
      ("bob\u{85}", "holds the control character U+0085 at character 4"),
    ]
    for (subject, problem) in cases {
      let (status, json) = try await backend.raw(
        "GET", "/api/v1/progress", headers: backend.headers(user: subject))
      #expect(status == 401 && json.errorCode == "invalid_token", "\(problem)")
      #expect(
        json.errorMessage
          == "the bearer token's user (sub) \(problem) (a user id is 1 to 256 characters, none of them a control character)"
      )
    }
    // A subject that is not text is no user either.
    let (status, json) = try await backend.raw(
      "GET", "/api/v1/progress", headers: backend.headers(token: signed(#"{"sub":42,"exp":4102444800}"#)))
    #expect(status == 401 && json.errorCode == "invalid_token")
    #expect(json.errorMessage?.hasPrefix("the bearer token's user (sub) is not text") == true)
  }

  @Test func expiryIsRequiredANumberAndInTheFuture() async throws {
    let clock = TestNow(Date(timeIntervalSince1970: 1_772_438_400))
    let backend = try await TestBackend.start(clock: clock)
    defer { Task { await backend.stop() } }
    let now = 1_772_438_400
    let cases: [(String, String, String)] = [
      (#"{"sub":"alice"}"#, "invalid_token", "the bearer token has no expiry (exp); every token must expire"),
      (
        #"{"sub":"alice","iat":\#(now)}"#, "invalid_token",
        "the bearer token has no expiry (exp); every token must expire"
      ),
      (
        #"{"sub":"alice","exp":"\#(now + 3_600)"}"#, "invalid_token",
        "the bearer token's exp is not a number (seconds since 1970)"
      ),
      (
        #"{"sub":"alice","exp":true}"#, "invalid_token",
        "the bearer token's exp is not a number (seconds since 1970)"
      ),
      (
        #"{"sub":"alice","exp":null}"#, "invalid_token",
        "the bearer token's exp is not a number (seconds since 1970)"
      ),
      (#"{"sub":"alice","exp":\#(now - 1)}"#, "token_expired", "the bearer token has expired"),
      (#"{"sub":"alice","exp":\#(now)}"#, "token_expired", "the bearer token has expired"),
    ]
    for (claims, code, message) in cases {
      let (status, json) = try await backend.raw(
        "GET", "/api/v1/progress", headers: backend.headers(token: signed(claims)))
      #expect(status == 401, "\(claims)")
      #expect(json.errorCode == code, "\(claims)")
      #expect(json.errorMessage == message, "\(claims)")
    }
    let valid = signed(#"{"sub":"alice","exp":\#(now + 1)}"#)
    #expect(
      try await backend.raw("GET", "/api/v1/progress", headers: backend.headers(token: valid)).status == 200)
  }

  @Test func notBeforeAndIssuedAtMayNotBeInTheFutureBeyondTheLeeway() async throws {
    let clock = TestNow(Date(timeIntervalSince1970: 1_772_438_400))
    let backend = try await TestBackend.start(clock: clock)
    defer { Task { await backend.stop() } }
    let now = 1_772_438_400
    let exp = now + 3_600
    let refused: [(String, String)] = [
      (#"{"sub":"alice","exp":\#(exp),"nbf":\#(now + 31)}"#, "the bearer token is not valid yet (nbf)"),
      (
        #"{"sub":"alice","exp":\#(exp),"nbf":\#(now + 1_000_000)}"#, "the bearer token is not valid yet (nbf)"
      ),
      (
        #"{"sub":"alice","exp":\#(exp),"iat":\#(now + 31)}"#,
        "the bearer token was issued in the future (iat)"
      ),
      (
        #"{"sub":"alice","exp":\#(exp),"nbf":"\#(now)"}"#,
        "the bearer token's nbf is not a number (seconds since 1970)"
      ),
      (
        #"{"sub":"alice","exp":\#(exp),"iat":"\#(now)"}"#,
        "the bearer token's iat is not a number (seconds since 1970)"
      ),
    ]
    for (claims, message) in refused {
      let (status, json) = try await backend.raw(
        "GET", "/api/v1/progress", headers: backend.headers(token: signed(claims)))
      #expect(status == 401 && json.errorCode == "invalid_token", "\(claims)")
      #expect(json.errorMessage == message, "\(claims)")
    }
    // Within 30 s of the server's clock, and in the past, they are accepted.
    for claims in [
      #"{"sub":"alice","exp":\#(exp),"nbf":\#(now + 30),"iat":\#(now + 30)}"#,
      #"{"sub":"alice","exp":\#(exp),"nbf":\#(now - 60),"iat":\#(now - 60)}"#,
    ] {
      let (status, _) = try await backend.raw(
        "GET", "/api/v1/progress", headers: backend.headers(token: signed(claims)))
      #expect(status == 200, "\(claims)")
    }
    // A token not yet valid becomes valid when its time comes (the refusal is not kept).
    let later = signed(#"{"sub":"alice","exp":\#(exp),"nbf":\#(now + 100)}"#)
    #expect(
      try await backend.raw("GET", "/api/v1/progress", headers: backend.headers(token: later)).status == 401)
    clock.now += 100
    #expect(
      try await backend.raw("GET", "/api/v1/progress", headers: backend.headers(token: later)).status == 200)
  }

  @Test func onlyHS256IsAccepted() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let claims = #"{"sub":"alice","exp":4102444800}"#
    let valid = signed(claims)
    let payload = valid.split(separator: ".")[1]
    let cases: [(String, String)] = [
      ("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.\(payload).", "none"),  // {"alg":"none","typ":"JWT"}
      (signed(claims, header: #"{"alg":"none","typ":"JWT"}"#), "none"),
      (signed(claims, header: #"{"alg":"HS384","typ":"JWT"}"#), "HS384"),
      (signed(claims, header: #"{"alg":"HS512","typ":"JWT"}"#), "HS512"),
      (signed(claims, header: #"{"alg":"hs256","typ":"JWT"}"#), "hs256"),
      (signed(claims, header: #"{"typ":"JWT"}"#), "nothing"),
    ]
    for (token, alg) in cases {
      let (status, json) = try await backend.raw(
        "GET", "/api/v1/progress", headers: backend.headers(token: token))
      #expect(status == 401 && json.errorCode == "invalid_token", "\(alg)")
      #expect(json.errorMessage == "the bearer token is signed with \(alg); only HS256 is accepted", "\(alg)")
    }
    #expect(
      try await backend.raw("GET", "/api/v1/progress", headers: backend.headers(token: valid)).status == 200)
    #expect(try await backend.raw("GET", "/api/v1/progress", headers: backend.headers()).status == 200)
  }

  @Test func issuerAndAudienceAreCheckedOnlyWhenTheServerIsConfiguredWithThem() async throws {
    let server = try ProgressServer(
      configuration: ProgressServer.Configuration(
        apiKey: apiKey, jwtSecret: jwtSecret, jwtIssuer: "wellflow", jwtAudience: "progress"))
    let backend = TestBackend(server: server, url: try await server.start())
    defer { Task { await backend.stop() } }
    // The server's own tokens carry them.
    #expect(try await backend.raw("GET", "/api/v1/progress", headers: backend.headers()).status == 200)
    let exp = Int(Date().timeIntervalSince1970) + 3_600
    let cases: [(String, Int, String?)] = [
      (
        #"{"sub":"alice","exp":\#(exp)}"#, 401,
        "the bearer token is not from the issuer this server accepts (iss)"
      ),
      (
        #"{"sub":"alice","exp":\#(exp),"iss":"other","aud":"progress"}"#, 401,
        "the bearer token is not from the issuer this server accepts (iss)"
      ),
      (
        #"{"sub":"alice","exp":\#(exp),"iss":"wellflow"}"#, 401,
        "the bearer token is not meant for this server (aud)"
      ),
      (
        #"{"sub":"alice","exp":\#(exp),"iss":"wellflow","aud":["other"]}"#, 401,
        "the bearer token is not meant for this server (aud)"
      ),
      (#"{"sub":"alice","exp":\#(exp),"iss":"wellflow","aud":"progress"}"#, 200, nil),
      (#"{"sub":"alice","exp":\#(exp),"iss":"wellflow","aud":["other","progress"]}"#, 200, nil),
    ]
    for (claims, expected, message) in cases {
      let (status, json) = try await backend.raw(
        "GET", "/api/v1/progress", headers: backend.headers(token: signed(claims)))
      #expect(status == expected, "\(claims)")
      if let message { #expect(json.errorMessage == message, "\(claims)") }
    }
    // A server configured with neither ignores them.
    let plain = try await TestBackend.start()
    defer { Task { await plain.stop() } }
    let foreign = signed(#"{"sub":"alice","exp":\#(exp),"iss":"other","aud":"elsewhere"}"#)
    #expect(
      try await plain.raw("GET", "/api/v1/progress", headers: plain.headers(token: foreign)).status == 200)
  }

  @Test func tokensTheProductIssuesAlwaysExpireAndNameAUserTheServerAccepts() throws {
    let now = Date(timeIntervalSince1970: 1_772_438_400)
    let token = try JWT.issue(subject: "alice", secret: "s", now: now, ttl: 3_600)
    #expect(try JWT.verify(token, secret: "s", now: now + 3_599) == "alice")
    #expect(throws: JWT.Failure.expired) { try JWT.verify(token, secret: "s", now: now + 3_600) }
    #expect(throws: JWT.Failure.invalidSubject("holds the control character U+0000 at character 6")) {
      try JWT.issue(subject: "alice\u{0}x", secret: "s", now: now, ttl: 3_600)
    }
    #expect(throws: JWT.Failure.invalidSubject("is empty")) {
      try JWT.issue(subject: "", secret: "s", now: now, ttl: 3_600)
    }
    #expect(throws: JWT.Failure.invalidSubject("has 257 characters")) {
      try JWT.issue(subject: String(repeating: "u", count: 257), secret: "s", now: now, ttl: 3_600)
    }
    // The server's tokens (the runner's among them) carry exp.
    let server = try ProgressServer(
      configuration: ProgressServer.Configuration(apiKey: "k", jwtSecret: "s", now: { now }))
    let issued = server.token(for: "dana", ttl: 60)
    #expect(try JWT.verify(issued, secret: "s", now: now + 59) == "dana")
    #expect(throws: JWT.Failure.expired) { try JWT.verify(issued, secret: "s", now: now + 60) }
  }

  @Test func idsKeysAndNotesWithANULAreRefusedRatherThanCut() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let alice = backend.headers(user: "alice")
    let (created, json) = try await backend.raw(
      "POST", "/api/v1/progress",
      body: #"{"type": "mood_score", "quantity": 5, "logged_at": "2026-03-02", "entry_id": "e1"}"#,
      headers: alice)
    #expect(created == 201)
    let id = try #require((json["data"] as? [String: Any])?["id"] as? String)
    let at = id.unicodeScalars.count + 1
    let refusals: [(String, String, String?, String)] = [
      (
        "DELETE", "/api/v1/progress/\(id)%00junk", nil,
        "the id in the path holds the control character U+0000 at character \(at)"
      ),
      (
        "GET", "/api/v1/progress/\(id)%00", nil,
        "the id in the path holds the control character U+0000 at character \(at)"
      ),
      (
        "PUT", "/api/v1/progress/\(id)%1B",
        #"{"type": "mood_score", "quantity": 1, "logged_at": "2026-03-02"}"#,
        "the id in the path holds the control character U+001B at character \(at)"
      ),
      (
        "POST", "/api/v1/progress",
        #"{"type": "mood_score", "quantity": 1, "logged_at": "2026-03-02", "entry_id": "e1\u0000x"}"#,
        "entry_id holds the control character U+0000 at character 3"
      ),
      (
        "POST", "/api/v1/progress",
        #"{"type": "mood_score", "quantity": 1, "logged_at": "2026-03-02", "notes": "a\u0000b"}"#,
        "notes must not hold the NUL character (U+0000)"
      ),
      (
        "POST", "/api/v1/progress/batch",
        #"{"items": [{"idempotency_key": "k", "method": "DELETE", "id": "\#(id)\u0000"}]}"#,
        "items[0].id holds the control character U+0000 at character \(at)"
      ),
      (
        "POST", "/api/v1/progress/batch",
        #"{"items": [{"idempotency_key": "k\u0000", "method": "DELETE", "id": "\#(id)"}]}"#,
        "items[0].idempotency_key holds the control character U+0000 at character 2"
      ),
    ]
    for (method, path, body, message) in refusals {
      let (status, json) = try await backend.raw(method, path, body: body, headers: alice)
      #expect(status == 400, "\(method) \(path)")
      #expect(json.errorCode == "validation_failed", "\(method) \(path)")
      #expect(json.errorMessage == message, "\(method) \(path)")
    }
    // Line breaks and tabs are text a person types.
    let (typed, _) = try await backend.raw(
      "POST", "/api/v1/progress",
      body: #"{"type": "mood_score", "quantity": 6, "logged_at": "2026-03-02", "notes": "one\ntwo\tthree"}"#,
      headers: alice)
    #expect(typed == 201)
    // The first row is as it was.
    let (status, row) = try await backend.raw("GET", "/api/v1/progress/\(id)", headers: alice)
    #expect(status == 200)
    #expect(((row["data"] as? [String: Any])?["quantity"] as? NSNumber)?.intValue == 5)
    #expect(try await backend.client("alice").listProgress(ListQuery()).total == 2)
  }

  // MARK: connections

  @Test func aConnectionThatSendsNoCompleteRequestIsClosed() async throws {
    let backend = try await TestBackend.start(idleTimeout: 0.3)
    defer { Task { await backend.stop() } }
    // Opened and silent.
    let silent = try await RawConnection.open(port: backend.port)
    #expect(await silent.receiveUntilClosed() == .closed(received: 0))
    silent.close()
    // Half a request head.
    let partial = try await RawConnection.open(port: backend.port)
    #expect(await partial.send("POST /api/v1/progress HTTP/1.1\r\nHost: localhost\r\nContent-Le"))
    #expect(await partial.receiveUntilClosed() == .closed(received: 0))
    partial.close()
    // A body dripped a byte at a time: the bytes as they come do not keep it open.
    let drip = try await RawConnection.open(port: backend.port)
    #expect(
      await drip.send("POST /api/v1/progress HTTP/1.1\r\nHost: localhost\r\nContent-Length: 200\r\n\r\n"))
    var closedWhileDripping = false
    for _ in 0..<100 {
      if await drip.isClosed() {
        closedWhileDripping = true
        break
      }
      _ = await drip.send(" ")
      try await Task.sleep(for: .milliseconds(100))
    }
    #expect(closedWhileDripping)
    drip.close()
    // The server still answers whole requests.
    #expect(try await backend.client("alice").listProgress(ListQuery()).total == 0)
  }
  // That a request read whole is answered however long it takes is tested on an event
  // loop whose clock the test moves (RequestDeadlineHandlerTests).

  @Test func headersOverTheParsersLimitGet431WithTheEnvelope() async throws {
    // No connection deadline: the answer must not depend on how fast the bytes go.
    let backend = try await TestBackend.start(idleTimeout: nil)
    defer { Task { await backend.stop() } }
    let token = String(repeating: "t", count: 100 * 1_024)
    let key = String(repeating: "k", count: 1 << 20)
    for header in ["Authorization: Bearer \(token)", "Idempotency-Key: \(key)"] {
      let connection = try await RawConnection.open(port: backend.port)
      var request = "POST /api/v1/progress HTTP/1.1\r\nHost: localhost\r\nX-API-Key: \(apiKey)\r\n"
      request += "\(header)\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
      #expect(await connection.send(request))
      let answer = await connection.receiveResponse()
      #expect(answer.hasPrefix("HTTP/1.1 431"), "\(answer.prefix(200))")
      #expect(answer.lowercased().contains("content-type: application/json"))
      #expect(
        answer.hasSuffix(
          #"{"error":{"code":"headers_too_large","message":"the request's headers are over the server's limit (80 KiB in all, 1000 fields)"}}"#
        ), "\(answer.prefix(400))")
      #expect(await connection.receiveUntilClosed() == .closed(received: 0))
      connection.close()
    }
    // Bytes that are no HTTP request are 400 with the envelope too.
    let garbage = try await RawConnection.open(port: backend.port)
    #expect(await garbage.send("\u{1}\u{2} nonsense\r\n\r\n"))
    let answer = await garbage.receiveResponse()
    #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(200))")
    #expect(answer.contains(#""code":"malformed_request""#), "\(answer)")
    garbage.close()
    // A whole request on the same connection first is answered first.
    let pipelined = try await RawConnection.open(port: backend.port)
    var first = "GET /api/v1/progress HTTP/1.1\r\nHost: localhost\r\nX-API-Key: \(apiKey)\r\n"
    first += "Authorization: Bearer \(backend.server.token(for: "alice"))\r\n\r\n"
    #expect(await pipelined.send(first + "GET /api/v1/progress HTTP/1.1\r\nX-Long: \(token)\r\n\r\n"))
    let answers = await pipelined.receiveResponse()
    #expect(answers.hasPrefix("HTTP/1.1 200"), "\(answers.prefix(200))")
    pipelined.close()
    // The server still answers.
    #expect(try await backend.client("alice").listProgress(ListQuery()).total == 0)
  }
}

// MARK: helpers

/// A batch item.
private func item(_ key: String, _ method: String, id: String? = nil, body: [String: Any]? = nil) -> [String:
  Any]
{
  var item: [String: Any] = ["idempotency_key": key, "method": method]
  if let id { item["id"] = id }
  if let body { item["body"] = body }
  return item
}

private func mood(_ quantity: Int, loggedAt: String = "2026-03-02", notes: String? = nil) -> [String: Any] {
  var body: [String: Any] = ["type": "mood_score", "quantity": quantity, "logged_at": loggedAt]
  if let notes { body["notes"] = notes }
  return body
}

/// A token with these claims (JSON text, as it is) under `header`, signed with the
/// tests' secret.
private func signed(_ claims: String, header: String = #"{"alg":"HS256","typ":"JWT"}"#) -> String {
  JWT.sign(header: header, payload: claims, secret: jwtSecret)
}

/// A clock a test moves.
private final class TestNow: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Date

  init(_ value: Date) { self.value = value }

  var now: Date {
    get { lock.withLock { value } }
    set { lock.withLock { value = newValue } }
  }
}

/// One result of a batch.
private struct BatchResult {
  var status: Int
  var data: [String: Any]?
  var error: [String: Any]?

  var id: String? { data?["id"] as? String }
}

extension TestBackend {
  /// A backend whose clock the test moves.
  fileprivate static func start(clock: TestNow) async throws -> TestBackend {
    var configuration = ProgressServer.Configuration(apiKey: apiKey, jwtSecret: jwtSecret, now: { clock.now })
    configuration.database = try await TestStore.chosen.emptyDatabase()
    let server = try ProgressServer(configuration: configuration)
    return TestBackend(server: server, url: try await server.start())
  }

  static func start(
    idleTimeout: TimeInterval?,
    fault: (@Sendable (_ method: String, _ path: String) async -> ProgressServer.Fault?)? = nil
  ) async throws -> TestBackend {
    var configuration = ProgressServer.Configuration(
      apiKey: apiKey, jwtSecret: jwtSecret, fault: fault, idleTimeout: idleTimeout)
    configuration.database = try await TestStore.chosen.emptyDatabase()
    let server = try ProgressServer(configuration: configuration)
    return TestBackend(server: server, url: try await server.start())
  }

  var port: Int { url.port! }

  /// `POST /api/v1/progress/batch`, expecting 200 and a result per item.
  fileprivate func batch(_ items: [[String: Any]], user: String) async throws -> [BatchResult] {
    let body = String(decoding: try JSONSerialization.data(withJSONObject: ["items": items]), as: UTF8.self)
    let (status, json) = try await raw(
      "POST", "/api/v1/progress/batch", body: body, headers: headers(user: user))
    #expect(status == 200)
    let results = try #require((json["data"] as? [String: Any])?["results"] as? [[String: Any]])
    #expect(results.count == items.count)
    return results.map {
      BatchResult(
        status: $0["status"] as? Int ?? -1, data: $0["data"] as? [String: Any],
        error: $0["error"] as? [String: Any])
    }
  }
}

/// A TCP connection to the loopback server for what no HTTP client sends: partial
/// requests, chunked floods, silence. Blocking calls run on a thread of their own.
private final class RawConnection: Sendable {
  enum Ending: Equatable {
    /// The server closed the connection after sending this many bytes.
    case closed(received: Int)
    /// Neither closed nor answered within the safety bound (a failure, not a measurement).
    case stillOpen
  }

  private let descriptor: Int32

  private init(descriptor: Int32) {
    self.descriptor = descriptor
  }

  #if canImport(Glibc)
    private static let noSignal = Int32(MSG_NOSIGNAL)
  #else
    private static let noSignal: Int32 = 0
  #endif

  static func open(port: Int) async throws -> RawConnection {
    try await open(port: port, sending: nil)
  }

  /// Connects and, on the same thread at once, sends `text` if given (throws if it
  /// could not be written whole).
  static func open(port: Int, sending text: String?) async throws -> RawConnection {
    let bytes = text.map { Array($0.utf8) }
    let descriptor = await offThread { () -> Int32 in
      #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
      #endif
      guard fd >= 0 else { return -1 }
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = in_port_t(UInt16(port).bigEndian)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      guard connected == 0 else {
        systemClose(fd)
        return -1
      }
      // A safety bound for every read, far above any deadline under test.
      var limit = timeval(tv_sec: 20, tv_usec: 0)
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
      #if !canImport(Glibc)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
      #endif
      if let bytes, !Self.write(bytes, to: fd) {
        systemClose(fd)
        return -2
      }
      return fd
    }
    guard descriptor != -2 else { throw POSIXError(.EPIPE) }
    guard descriptor >= 0 else { throw POSIXError(.ECONNREFUSED) }
    return RawConnection(descriptor: descriptor)
  }

  private static func write(_ bytes: [UInt8], to fd: Int32) -> Bool {
    var sent = 0
    while sent < bytes.count {
      let count = bytes[sent...].withUnsafeBytes { systemSend(fd, $0.baseAddress, $0.count, noSignal) }
      guard count > 0 else { return false }
      sent += count
    }
    return true
  }

  /// Whether all of `text` was written (false once the server has closed).
  func send(_ text: String) async -> Bool { await send(bytes: Array(text.utf8)) }

  /// Bytes as they are, for what is not UTF-8.
  func send(bytes: [UInt8]) async -> Bool {
    let fd = descriptor
    return await Self.offThread { Self.write(bytes, to: fd) }
  }

  /// Reads until the server closes the connection.
  func receiveUntilClosed() async -> Ending {
    let fd = descriptor
    return await Self.offThread {
      var received = 0
      var buffer = [UInt8](repeating: 0, count: 65_536)
      while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
          received += count
        } else if count == 0 || errno == ECONNRESET {
          return .closed(received: received)
        } else {
          return .stillOpen
        }
      }
    }
  }

  /// Whether the server has closed the connection (never waits).
  func isClosed() async -> Bool {
    let fd = descriptor
    return await Self.offThread {
      var byte: UInt8 = 0
      let count = recv(fd, &byte, 1, Int32(MSG_DONTWAIT))
      return count == 0 || (count < 0 && (errno == ECONNRESET || errno == EPIPE))
    }
  }

  /// One response as text: its head and as much body as its Content-Length says.
  func receiveResponse() async -> String {
    let fd = descriptor
    return await Self.offThread {
      var bytes: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 65_536)
      let separator = Array("\r\n\r\n".utf8)
      while true {
        if let end = (0..<max(bytes.count - 3, 0)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) {
          let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
          let length =
            head.components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
          if bytes.count - end - 4 >= length { return String(decoding: bytes, as: UTF8.self) }
        }
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return String(decoding: bytes, as: UTF8.self) }
        bytes += buffer[..<count]
      }
    }
  }

  func close() { systemClose(descriptor) }

  private static func offThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      Thread { continuation.resume(returning: body()) }.start()
    }
  }
}

private func systemClose(_ fd: Int32) {
  #if canImport(Glibc)
    _ = Glibc.close(fd)
  #else
    _ = Darwin.close(fd)
  #endif
}

private func systemSend(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
  #if canImport(Glibc)
    Glibc.send(fd, bytes, count, flags)
  #else
    Darwin.send(fd, bytes, count, flags)
  #endif
}
