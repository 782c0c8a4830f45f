import Foundation
import ProgressBackend
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The same requests get the same answers from a server on SQLite and one on PostgreSQL,
/// byte for byte but for the rows' ids (new on each server): every kind of write, kept
/// and replayed keys, reused keys, rows that are not there, refusals and batches.
@Suite struct StoreEquivalenceTests {
  /// One request; `path` and `body` may name the ids earlier answers gave (`ids[n]`: the
  /// `data.id` of request n, or of a batch's results).
  struct Step {
    var method: String
    var path: ([Int: [String]]) -> String
    var body: ([Int: [String]]) -> String?
    var key: String?
  }

  /// The id answer `step` gave (its `index`th for a batch), or "none".
  static func id(_ ids: [Int: [String]], _ step: Int, _ index: Int) -> String {
    guard let all = ids[step], all.indices.contains(index) else { return "none" }
    return all[index]
  }

  static func step(
    _ method: String, _ path: String, _ body: String? = nil, key: String? = nil
  ) -> Step {
    Step(method: method, path: { _ in path }, body: { _ in body }, key: key)
  }

  /// `notes` is written into the JSON as it is (escaped already).
  static func progress(_ quantity: Int, entry: String? = nil, notes: String? = nil) -> String {
    var fields = [
      #""type":"mood_score""#, #""quantity":\#(quantity)"#, #""logged_at":"2026-03-02T08:00:00Z""#,
    ]
    if let entry { fields.append(#""entry_id":"\#(entry)""#) }
    if let notes { fields.append(#""notes":"\#(notes)""#) }
    return "{" + fields.joined(separator: ",") + "}"
  }

  static func item(
    _ method: String, key: String, id: String? = nil, body: String? = nil, resource: String? = nil
  ) -> String {
    var fields = [#""idempotency_key":"\#(key)""#, #""method":"\#(method)""#]
    if let id { fields.append(#""id":"\#(id)""#) }
    if let body { fields.append(#""body":\#(body)"#) }
    if let resource { fields.append(#""resource":"\#(resource)""#) }
    return "{" + fields.joined(separator: ",") + "}"
  }

  static var steps: [Step] {
    let journal = #"{"created_at": "2026-03-02T08:00:00Z", "curriculum_id": 1, "initiated_by": "self"}"#
    let events =
      #"{"events": [{"ts": "2026-03-02T08:00:00.000Z", "event": "flow_completed", "flow": "checkin"}]}"#
    let creates =
      "{\"items\": ["
      + [
        item("POST", key: "b1", body: progress(4, entry: "e2")),
        item("POST", key: "b2", body: progress(5, entry: "e1", notes: "again")),
        item("POST", key: "b3", body: progress(6)),
        item("POST", key: "b4", body: progress(0)),
        item("POST", key: "k1", body: progress(5, entry: "e1")),
      ].joined(separator: ",") + "]}"
    return [
      step("POST", "/api/v1/progress", progress(5, entry: "e1"), key: "k1"),
      step("POST", "/api/v1/progress", progress(5, entry: "e1"), key: "k1"),
      step("POST", "/api/v1/progress", progress(6, entry: "e1"), key: "k1"),
      step("POST", "/api/v1/progress", progress(7, entry: "e1"), key: "k2"),
      step("POST", "/api/v1/progress", progress(3, notes: #"n \"quoted\" \\ é"#)),
      Step(
        method: "PUT", path: { "/api/v1/progress/\(Self.id($0, 0, 0))" },
        body: { _ in progress(8, entry: "e1") },
        key: "k3"),
      Step(
        method: "PUT", path: { "/api/v1/progress/\(Self.id($0, 0, 0))" },
        body: { _ in progress(9, entry: "other") },
        key: "k4"),
      Step(
        method: "PUT", path: { "/api/v1/progress/\(Self.id($0, 4, 0))" },
        body: { _ in progress(2, entry: "zz") },
        key: "k5"),
      step("PUT", "/api/v1/progress/missing", progress(2), key: "k6"),
      step("PUT", "/api/v1/progress/missing", progress(2), key: "k6"),
      Step(
        method: "DELETE", path: { "/api/v1/progress/\(Self.id($0, 4, 0))" }, body: { _ in nil }, key: "k7"),
      Step(
        method: "DELETE", path: { "/api/v1/progress/\(Self.id($0, 4, 0))" }, body: { _ in nil }, key: "k7"),
      Step(
        method: "DELETE", path: { "/api/v1/progress/\(Self.id($0, 4, 0))" }, body: { _ in nil }, key: "k8"),
      step("POST", "/api/v1/progress", progress(11), key: "k9"),
      step("POST", "/api/v1/progress", progress(11), key: "k1"),
      step("POST", "/api/v1/journal", journal, key: "j1"),
      step("POST", "/api/v1/journal", journal, key: "j1"),
      step("POST", "/api/v1/events", events, key: "ev1"),
      step("POST", "/api/v1/events", events, key: "ev1"),
      step("POST", "/api/v1/resources/breathing", #"{"seconds": 60}"#, key: "r1"),
      Step(
        method: "PUT", path: { "/api/v1/resources/breathing/\(Self.id($0, 19, 0))" },
        body: { _ in #"{"seconds": 61}"# },
        key: "r2"),
      step("PUT", "/api/v1/resources/breathing/missing", #"{"seconds": 61}"#, key: "r3"),
      Step(
        method: "DELETE", path: { "/api/v1/resources/breathing/\(Self.id($0, 19, 0))" }, body: { _ in nil },
        key: "r4"
      ),
      Step(
        method: "DELETE", path: { "/api/v1/resources/breathing/\(Self.id($0, 19, 0))" }, body: { _ in nil },
        key: "r5"
      ),
      // Creates alone (one statement on PostgreSQL), then the same batch again: replays.
      step("POST", "/api/v1/progress/batch", creates),
      step("POST", "/api/v1/progress/batch", creates),
      // Updates, deletes and a key twice: in order, in one transaction.
      Step(
        method: "POST", path: { _ in "/api/v1/progress/batch" },
        body: { ids in
          "{\"items\": ["
            + [
              item("PUT", key: "b5", id: Self.id(ids, 0, 0), body: progress(1, entry: "e1")),
              item("DELETE", key: "b6", id: Self.id(ids, 24, 2)),
              item("POST", key: "b7", body: progress(2, entry: "e3")),
              item("POST", key: "b7", body: progress(2, entry: "e3")),
              item("DELETE", key: "b8", id: Self.id(ids, 24, 2)),
              item("POST", key: "b9", body: #"{"seconds": 5}"#, resource: "breathing"),
              item(
                "PUT", key: "b10", id: Self.id(ids, 19, 0), body: #"{"seconds": 6}"#, resource: "breathing"),
            ].joined(separator: ",") + "]}"
        }, key: nil),
      // Without a key, a create of an entry that has a row updates it.
      step("POST", "/api/v1/progress", progress(4, entry: "e1")),
      step("GET", "/api/v1/progress?limit=100"),
      step("GET", "/api/v1/journal"),
      step("GET", "/api/v1/resources/breathing"),
    ]
  }

  /// Each step's status and body as the server sent them.
  static func answers(_ store: TestStore) async throws -> [(status: Int, body: String)] {
    let backend = try await SharedDatabaseTests.start(try await store.freshDatabase())
    defer { Task { await backend.stop() } }
    var ids: [Int: [String]] = [:]
    var answers: [(Int, String)] = []
    for (index, step) in steps.enumerated() {
      var request = URLRequest(
        url: URL(string: backend.url.absoluteString + step.path(ids))!, timeoutInterval: 600)
      request.httpMethod = step.method
      for (name, value) in backend.headers() { request.setValue(value, forHTTPHeaderField: name) }
      if let key = step.key { request.setValue(key, forHTTPHeaderField: "Idempotency-Key") }
      if let body = step.body(ids) {
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      }
      let (data, response) = try await URLSession.shared.data(for: request)
      let status = try #require(response as? HTTPURLResponse).statusCode
      let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
      let payload = json?["data"] as? [String: Any]
      if let id = payload?["id"] as? String {
        ids[index] = [id]
      } else if let results = payload?["results"] as? [[String: Any]] {
        ids[index] = results.map { (($0["data"] as? [String: Any])?["id"] as? String) ?? "" }
      }
      answers.append((status, String(decoding: data, as: UTF8.self)))
    }
    return answers
  }

  /// `text` with each server id replaced by its order of first appearance in `seen`.
  static func withoutIDs(_ text: String, _ seen: inout [String: String]) -> String {
    let pattern = try! NSRegularExpression(
      pattern: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
    var result = text
    for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
      let id = String(text[Range(match.range, in: text)!])
      if seen[id] == nil { seen[id] = "id\(seen.count)" }
    }
    for (id, name) in seen { result = result.replacingOccurrences(of: id, with: name) }
    return result
  }

  @Test(.enabled(if: TestPostgres.enabled, Comment(rawValue: TestPostgres.howToRun)))
  func everyWriteAnswersOnPostgreSQLAsOnSQLite() async throws {
    let sqlite = try await Self.answers(.sqlite)
    let postgres = try await Self.answers(.postgres)
    var seenSQLite: [String: String] = [:]
    var seenPostgres: [String: String] = [:]
    for (index, (one, other)) in zip(sqlite, postgres).enumerated() {
      #expect(one.status == other.status, "step \(index): \(one.body) | \(other.body)")
      #expect(
        Self.withoutIDs(one.body, &seenSQLite) == Self.withoutIDs(other.body, &seenPostgres),
        "step \(index)")
    }
    // A sample of what the steps should answer, so the two cannot agree on nonsense.
    #expect(
      sqlite.map(\.status) == [
        201, 201, 422, 200, 201, 200, 200, 200, 404, 404, 204, 204, 404, 400, 422, 201, 201, 201, 201, 201,
        200,
        404, 204, 404, 200, 200, 200, 200, 200, 200, 200,
      ])
    #expect(sqlite[6].body.contains(#""entry_id":"e1""#))
    #expect(sqlite[7].body.contains("entry_id") == false)
  }
}
