import FlowKit
import Foundation
import GRDB

/// One change to the app's database, applied once to every database file. Migrations are
/// append-only: a shipped one never changes what it makes.
public struct SQLiteMigration: Sendable {
  /// Recorded in the file once applied (GRDB's `grdb_migrations`), so it never changes.
  public let identifier: String
  public let migrate: @Sendable (Database, MigrationContext) throws -> Void

  public init(
    _ identifier: String, _ migrate: @escaping @Sendable (Database, MigrationContext) throws -> Void
  ) {
    self.identifier = identifier
    self.migrate = migrate
  }
}

/// What a migration may need to know about the device that wrote the data.
public struct MigrationContext: Sendable {
  /// Places legacy rows that stored instants on the user's calendar days.
  public var legacyTimeZone: TimeZone

  public init(legacyTimeZone: TimeZone) {
    self.legacyTimeZone = legacyTimeZone
  }
}

/// How a send's result reaches the entity an outbox row carries, in the transaction that
/// records it (the mood entry keeps the backend's id and its sync state, for example).
public struct SQLiteOutboxEntity: Sendable {
  /// What `record` learned about one entity.
  public struct Result: Sendable, Hashable {
    public var entityID: String
    public var userID: String
    /// The backend's id when the send returned one.
    public var backendID: String?
    /// `synced` when the change the entity holds reached the backend, `pending` when a
    /// newer change still waits, `failed` when the backend refused it for good.
    public var status: OutboxStatus
  }

  public let entity: OutboxEntity
  public let record: @Sendable (Database, Result) throws -> Void

  public init(_ entity: OutboxEntity, record: @escaping @Sendable (Database, Result) throws -> Void) {
    self.entity = entity
    self.record = record
  }
}

/// What the app's adapters of one feature are given when the app opens.
public struct AdapterContext: Sendable {
  public var userID: String
  public var clock: any FlowClock
  /// The signed-in user's settings, in the app's database.
  public var keyValueStore: any KeyValueStore
  public var outbox: any Outbox

  public init(userID: String, clock: any FlowClock, keyValueStore: any KeyValueStore, outbox: any Outbox) {
    self.userID = userID
    self.clock = clock
    self.keyValueStore = keyValueStore
    self.outbox = outbox
  }
}

/// Everything a feature's storage adapter module registers with the app: its tables'
/// migrations, what a sync result does to its entities, and its ports' adapters over
/// SQLite. The shared plumbing runs it; it names no feature. (A feature's in-memory
/// adapters are for its tests, in its `<Feature>Testing` library.)
public struct FeatureStorage: Sendable {
  /// Installs the feature's adapters over the app's database for `context.userID`.
  public typealias SQLiteAdapters =
    @MainActor @Sendable (inout Services, WellflowDatabase, AdapterContext) throws -> Void

  /// For messages (a migration registered twice).
  public let name: String
  /// In the order they run; the app runs every feature's after the shared ones, feature
  /// by feature in the app's list.
  public let migrations: [SQLiteMigration]
  public let outboxEntities: [SQLiteOutboxEntity]
  public let sqliteAdapters: SQLiteAdapters
  /// What `wellflow export` writes of the feature, if anything.
  public let export: FeatureExport?

  public init(
    name: String, migrations: [SQLiteMigration] = [], outboxEntities: [SQLiteOutboxEntity] = [],
    sqliteAdapters: @escaping SQLiteAdapters, export: FeatureExport? = nil
  ) {
    self.name = name
    self.migrations = migrations
    self.outboxEntities = outboxEntities
    self.sqliteAdapters = sqliteAdapters
    self.export = export
  }
}

/// The app's database schema: the shared tables' migrations, then every registered
/// feature's, in the one order the app declares. It also keeps the in-memory databases of
/// runs that keep nothing, made from what these migrations make.
public final class SQLiteSchema: Sendable {
  public let features: [FeatureStorage]
  /// Every migration, in the order they run.
  public let migrations: [SQLiteMigration]
  /// What a send's result does to each feature's entities.
  public let outboxEntities: [SQLiteOutboxEntity]
  let scratchDatabases: ScratchDatabases

  /// What the app's composition got wrong, if anything: then every database opened with
  /// this schema (and `AppContainer.open()`) throws it instead of running.
  public let problem: SQLiteSchemaError?

  /// Two migrations with one identifier, or two features claiming one outbox entity, are
  /// a mistake in the app's composition: its first use throws `problem` (the first of
  /// each is kept, so nothing here stops the process).
  public init(_ features: [FeatureStorage]) {
    self.features = features
    let owned =
      Self.shared.map { (owner: Self.sharedOwner, migration: $0) }
      + features.flatMap { feature in feature.migrations.map { (owner: feature.name, migration: $0) } }
    var owners: [String: [String]] = [:]
    var migrations: [SQLiteMigration] = []
    var problem: SQLiteSchemaError?
    for (owner, migration) in owned {
      if let first = owners[migration.identifier] {
        owners[migration.identifier] = first + [owner]
        problem = problem ?? .duplicateMigration(migration.identifier, owners: [])
      } else {
        owners[migration.identifier] = [owner]
        migrations.append(migration)
      }
    }
    if case .duplicateMigration(let identifier, _) = problem {
      problem = .duplicateMigration(identifier, owners: owners[identifier] ?? [])
    }
    var entities: [OutboxEntity: [String]] = [:]
    var outboxEntities: [SQLiteOutboxEntity] = []
    for feature in features {
      for entity in feature.outboxEntities {
        if let first = entities[entity.entity] {
          entities[entity.entity] = first + [feature.name]
          if problem == nil { problem = .duplicateOutboxEntity(entity.entity.rawValue, owners: []) }
        } else {
          entities[entity.entity] = [feature.name]
          outboxEntities.append(entity)
        }
      }
    }
    if case .duplicateOutboxEntity(let entity, _) = problem {
      problem = .duplicateOutboxEntity(entity, owners: entities[OutboxEntity(rawValue: entity)] ?? [])
    }
    self.migrations = migrations
    self.outboxEntities = outboxEntities
    self.problem = problem
    let kept = migrations
    scratchDatabases = ScratchDatabases { try Self.freshDatabase(kept) }
  }

  /// Throws `problem`, if the composition has one.
  public func check() throws(SQLiteSchemaError) {
    if let problem { throw problem }
  }

  /// Who registers the shared migrations, in messages.
  static let sharedOwner = "the shared tables"

  /// The migrations in order, as GRDB runs them on a file.
  public func migrator(legacyTimeZone: TimeZone = .current) -> DatabaseMigrator {
    var migrator = DatabaseMigrator()
    let context = MigrationContext(legacyTimeZone: legacyTimeZone)
    for migration in migrations {
      let migrate = migration.migrate
      migrator.registerMigration(migration.identifier) { db in try migrate(db, context) }
    }
    return migrator
  }

  /// A new in-memory database holding what the migrations make in an empty file, and the
  /// same record of them. An empty database has nothing to convert, so they run in one
  /// transaction instead of one each with its checks: about half the time of GRDB's
  /// migrator, which the first database of every script run paid (`SchemaTests` checks
  /// the two make the same schema and rows).
  static func freshDatabase(_ migrations: [SQLiteMigration]) throws -> DatabaseQueue {
    let queue = try DatabaseQueue()
    let context = MigrationContext(legacyTimeZone: .current)
    try queue.write { db in
      // What GRDB's migrator makes to record applied migrations.
      try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
      for migration in migrations {
        try migration.migrate(db, context)
        try db.execute(sql: "INSERT INTO grdb_migrations VALUES (?)", arguments: [migration.identifier])
      }
    }
    return queue
  }

  /// The shared tables: settings and the outbox, which every feature that syncs writes.
  static let shared: [SQLiteMigration] = [
    SQLiteMigration("keyValues") { db, _ in
      try db.create(table: "key_values") { table in
        table.column("user_id", .text).notNull()
        table.column("key", .text).notNull()
        table.column("value", .text).notNull()
        table.primaryKey(["user_id", "key"])
      }
    },
    SQLiteMigration("outbox") { db, _ in
      // The outbox was made by the mood tables' first migration (`v2_moodEntries`) until
      // it became every feature's: files made before hold it already, as it is here.
      try db.execute(
        sql: """
          CREATE TABLE IF NOT EXISTS outbox (
            id TEXT PRIMARY KEY NOT NULL,
            user_id TEXT NOT NULL,
            entity TEXT NOT NULL,
            entity_id TEXT NOT NULL,
            operation TEXT NOT NULL,
            payload TEXT NOT NULL,
            revision INTEGER NOT NULL,
            backend_id TEXT,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at REAL NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('pending', 'synced', 'failed')),
            last_error TEXT,
            created_at REAL NOT NULL
          );
          -- At most one unsent row per entity: newer changes coalesce into it.
          CREATE UNIQUE INDEX IF NOT EXISTS outbox_unsent_entity ON outbox(user_id, entity, entity_id)
            WHERE status != 'synced';
          CREATE INDEX IF NOT EXISTS outbox_by_user_status ON outbox(user_id, status, created_at);
          """)
    },
    SQLiteMigration("outboxWithoutSyncedRows") { db, _ in
      // A synced row now leaves the outbox when its result is recorded (the entity keeps
      // the backend's id); those kept before go too.
      try db.execute(sql: "DELETE FROM outbox WHERE status = 'synced'")
    },
  ]
}

/// A mistake in the features' storage an app composed: two registrations of what must be
/// registered once.
public enum SQLiteSchemaError: Error, Equatable, CustomStringConvertible {
  /// Two registrations of one migration identifier, by these (features' storage names, or
  /// the shared tables), in the app's order.
  case duplicateMigration(String, owners: [String])
  /// Two features claiming one outbox entity.
  case duplicateOutboxEntity(String, owners: [String])

  public var description: String {
    switch self {
    case .duplicateMigration(let identifier, let owners):
      "the migration '\(identifier)' is registered twice (by \(owners.joined(separator: " and "))): "
        + "a migration identifier is registered once, so give each feature's migrations its own prefix"
    case .duplicateOutboxEntity(let entity, let owners):
      "the outbox entity '\(entity)' is registered twice (by \(owners.joined(separator: " and "))): "
        + "each feature names the outbox rows of its entities with a name of its own"
    }
  }
}
