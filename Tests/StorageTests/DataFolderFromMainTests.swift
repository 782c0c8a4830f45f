import FlowKit
import Foundation
import GRDB
import MoodTracking
import MoodTrackingSQLite
import Storage
import Testing
import WellflowComposition

/// A data folder written before each feature's storage moved beside the feature (by
/// `wellflow run` at main ee4c8f4: reminders, journals, onboarding, mood edits and
/// deletes, offline moods waiting in the outbox) opens with every row kept.
@Suite("Data folder written by main ee4c8f4")
struct DataFolderFromMainTests {
  static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/main-ee4c8f4")

  /// A copy of the fixture, so the test's migration leaves the committed file as it is.
  static func copiedFolder() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "from-main-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: fixture.appendingPathComponent(WellflowDatabase.fileName),
      to: directory.appendingPathComponent(WellflowDatabase.fileName))
    return directory
  }

  /// Every row of every table but the migrations' record, by table, in a stable order.
  static func rows(_ reader: any DatabaseReader) throws -> [String: [String]] {
    try reader.read { db in
      let tables = try String.fetchAll(
        db,
        sql: """
          SELECT name FROM sqlite_master
          WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'
          """)
      var rows: [String: [String]] = [:]
      for table in tables {
        rows[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier)")
          .map(\.description).sorted()
      }
      return rows
    }
  }

  @Test func everyRowIsKept() throws {
    let directory = try Self.copiedFolder()
    defer { try? FileManager.default.removeItem(at: directory) }
    let before = try Self.rows(
      DatabaseQueue(path: directory.appendingPathComponent(WellflowDatabase.fileName).path))
    let filled = [
      "mood_entries", "mood_days", "mood_hours", "mood_entry_deletions", "state_of_mind_samples", "outbox",
      "key_values", "journal_entries", "delivered_notifications", "mood_save_sequence",
    ]
    #expect(
      filled.allSatisfy { !(before[$0] ?? []).isEmpty }, "the fixture has rows in each feature's tables")

    let database = try WellflowDatabase.open(directory: directory, schema: WellflowFeatures.schema)
    let after = try Self.rows(database.writer)
    // Every table the folder held keeps every row; a feature's table added since (a new
    // storing feature in the list) starts empty.
    #expect(after.filter { before.keys.contains($0.key) } == before)
    #expect(after.filter { !before.keys.contains($0.key) }.values.allSatisfy { $0.isEmpty })
    #expect(try database.writer.read { try WellflowFeatures.schema.migrator().hasCompletedMigrations($0) })
  }

  @Test func theAdaptersReadWhatItHolds() async throws {
    let directory = try Self.copiedFolder()
    defer { try? FileManager.default.removeItem(at: directory) }
    let raw = try DatabaseQueue(path: directory.appendingPathComponent(WellflowDatabase.fileName).path)
    let (users, pending) = try await raw.read { db in
      (
        try String.fetchAll(db, sql: "SELECT DISTINCT user_id FROM mood_entries ORDER BY user_id"),
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox WHERE status = 'pending'") ?? 0
      )
    }
    try raw.close()
    let database = try WellflowDatabase.open(directory: directory, schema: WellflowFeatures.schema)
    let moods = SQLiteMoodRepository(writer: database.writer)
    let outbox = SQLiteOutbox(database: database)
    var entries = 0
    var queued = 0
    let all = DateInterval(start: Date(timeIntervalSince1970: 0), duration: 200 * 365 * 86_400)
    for user in users {
      entries += try await moods.entries(userID: user, in: all).count
    }
    let outboxUsers = try await database.writer.read {
      try String.fetchAll($0, sql: "SELECT DISTINCT user_id FROM outbox")
    }
    for user in outboxUsers { queued += try await outbox.pendingCount(userID: user) }
    let stored = try await database.writer.read {
      try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM mood_entries")
    }
    #expect(entries == stored)
    #expect(entries > 0 && queued > 0)
    #expect(queued == pending)
  }
}
