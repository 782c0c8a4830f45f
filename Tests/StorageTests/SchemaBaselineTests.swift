import Foundation
import GRDB
import Testing

@testable import Storage

/// The schema baseline must be exactly what the migrations make, or scratch databases
/// would differ from the ones users keep.
@Suite("Schema baseline")
struct SchemaBaselineTests {
  static func migrated(_ migrator: DatabaseMigrator = WellflowDatabase.migrator()) throws -> DatabaseQueue {
    let queue = try DatabaseQueue()
    try migrator.migrate(queue)
    return queue
  }

  /// The baseline text a migrated database calls for: its schema in `sqlite_master`
  /// order, then its rows, table by table.
  static func baselineSQL(of queue: DatabaseQueue) throws -> String {
    try queue.read { db in
      var lines = try String.fetchAll(
        db, sql: "SELECT sql || ';' FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
      let tables = try String.fetchAll(
        db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")
      for table in tables {
        let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\(table.quotedDatabaseIdentifier))")
          .map { "quote(\(($0["name"] as String).quotedDatabaseIdentifier))" }
        lines += try String.fetchAll(
          db,
          sql: """
            SELECT 'INSERT INTO \(table) VALUES (' || \(columns.joined(separator: " || ', ' || ")) || ');'
            FROM \(table.quotedDatabaseIdentifier)
            """)
      }
      return lines.joined(separator: "\n")
    }
  }

  /// Schema (every column of `sqlite_master` but the page numbers, in order), rows of
  /// every table, and the pragmas a migration could set.
  static func contents(_ queue: DatabaseQueue) throws -> [String] {
    try queue.read { db in
      let schema = try Row.fetchAll(
        db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid"
      ).map(\.description)
      let tables = try String.fetchAll(
        db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      let rows = try tables.flatMap { table in
        try Row.fetchAll(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier)").map { "\(table): \($0)" }
      }
      let pragmas = try ["user_version", "application_id", "foreign_keys"].map { pragma in
        "\(pragma) = \(try Int.fetchOne(db, sql: "PRAGMA \(pragma)") ?? -1)"
      }
      return schema + rows + pragmas
    }
  }

  @Test func theBaselineIsWhatTheMigrationsMake() throws {
    let migrator = WellflowDatabase.migrator()
    let migrated = try Self.migrated(migrator)
    let expected = try Self.baselineSQL(of: migrated)
    #expect(
      SchemaBaseline.migrations == migrator.migrations,
      """
      SchemaBaseline.migrations should be:
      \(migrator.migrations)
      """)
    #expect(
      SchemaBaseline.sql == expected,
      """
      The migrations changed: replace SchemaBaseline.sql (Modules/Storage/Sources/Storage/SchemaBaseline.swift) with:
      \(expected)
      """)
    #expect(SchemaBaseline.applies(to: migrator), "scratch databases would be migrated one by one")
    let fresh = try SchemaBaseline.freshDatabase(migrator: migrator)
    #expect(try Self.contents(fresh) == Self.contents(migrated))
    #expect(try fresh.read { try migrator.hasCompletedMigrations($0) })
  }

  @Test func aScratchDatabaseHoldsWhatTheMigrationsMake() throws {
    let scratch = try WellflowDatabase.scratch()
    let queue = try #require(scratch.writer as? DatabaseQueue)
    #expect(try Self.contents(queue) == Self.contents(Self.migrated()))
  }

  @Test func aMigrationTheBaselineDoesNotHoldIsRun() throws {
    var migrator = WellflowDatabase.migrator()
    migrator.registerMigration("later") { db in
      try db.execute(sql: "CREATE TABLE later (id INTEGER PRIMARY KEY); INSERT INTO later VALUES (7)")
    }
    #expect(!SchemaBaseline.applies(to: migrator))
    let fresh = try SchemaBaseline.freshDatabase(migrator: migrator)
    #expect(try fresh.read { try Int.fetchOne($0, sql: "SELECT id FROM later") } == 7)
    #expect(try Self.contents(fresh) == Self.contents(Self.migrated(migrator)))
  }
}
