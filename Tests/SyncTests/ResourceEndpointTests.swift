import Foundation
import ProgressBackend
import Sync
import SyncHTTPClient
import Testing

/// The generic resource endpoint (`/api/v1/resources/{resource}`), with SQLite and with
/// PostgreSQL: any JSON object, kept per user and resource, idempotent as every write.
@Suite struct ResourceEndpointTests {
  static func start(_ store: TestStore) async throws -> TestBackend {
    var configuration = ProgressServer.Configuration(apiKey: apiKey, jwtSecret: jwtSecret)
    configuration.database = try await store.freshDatabase()
    let server = try ProgressServer(configuration: configuration)
    return TestBackend(server: server, url: try await server.start())
  }

  @Test(arguments: TestStore.available)
  func rowsAreCreatedListedUpdatedAndDeletedPerUser(store: TestStore) async throws {
    let backend = try await Self.start(store)
    defer { Task { await backend.stop() } }
    let alice = backend.client("alice")
    let created = try await alice.createResource(
      "breathing", body: Data(#"{"seconds": 60, "b": [1, "x", null], "a": {"z": true}}"#.utf8),
      idempotencyKey: "k1")
    #expect(created.body == ["a": ["z": true], "b": [1, "x", nil], "seconds": 60])
    _ = try await alice.createResource("breathing", body: Data(#"{"seconds": 90}"#.utf8), idempotencyKey: nil)
    var page = try await alice.listResource("breathing", ListQuery(limit: 1, offset: 1))
    #expect(page.total == 2 && page.limit == 1 && page.offset == 1)
    #expect(page.entries.map { $0.body } == [["seconds": 90]])
    // Kept as canonical JSON: members sorted, no spaces.
    let (_, raw) = try await backend.raw(
      "GET", "/api/v1/resources/breathing?limit=1", headers: backend.headers())
    let first = try #require(((raw["data"] as? [String: Any])?["entries"] as? [[String: Any]])?.first)
    #expect(first["id"] as? String == created.id)

    let updated = try await alice.updateResource(
      "breathing", id: created.id, body: Data(#"{"seconds": 61}"#.utf8), idempotencyKey: "k2")
    #expect(updated.id == created.id && updated.body == ["seconds": 61])
    // Another resource's, and another user's, rows are apart.
    #expect(try await alice.listResource("gratitude", ListQuery()).total == 0)
    let bob = backend.client("bob")
    #expect(try await bob.listResource("breathing", ListQuery()).total == 0)
    await #expect(throws: ProgressAPIError.notFound("no breathing row \(created.id)")) {
      _ = try await bob.updateResource(
        "breathing", id: created.id, body: Data("{}".utf8), idempotencyKey: nil)
    }
    await #expect(throws: ProgressAPIError.notFound("no breathing row \(created.id)")) {
      try await bob.deleteResource("breathing", id: created.id, idempotencyKey: nil)
    }
    try await alice.deleteResource("breathing", id: created.id, idempotencyKey: "k3")
    page = try await alice.listResource("breathing", ListQuery())
    #expect(page.total == 1 && page.entries.map { $0.body } == [["seconds": 90]])
  }

  @Test(arguments: TestStore.available)
  func aReplayedKeyGetsTheFirstAnswerAndAnotherBodyIsRefused(store: TestStore) async throws {
    let backend = try await Self.start(store)
    defer { Task { await backend.stop() } }
    let alice = backend.client("alice")
    let first = try await alice.createResource(
      "gratitude", body: Data(#"{"items": ["Sun"]}"#.utf8), idempotencyKey: "same")
    // The same object with other spacing and order is the same request.
    let again = try await alice.createResource(
      "gratitude", body: Data(#"{ "items" : [ "Sun" ] }"#.utf8), idempotencyKey: "same")
    #expect(again == first)
    #expect(try await alice.listResource("gratitude", ListQuery()).total == 1)
    let (status, json) = try await backend.raw(
      "POST", "/api/v1/resources/gratitude", body: #"{"items": ["Tea"]}"#,
      headers: backend.headers().merging(["Idempotency-Key": "same"]) { $1 })
    #expect(status == 422)
    #expect(json.errorCode == "idempotency_key_reused")
    // The same key on another resource is another request, refused alike.
    let (otherStatus, _) = try await backend.raw(
      "POST", "/api/v1/resources/breathing", body: #"{"items": ["Sun"]}"#,
      headers: backend.headers().merging(["Idempotency-Key": "same"]) { $1 })
    #expect(otherStatus == 422)
  }

  @Test(arguments: TestStore.available)
  func aRowIsReadByItsIDAndAMissingOneIsTheEnvelopesNotFound(store: TestStore) async throws {
    let backend = try await Self.start(store)
    defer { Task { await backend.stop() } }
    let alice = backend.client("alice")
    let created = try await alice.createResource(
      "gratitude", body: Data(#"{"items": ["Sun"], "saved_at": "2026-03-02T08:00:00Z"}"#.utf8),
      idempotencyKey: nil)
    #expect(try await alice.getResource("gratitude", id: created.id) == created)
    // Another user's row, and a row of another resource, are not there.
    await #expect(throws: ProgressAPIError.notFound("no gratitude row \(created.id)")) {
      _ = try await backend.client("bob").getResource("gratitude", id: created.id)
    }
    await #expect(throws: ProgressAPIError.notFound("no breathing row \(created.id)")) {
      _ = try await alice.getResource("breathing", id: created.id)
    }
    // The 404 of a read is the one a change or a delete of a missing row gets.
    for (method, body) in [("GET", nil), ("PUT", "{}"), ("DELETE", nil)] as [(String, String?)] {
      let (status, json) = try await backend.raw(
        method, "/api/v1/resources/gratitude/no%20such", body: body, headers: backend.headers())
      #expect(status == 404, "\(method)")
      #expect(json.errorCode == "not_found" && json.errorMessage == "no gratitude row no such", "\(method)")
    }
  }

  @Test(arguments: TestStore.available)
  func aBatchWritesResourceRowsBesideProgressAsTheirSingleCallsWould(store: TestStore) async throws {
    let backend = try await Self.start(store)
    defer { Task { await backend.stop() } }
    let alice = backend.client("alice")
    let kept = try await alice.createResource(
      "gratitude", body: Data(#"{"items": ["Sun"]}"#.utf8), idempotencyKey: nil)
    let results = try await alice.batch([
      ProgressBatchItem.create(body: Data(#"{"items": ["Tea"]}"#.utf8), idempotencyKey: "b1")
        .to(resource: "gratitude"),
      .create(body: progressBody(entryID: "e-1"), idempotencyKey: "b2"),
      ProgressBatchItem.update(
        id: kept.id, body: Data(#"{"items": ["Sun", "Rain"]}"#.utf8), idempotencyKey: "b3"
      )
      .to(resource: "gratitude"),
      ProgressBatchItem.delete(id: "nope", idempotencyKey: "b4").to(resource: "gratitude"),
    ])
    let tea = try #require(try results[0].get())
    #expect(tea == .resource(ResourceRecord(id: tea.id, body: ["items": ["Tea"]])))
    guard case .progress(let mood)? = try results[1].get() else {
      Issue.record("the progress item's answer is not a progress row: \(results[1])")
      return
    }
    #expect(mood.entryID == "e-1" && mood.quantity == 7)
    #expect(try results[2].get() == .resource(ResourceRecord(id: kept.id, body: ["items": ["Sun", "Rain"]])))
    #expect(throws: ProgressAPIError.notFound("no gratitude row nope")) { try results[3].get() }
    // A single call under a batch item's key is the same request: it gets the first answer.
    let again = try await alice.createResource(
      "gratitude", body: Data(#"{ "items" : ["Tea"] }"#.utf8), idempotencyKey: "b1")
    #expect(BatchRecord.resource(again) == tea)
    #expect(try await alice.listResource("gratitude", ListQuery()).total == 2)
    #expect(try await alice.listProgress(ListQuery()).total == 1)
    #expect(try await alice.getResource("gratitude", id: kept.id).body == ["items": ["Sun", "Rain"]])
    // A resource that is not a name refuses the batch whole, as its path would.
    let (status, json) = try await backend.raw(
      "POST", "/api/v1/progress/batch",
      body: #"{"items": [{"idempotency_key": "k", "method": "POST", "resource": "Bad", "body": {}}]}"#,
      headers: backend.headers())
    #expect(status == 400 && json.errorCode == "validation_failed")
    #expect(
      json.errorMessage
        == "items[0].resource must be a resource name: a lower-case letter and up to 39 more lower-case letters, digits or _"
    )
  }

  @Test func badNamesAndBodiesAreRefusedWithTheEnvelope() async throws {
    let backend = try await Self.start(.sqlite)
    defer { Task { await backend.stop() } }
    let headers = backend.headers()
    for name in ["Gratitude", "1st", "a-b", String(repeating: "a", count: 41), "%C3%A9"] {
      let (status, json) = try await backend.raw("GET", "/api/v1/resources/\(name)", headers: headers)
      #expect(status == 400, "\(name)")
      #expect(json.errorCode == "validation_failed")
      let decoded = name.removingPercentEncoding ?? name
      #expect(
        json.errorMessage
          == "the resource name \"\(decoded)\" must be a lower-case letter and up to 39 more lower-case letters, digits or _"
      )
    }
    // The same check on a row's path, and before a method the path does not take.
    let (putStatus, _) = try await backend.raw(
      "PUT", "/api/v1/resources/Bad/x", body: "{}", headers: headers)
    #expect(putStatus == 400)
    let (postStatus, postJSON) = try await backend.raw("POST", "/api/v1/resources/ok/x", headers: headers)
    #expect(postStatus == 405 && postJSON.errorCode == "method_not_allowed")

    for body in ["[1, 2]", "\"text\"", "3", "null"] {
      let (status, json) = try await backend.raw(
        "POST", "/api/v1/resources/gratitude", body: body, headers: headers)
      #expect(status == 400, "\(body)")
      #expect(json.errorMessage == "the body must be a JSON object")
    }
    let large = #"{"text": ""# + String(repeating: "a", count: 70_000) + #""}"#
    let (largeStatus, largeJSON) = try await backend.raw(
      "POST", "/api/v1/resources/gratitude", body: large, headers: headers)
    #expect(largeStatus == 413 && largeJSON.errorCode == "payload_too_large")
    #expect(
      largeJSON.errorMessage
        == "a resource body must be at most 65536 bytes as canonical JSON, got 70011")
    let (noAuth, _) = try await backend.raw("GET", "/api/v1/resources/gratitude", headers: [:])
    #expect(noAuth == 401)
  }
}
