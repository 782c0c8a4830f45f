import FlowKit
import Foundation
import GRDB
import ProgressBackend
import ScriptTestSupport
import Testing
import WellflowCore

/// Rows a pull leaves out (no mood this app can hold) are counted in the sync step's
/// summary, in JSON and JUnit, and told one event each with the reason, never the notes.
@MainActor
@Suite("Pulled rows skipped")
struct PulledRowsSkippedTests {
  let workspace = Workspace()

  /// A backend whose rows for dana are one mood and three no device of ours could send
  /// (written past the API, as another backend or an older server may hold them).
  func backend() async throws -> (ProgressServer, URL) {
    let database = workspace.path("backend.sqlite")
    let server = try ProgressServer(
      configuration: ProgressServer.Configuration(databasePath: database, apiKey: "k", jwtSecret: "s"))
    let queue = try DatabaseQueue(path: database)
    try await queue.write { db in
      for (id, quantity) in [("good", 7.0), ("eleven", 11), ("half", 5.5), ("zero", 0)] {
        try db.execute(
          sql: """
            INSERT INTO progress (id, user_id, type, quantity, logged_at, date, notes)
            VALUES (?, 'dana', 'mood_score', ?, '2026-03-01T09:00:00Z', '2026-03-01', 'my private words')
            """, arguments: [id, quantity])
      }
    }
    try queue.close()
    return (server, try await server.start())
  }

  @Test func theSyncStepCountsThemAndTheEventsSayWhy() async throws {
    let (server, url) = try await backend()
    let script = workspace.write(
      "pull.yaml", "name: pull\nuser: dana\nstart: 2026-03-02T08:00\nsteps:\n  - sync\n")
    let events = workspace.path("e.ndjson")
    let junit = workspace.path("junit.xml")
    func configure(_ configuration: inout RunConfiguration) {
      configuration.backendURL = url.absoluteString
      configuration.apiKey = "k"
      configuration.token = server.token(for: "dana")
    }
    let text = await wellflowRun([script]) {
      configure(&$0)
      $0.eventsPath = events
      $0.junitPath = junit
    }
    #expect(text.code == 0, "\(text.errText)")
    #expect(text.outText.contains("(sent 0, pulled 1, skipped 3)"), "\(text.outText)")
    #expect(try String(contentsOfFile: junit, encoding: .utf8).contains("sent 0, pulled 1, skipped 3"))
    let lines = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n")
    #expect(!lines.contains { $0.contains("private") })
    let skipped = try lines.compactMap {
      try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    .filter { $0["event"] as? String == "sync_pull_skipped" }
    #expect(skipped.map { $0["backend_id"] as? String } == ["eleven", "half", "zero"])
    #expect(
      skipped.map { $0["reason"] as? String } == [
        "quantity 11.0 is not a score in 1...10", "quantity 5.5 is not a score in 1...10",
        "quantity 0.0 is not a score in 1...10",
      ])
    #expect(
      skipped.allSatisfy { ($0["skipped"] as? NSNumber)?.intValue == 3 && $0["user"] as? String == "dana" })

    // A fresh app pulls them again.
    let json = await wellflowRun([script]) {
      configure(&$0)
      $0.format = .json
    }
    #expect(json.code == 0, "\(json.errText)")
    #expect(json.outText.contains(#""message" : "sent 0, pulled 1, skipped 3""#), "\(json.outText)")
    await server.stop()
  }
}
