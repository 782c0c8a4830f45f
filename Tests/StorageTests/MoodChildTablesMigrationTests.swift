import FlowKit
import Foundation
import GRDB
import MoodTracking
import Testing

@testable import Storage

/// Databases written before labels and associations lived only in the entry rows.
@Suite struct MoodChildTablesMigrationTests {
  /// The migration before the child tables were dropped.
  static let lastWithChildTables = "outboxWithoutSyncedRows"

  /// A database in the previous format: entries saved with their label and association
  /// rows beside them, as the previous version wrote them.
  func previousFormat() async throws -> (DatabaseQueue, SQLiteMoodFixture, [MoodEntry]) {
    let queue = try DatabaseQueue()
    try WellflowDatabase.migrator(legacyTimeZone: TimeZone(identifier: "UTC")!)
      .migrate(queue, upTo: Self.lastWithChildTables)
    let fixture = try SQLiteMoodFixture(db: queue)
    let daily = try await fixture.log(8, notes: "excited, met friends", at: "2026-01-04T08:00").entry
    var moment = try await fixture.log(2, at: "2026-01-05T07:00", kind: .momentaryEmotion).entry
    moment.associations = [.work, .family]
    try await fixture.repository.save(
      moment, outbox: .mood(moment, operation: .update, id: UUID(), now: fixture.clock.now))
    try await queue.write { db in
      for entry in [daily, moment] {
        for (position, label) in entry.labels.enumerated() {
          try db.execute(
            sql: "INSERT INTO mood_entry_labels (entry_id, position, label) VALUES (?, ?, ?)",
            arguments: [entry.id.uuidString, position, label.rawValue])
        }
        for association in entry.associations {
          try db.execute(
            sql: "INSERT INTO mood_entry_associations (entry_id, association) VALUES (?, ?)",
            arguments: [entry.id.uuidString, association.rawValue])
        }
      }
    }
    return (queue, fixture, [daily, moment])
  }

  @Test func aDatabaseWithChildTablesReadsTheSameAfterMigrating() async throws {
    let (queue, fixture, saved) = try await previousFormat()
    #expect(try fixture.count("SELECT COUNT(*) FROM mood_entry_labels") == 5)
    let before = try await fixture.history.history(in: .week)
    #expect(before.entries == saved)

    try WellflowDatabase.migrator(legacyTimeZone: TimeZone(identifier: "UTC")!).migrate(queue)
    #expect(
      try fixture.count(
        """
        SELECT COUNT(*) FROM sqlite_master
        WHERE name LIKE 'mood_entry_labels%' OR name LIKE 'mood_entry_associations%'
        """) == 0)
    #expect(try await fixture.history.history(in: .week) == before)
    for entry in saved {
      #expect(try await fixture.repository.entry(id: entry.id, userID: "alice") == entry)
    }
    let week = DateInterval(start: moment("2026-01-01T00:00"), end: moment("2026-01-08T00:00"))
    for label in Set(saved.flatMap(\.labels)) {
      #expect(
        try await fixture.repository.entries(userID: "alice", labelled: label, in: week)
          == saved.filter { $0.labels.contains(label) })
    }
    #expect(try queue.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
    #expect(try queue.read { try Row.fetchAll($0, sql: "PRAGMA foreign_key_check") }.isEmpty)

    // Saving, editing and deleting go on as before.
    fixture.clock.advance(by: 60)
    try await fixture.log(3, notes: "a long day")
    #expect(try await fixture.repository.count(userID: "alice") == 3)
    let entries = MoodEntriesUseCase(
      repository: fixture.repository, clock: fixture.clock, healthStore: fixture.healthStore,
      currentUser: { "alice" })
    try await entries.delete(saved[0].id)
    #expect(try await fixture.repository.entry(id: saved[0].id, userID: "alice") == nil)
    #expect(try await fixture.repository.wasDeleted(id: saved[0].id, userID: "alice"))
  }

  @Test func aDataFolderGivesTheChildTablesPagesBack() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    defer { try? FileManager.default.removeItem(at: directory) }
    // A new folder as the previous version made it: incremental vacuum, child tables.
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    var before = 0
    do {
      var configuration = Configuration()
      configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL") }
      let pool = try DatabasePool(
        path: directory.appendingPathComponent(WellflowDatabase.fileName).path, configuration: configuration)
      try WellflowDatabase.migrator(legacyTimeZone: TimeZone(identifier: "UTC")!)
        .migrate(pool, upTo: Self.lastWithChildTables)
      try await pool.write { db in
        for index in 0..<2_000 {
          let id = UUID().uuidString
          for position in 0..<3 {
            try db.execute(
              sql: "INSERT INTO mood_entry_labels (entry_id, position, label) VALUES (?, ?, 'happy')",
              arguments: [id, position])
          }
          try db.execute(
            sql: "INSERT INTO mood_entry_associations (entry_id, association) VALUES (?, ?)",
            arguments: [id, index % 2 == 0 ? "work" : "family"])
        }
      }
      before = try pool.read { try Int.fetchOne($0, sql: "PRAGMA page_count")! }
    }
    func pages(_ database: WellflowDatabase) throws -> Int {
      try database.writer.read { try Int.fetchOne($0, sql: "PRAGMA page_count")! }
    }
    let migrated = try WellflowDatabase.open(
      directory: directory, legacyTimeZone: TimeZone(identifier: "UTC")!)
    let fresh = try WellflowDatabase.open(
      directory: directory.appendingPathComponent("fresh"), legacyTimeZone: TimeZone(identifier: "UTC")!)
    #expect(try migrated.writer.read { try Int.fetchOne($0, sql: "PRAGMA freelist_count")! } == 0)
    #expect(try pages(migrated) == pages(fresh), "the child tables' pages went back")
    #expect(try before > pages(migrated) + 100)
  }
}
