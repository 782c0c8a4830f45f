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
    // Read another way (a cast, which `storage` avoids): every storing feature of the
    // list, in its order, and nothing else.
    let storing = WellflowFeatures.all.compactMap { ($0 as? any StoringFeature.Type)?.storage.name }
    #expect(!storing.isEmpty)
    #expect(WellflowFeatures.storage.map(\.name) == storing)
    #expect(WellflowFeatures.all.storage.map(\.name) == WellflowFeatures.storage.map(\.name))
    #expect([any FlowFeature.Type]().storage.isEmpty)
    // A list's storage follows that list: a storing feature added at the end comes last.
    let later = WellflowFeatures.all + [LaterStorage.self]
    #expect(later.storage.map(\.name) == storing + ["Later"])
  }

  /// A migration identifier registered twice is a mistake in the app's composition: every
  /// database opened with the schema, and the app, throw a sentence naming it and who
  /// registered it, before anything is written (no crash).
  @Test func aMigrationRegisteredTwiceIsAThrownErrorNamingWhoRegisteredIt() throws {
    func notes(_ name: String) -> FeatureStorage {
      FeatureStorage(
        name: name, migrations: [SQLiteMigration("notes_v1") { db, _ in try db.execute(sql: "SELECT 1") }],
        sqliteAdapters: { _, _, _ in })
    }
    let schema = SQLiteSchema(WellflowFeatures.storage + [notes("Notes"), notes("Memos")])
    let expected = SQLiteSchemaError.duplicateMigration("notes_v1", owners: ["Notes", "Memos"])
    #expect(schema.problem == expected)
    #expect(
      expected.description
        == "the migration 'notes_v1' is registered twice (by Notes and Memos): a migration identifier "
        + "is registered once, so give each feature's migrations its own prefix")
    #expect(throws: expected) { try schema.check() }
    #expect(throws: expected) { try WellflowDatabase.scratch(schema: schema) }
    #expect(throws: expected) { try WellflowDatabase.inMemory(schema: schema) }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "schema-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    #expect(throws: expected) { try WellflowDatabase.open(directory: directory, schema: schema) }
    #expect(!FileManager.default.fileExists(atPath: directory.path), "nothing was written")
    #expect(throws: expected) { try WellflowDatabase.openForReading(directory: directory, schema: schema) }

    // One of the shared tables' identifiers is taken too.
    let shared = SQLiteSchema([
      FeatureStorage(
        name: "Settings", migrations: [SQLiteMigration("keyValues") { _, _ in }],
        sqliteAdapters: { _, _, _ in })
    ])
    #expect(shared.problem == .duplicateMigration("keyValues", owners: ["the shared tables", "Settings"]))
    // The app's own list has none.
    #expect(WellflowFeatures.schema.problem == nil)
    #expect(SQLiteSchema(WellflowFeatures.storage + [notes("Notes")]).problem == nil)
  }

  @Test func anOutboxEntityClaimedTwiceIsAThrownErrorToo() {
    func claiming(_ name: String) -> FeatureStorage {
      FeatureStorage(
        name: name, outboxEntities: [SQLiteOutboxEntity(OutboxEntity(rawValue: "notes")) { _, _ in }],
        sqliteAdapters: { _, _, _ in })
    }
    let schema = SQLiteSchema([claiming("Notes"), claiming("Memos")])
    let expected = SQLiteSchemaError.duplicateOutboxEntity("notes", owners: ["Notes", "Memos"])
    #expect(schema.problem == expected)
    #expect(throws: expected) { try WellflowDatabase.scratch(schema: schema) }
    #expect(
      expected.description
        == "the outbox entity 'notes' is registered twice (by Notes and Memos): each feature names the "
        + "outbox rows of its entities with a name of its own")
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
      ], sqliteAdapters: { _, _, _ in })
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

/// A storing feature the app does not ship, added at the end of its list.
private enum LaterStorage: StoringFeature {
  static let storage = FeatureStorage(
    name: "Later", sqliteAdapters: { _, _, _ in })
}
