import Foundation
import GRDB
import MoodTracking
import Storage
import Testing

@testable import MoodTrackingSQLite

/// Legacy progress rows whose quantity is no score.
@Suite struct LegacyQuantityTests {
  @Test func quantitiesThatAreNoScoreDoNotTrapTheMigration() throws {
    let queue = try DatabaseQueue()
    let migrator = OlderVersions.migrator(legacyTimeZone: TimeZone(identifier: "UTC")!)
    try migrator.migrate(queue, upTo: MoodSchema.progressEntriesMigration)
    try queue.write { db in
      let quantities: [(String, DatabaseValueConvertible)] = [
        ("huge", 1e308), ("minus-huge", -1e308), ("infinite", Double.infinity), ("text", "lots"),
        ("fine", 7.4), ("zero", 0),
      ]
      for (index, (id, quantity)) in quantities.enumerated() {
        try db.execute(
          sql: """
            INSERT INTO progress_entries
              (id, user_id, type, quantity, date, notes, sync_status, created_at, updated_at)
            VALUES (?, 'alice', 'mood_score', ?, ?, NULL, 'synced', ?, ?)
            """,
          arguments: [
            id, quantity.databaseValue, "2025-12-\(10 + index)", "2025-12-01 08:00:00.000",
            "2025-12-01 08:00:00.000",
          ])
      }
    }
    try migrator.migrate(queue)
    let scores = try queue.read { db in
      try Row.fetchAll(db, sql: "SELECT legacy_id, score FROM mood_entries ORDER BY legacy_id")
        .map { "\($0[0] as String)=\($0[1] as Int)" }
    }
    // Numbers clamp to 1…10 as before; what is no number stays behind, unconverted.
    #expect(scores == ["fine=7", "huge=10", "minus-huge=1", "zero=1"])
  }
}
