import FlowKit
import Foundation
import GRDB
import Testing
import WellflowComposition

@testable import Storage

/// The app's schema is the shared migrations, then each registered feature's, and a
/// database a run keeps nothing in holds exactly what those migrations make.
@Suite("Schema")
struct SchemaTests {
  static func migrated(_ migrator: DatabaseMigrator = WellflowFeatures.schema.migrator()) throws
    -> DatabaseQueue
  {
    let queue = try DatabaseQueue()
    try migrator.migrate(queue)
    return queue
  }

  /// Schema (every column of `sqlite_master` but the page numbers, by name), rows of
  /// every table, and the pragmas a migration could set.
  static func contents(_ queue: DatabaseQueue) throws -> [String] {
    try queue.read { db in
      let schema = try Row.fetchAll(
        db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
      ).map(\.description)
      let tables = try String.fetchAll(
        db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      let rows = try tables.flatMap { table in
        try Row.fetchAll(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier) ORDER BY 1").map {
          "\(table): \($0)"
        }
      }
      let pragmas = try ["user_version", "application_id", "foreign_keys"].map { pragma in
        "\(pragma) = \(try Int.fetchOne(db, sql: "PRAGMA \(pragma)") ?? -1)"
      }
      return schema + rows + pragmas
    }
  }

  @Test func aFreshDatabaseIsWhatTheMigratorMakes() throws {
    let schema = WellflowFeatures.schema
    let fresh = try SQLiteSchema.freshDatabase(schema.migrations)
    #expect(try Self.contents(fresh) == Self.contents(Self.migrated(schema.migrator())))
    #expect(try fresh.read { try schema.migrator().hasCompletedMigrations($0) })
  }

  @Test func aScratchDatabaseHoldsWhatTheMigrationsMake() throws {
    let scratch = try WellflowDatabase.scratch(schema: WellflowFeatures.schema)
    let queue = try #require(scratch.writer as? DatabaseQueue)
    #expect(try Self.contents(queue) == Self.contents(Self.migrated()))
  }

  @Test func theSharedMigrationsRunFirstThenEachFeaturesInTheListsOrder() {
    let schema = WellflowFeatures.schema
    #expect(
      schema.migrations.map(\.identifier)
        == ["keyValues", "outbox", "outboxWithoutSyncedRows"]
        + WellflowFeatures.storage.flatMap { $0.migrations.map(\.identifier) })
  }

  /// The app's storage is read from its one features list: a storage module listed there
  /// (a `StoringFeature`) is migrated, in the list's order; there is no second list.
  @Test func theStorageComesFromTheOneFeaturesList() {
    #expect(WellflowFeatures.storage.map(\.name) == ["MoodTracking", "Journal", "Reminders"])
    #expect(WellflowFeatures.all.storage.map(\.name) == WellflowFeatures.storage.map(\.name))
    #expect([any FlowFeature.Type]().storage.isEmpty)
  }

  /// The shared plumbing alone makes the settings and the outbox, nothing of a feature.
  @Test func aSchemaWithoutFeaturesHoldsTheSharedTablesOnly() throws {
    let database = try WellflowDatabase.scratch(schema: SQLiteSchema([]))
    let tables: [String] = try database.writer.read { db in
      try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    }
    #expect(tables == ["grdb_migrations", "key_values", "outbox"])
  }

  /// A feature added at the end of the list gets its table in a new database and in a
  /// file an app without it wrote.
  @Test func aFeatureAddedToTheListIsMigratedInNewAndExistingFiles() throws {
    let later = FeatureStorage(
      name: "Later",
      migrations: [
        SQLiteMigration("later") { db, _ in
          try db.execute(sql: "CREATE TABLE later (id INTEGER PRIMARY KEY); INSERT INTO later VALUES (7)")
        }
      ], sqliteAdapters: { _, _, _ in }, memoryAdapters: { _ in { _, _ in } })
    let schema = SQLiteSchema(WellflowFeatures.storage + [later])
    let scratch = try WellflowDatabase.scratch(schema: schema)
    #expect(try scratch.writer.read { db in try Int.fetchOne(db, sql: "SELECT id FROM later") } == 7)

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "schema-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    _ = try WellflowDatabase.open(directory: directory, schema: WellflowFeatures.schema)
    let reopened = try WellflowDatabase.open(directory: directory, schema: schema)
    #expect(try reopened.writer.read { db in try Int.fetchOne(db, sql: "SELECT id FROM later") } == 7)
  }
}
