import Foundation
import GRDB
import ProgressContract
import Testing

@testable import ProgressBackend

/// `GET /api/v1/progress` on a file is written as SQLite reads the rows, on connections of
/// its own (`SQLiteReaders`): its bytes must be those the rows read through GRDB and
/// written by the contract's types give, whatever the rows hold.
@Suite struct ProgressPageJSONTests {
  /// A store on a new file, with rows of every kind of text a column can hold.
  private static func storeWithOddRows() throws -> (SQLiteBackendStore, directory: URL) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wellflow-page-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let store = try SQLiteBackendStore(path: directory.appendingPathComponent("backend.sqlite").path)
    try store.writer.write { db in
      let insert = """
        INSERT INTO progress (id, user_id, type, quantity, logged_at, date, notes, entry_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """
      let notes: [String?] = [
        nil, "", "plain", #"a "quoted" \ backslash"#, "tab\tline\nfeed\u{1}", "caf\u{E9} \u{1F600}",
        "del\u{7F}",
        "before\u{0}after", "/slash/",
      ]
      for (index, note) in notes.enumerated() {
        try db.execute(
          sql: insert,
          arguments: [
            "row-\(index)", "alice", index % 3 == 0 ? "steps" : "mood_score",
            Double(index) + (index % 2 == 0 ? 0 : 0.25),
            index % 4 == 0 ? "2026-03-0\(index % 9 + 1)" : "2026-03-0\(index % 9 + 1)T08:00:00Z",
            "2026-03-0\(index % 9 + 1)", note,
            index % 2 == 0 ? "entry-\(index)" : nil,
          ])
      }
      // Text with a NUL inside (GRDB reads up to it), and text that is not UTF-8, as
      // another program could have written them.
      try db.execute(
        sql: """
          INSERT INTO progress (id, user_id, type, quantity, logged_at, date, notes, entry_id)
          VALUES ('row-nul', 'alice', 'mood_score', 2, '2026-03-04', '2026-03-04', 'cut' || char(0) || 'here', NULL)
          """)
      try db.execute(
        sql: """
          INSERT INTO progress (id, user_id, type, quantity, logged_at, date, notes, entry_id)
          VALUES ('row-bad', 'alice', 'mood_score', 3, '2026-03-05', '2026-03-05', CAST(x'61ff62c3' AS TEXT), NULL)
          """)
      try db.execute(
        sql: """
          INSERT INTO progress (id, user_id, type, quantity, logged_at, date, notes, entry_id)
          VALUES ('row-bob', 'bob', 'mood_score', 1e300, '2026-03-01', '2026-03-01', 'bob''s', NULL)
          """)
    }
    return (store, directory)
  }

  @Test func pagesWrittenAsReadAreTheBytesOfThePagesRead() async throws {
    let (store, directory) = try Self.storeWithOddRows()
    defer { try? FileManager.default.removeItem(at: directory) }
    var pages: [(String, String?, PageRequest)] = []
    for (user, type) in [
      ("alice", nil), ("alice", "mood_score"), ("alice", "steps"), ("bob", nil), ("carol", nil),
    ] {
      pages.append((user, type, PageRequest()))
    }
    pages.append(("alice", nil, PageRequest(limit: 1, offset: 0)))
    pages.append(("alice", nil, PageRequest(limit: 3, offset: 4)))
    pages.append(("alice", nil, PageRequest(limit: 50, offset: 100)))
    var bounded = PageRequest(limit: 100, offset: 1)
    bounded.from = "2026-03-03"
    bounded.to = "2026-03-07"
    pages.append(("alice", "mood_score", bounded))
    bounded.to = nil
    pages.append(("alice", nil, bounded))
    for (user, type, page) in pages {
      let read = JSONText.data(try await store.progressPage(userID: user, type: type, page: page))
      let written = try await store.progressPageJSON(userID: user, type: type, page: page)
      #expect(
        String(decoding: written, as: UTF8.self) == String(decoding: read, as: UTF8.self),
        "\(user) \(type ?? "any") \(page)")
      #expect(written == read)
    }
    // The answers name every row: the fast path did not skip the odd ones.
    let all = try await store.progressPageJSON(userID: "alice", type: nil, page: PageRequest(limit: 100))
    #expect(String(decoding: all, as: UTF8.self).contains(#""total":11}"#))
    await store.close()
  }

  /// A read ends its transaction: a row written after it is in the next page, on the
  /// same connection and on one opened after `close`.
  @Test func aPageReadAfterAWriteHoldsIt() async throws {
    let (store, directory) = try Self.storeWithOddRows()
    defer { try? FileManager.default.removeItem(at: directory) }
    func total() async throws -> String {
      let bytes = try await store.progressPageJSON(userID: "bob", type: nil, page: PageRequest(limit: 1))
      let text = String(decoding: bytes, as: UTF8.self)
      return String(text[try #require(text.range(of: #""total":"#)).upperBound...].dropLast(2))
    }
    #expect(try await total() == "1")
    let input = ProgressInput(
      type: "mood_score", quantity: 4, loggedAt: "2026-03-02", date: "2026-03-02", notes: nil, entryID: nil)
    let created = try await store.perform(
      [Write(key: nil, fingerprint: Data(), action: .success(.createProgress(input)))], userID: "bob")
    let answer = try JSONSerialization.jsonObject(with: try #require(created.first).body) as? [String: Any]
    let id = try #require((answer?["data"] as? [String: Any])?["id"] as? String)
    #expect(try await total() == "2")
    await store.close()
    _ = try await store.perform(
      [Write(key: nil, fingerprint: Data(), action: .success(.deleteProgress(id: id)))], userID: "bob")
    #expect(try await total() == "1")
  }

  /// A read that fails is an error, and the next read works.
  @Test func aFailedReadThrowsAndTheNextOneWorks() async throws {
    let (store, directory) = try Self.storeWithOddRows()
    defer { try? FileManager.default.removeItem(at: directory) }
    let readers = SQLiteReaders(path: directory.appendingPathComponent("backend.sqlite").path)
    #expect(throws: SQLiteReadFailure.self) {
      try readers.read { reader in try reader.withStatement("SELECT * FROM no_such_table", []) { _ in } }
    }
    let count = try readers.read { reader in
      try reader.withStatement("SELECT COUNT(*) FROM progress WHERE user_id = ?", [.text("alice")]) { rows in
        try rows.next() ? rows.integer(0) : -1
      }
    }
    #expect(count == 11)
    readers.close()
    await store.close()
  }

  /// A file that cannot be opened says so.
  @Test func aMissingFileIsAnError() throws {
    let readers = SQLiteReaders(path: "/nonexistent-\(UUID())/backend.sqlite")
    let failure = #expect(throws: SQLiteReadFailure.self) {
      try readers.read { _ in 0 }
    }
    #expect(failure?.description == "SQLite error 14 while reading: unable to open database file")
  }

  /// Query values are percent-decoded where they hold a `%`; one that does not decode is
  /// read as sent.
  @Test func queryValuesArePercentDecoded() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let (status, json) = try await backend.raw(
      "GET", "/api/v1/progress?limit=%35", headers: backend.headers())
    #expect(status == 200)
    #expect((json["data"] as? [String: Any])?["limit"] as? Int == 5)
    let (refused, error) = try await backend.raw(
      "GET", "/api/v1/progress?limit=5%", headers: backend.headers())
    #expect(refused == 400)
    #expect(error.errorMessage == #"limit must be a whole number from 1 to 100, got "5%""#)
  }
}
