import FlowKit
import Foundation
import GRDB
import MoodTracking
import Testing
import WellflowComposition

@testable import MoodTrackingSQLite
@testable import Storage

/// Databases written before labels and associations lived only in the entry rows.
@Suite struct MoodChildTablesMigrationTests {
  /// The migration before the child tables were dropped.
  static let lastWithChildTables = "outboxWithoutSyncedRows"

  /// A database in the previous format: entries saved with their label and association
  /// rows beside them, as the previous version wrote them.
  func previousFormat() async throws -> (DatabaseQueue, SQLiteMoodFixture, [MoodEntry]) {
    let queue = try DatabaseQueue()
    try OlderVersions.migrator(legacyTimeZone: TimeZone(identifier: "UTC")!)
      .migrate(queue, upTo: Self.lastWithChildTables)
    let fixture = try SQLiteMoodFixture(db: queue)
    let daily = try await fixture.log(8, notes: "excited, met friends", at: "2026-01-04T08:00").entry
    var momentary = try await fixture.log(2, at: "2026-01-05T07:00", kind: .momentaryEmotion).entry
    momentary.associations = [.work, .family]
    try await fixture.repository.save(
      momentary, outbox: .mood(momentary, operation: .update, id: UUID(), now: fixture.clock.now))
    let saved = [daily, momentary]
    try await queue.write { db in
      for entry in saved {
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
    return (queue, fixture, saved)
  }

  @Test func aDatabaseWithChildTablesReadsTheSameAfterMigrating() async throws {
    let (queue, fixture, saved) = try await previousFormat()
    #expect(try fixture.count("SELECT COUNT(*) FROM mood_entry_labels") == 5)
    let before = try await fixture.history.history(in: .week)
    #expect(before.entries == saved)

    try WellflowFeatures.schema.migrator(legacyTimeZone: TimeZone(identifier: "UTC")!).migrate(queue)
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
    #expect(try await queue.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
    #expect(try await queue.read { try Row.fetchAll($0, sql: "PRAGMA foreign_key_check").count } == 0)

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
    // Entries saved as they were, with the rows the previous version wrote beside them.
    let entries = (0..<2_000).map { index in
      let date = moment("2026-01-05T08:00").addingTimeInterval(Double(index))
      return MoodEntry(
        id: UUID(), userID: "alice", date: date, day: day("2026-01-05"), score: 5, valence: 0,
        labels: [.calm, .content, .peaceful], associations: [index % 2 == 0 ? .work : .family],
        kind: .momentaryEmotion, createdAt: date, updatedAt: date)
    }
    var before = 0
    do {
      var configuration = Configuration()
      configuration.prepareDatabase { db in
        if !db.configuration.readonly { try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL") }
      }
      let pool = try DatabasePool(
        path: directory.appendingPathComponent(WellflowDatabase.fileName).path, configuration: configuration)
      try OlderVersions.migrator(legacyTimeZone: TimeZone(identifier: "UTC")!)
        .migrate(pool, upTo: Self.lastWithChildTables)
      try await SQLiteMoodRepository(writer: pool).save(
        entries.map { ($0, OutboxRow.mood($0, operation: .create, id: UUID(), now: $0.date)) })
      try await pool.write { db in
        for entry in entries {
          for (position, label) in entry.labels.enumerated() {
            try db.execute(
              sql: "INSERT INTO mood_entry_labels (entry_id, position, label) VALUES (?, ?, ?)",
              arguments: [entry.id.uuidString, position, label.rawValue])
          }
          try db.execute(
            sql: "INSERT INTO mood_entry_associations (entry_id, association) VALUES (?, ?)",
            arguments: [entry.id.uuidString, entry.associations[0].rawValue])
        }
      }
      before = try await pool.read { try Int.fetchOne($0, sql: "PRAGMA page_count")! }
    }
    func pages(_ database: WellflowDatabase) throws -> Int {
      try database.writer.read { try Int.fetchOne($0, sql: "PRAGMA page_count")! }
    }
    let migrated = try WellflowDatabase.open(
      directory: directory, schema: WellflowFeatures.schema, legacyTimeZone: TimeZone(identifier: "UTC")!)
    // The same entries saved by this version into a new folder.
    let fresh = try WellflowDatabase.open(
      directory: directory.appendingPathComponent("fresh"), schema: WellflowFeatures.schema,
      legacyTimeZone: TimeZone(identifier: "UTC")!)
    try await SQLiteMoodRepository(writer: fresh.writer).save(
      entries.map { ($0, OutboxRow.mood($0, operation: .create, id: UUID(), now: $0.date)) })
    #expect(try await migrated.writer.read { try Int.fetchOne($0, sql: "PRAGMA freelist_count")! } == 0)
    #expect(try pages(migrated) <= pages(fresh) + 2, "the child tables' pages went back")
    #expect(try before > pages(migrated) + 100)
  }
}
