import Foundation
import GRDB

/// The app's SQLite database: one file in the run's data directory, WAL mode,
/// migrated on open with the app's `schema`. Every persistence adapter of the app writes
/// through it.
public final class WellflowDatabase: Sendable {
  public static let fileName = "wellflow.sqlite"

  public let writer: any DatabaseWriter
  /// The migrations it was opened with, and what its features' outbox rows do on a result.
  public let schema: SQLiteSchema

  /// `legacyTimeZone` places old progress rows on the user's calendar days.
  public init(writer: any DatabaseWriter, schema: SQLiteSchema, legacyTimeZone: TimeZone = .current) throws {
    try schema.check()
    self.writer = writer
    self.schema = schema
    try schema.migrator(legacyTimeZone: legacyTimeZone).migrate(writer)
  }

  /// Opens (or creates) the database in `directory`; `relaunch` reopens the same file.
  ///
  /// Several processes may open the same new directory at once (`wellflow run` in
  /// parallel). GRDB's migrator reads which migrations are applied outside the
  /// transaction that applies each one, so two processes could both create the first
  /// table; creating the file, switching it to WAL and migrating therefore happen under
  /// an exclusive lock on `lockFileName` beside it: the second process waits, then finds
  /// every migration applied.
  public static func open(directory: URL, schema: SQLiteSchema, legacyTimeZone: TimeZone = .current) throws
    -> WellflowDatabase
  {
    // A composition mistake stops here, before anything is written.
    try schema.check()
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return try FileLock.exclusively(directory.appendingPathComponent(lockFileName)) {
      var configuration = Configuration()
      configuration.busyMode = .timeout(5)
      // A new file gives freed pages back (synced outbox rows leave, and a backlog of
      // thousands would otherwise keep its size for good). SQLite takes the mode only
      // before the file is first written (here, before WAL mode is set), and ignores it
      // in an existing file.
      configuration.prepareDatabase { db in
        if !db.configuration.readonly { try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL") }
      }
      let pool = try DatabasePool(
        path: directory.appendingPathComponent(fileName).path, configuration: configuration)
      return try WellflowDatabase(writer: pool, schema: schema, legacyTimeZone: legacyTimeZone)
    }
  }

  /// Opens the database in `directory` to read it, writing nothing there: no migration,
  /// no lock file, and not even the WAL index (`-shm`) or an empty WAL that any SQLite
  /// reader of a WAL database makes beside it, so a folder on a read-only file system (a
  /// mounted backup) can be read. The file, and its WAL when one holds transactions not
  /// yet copied into it (a writer that did not close), are copied into a private
  /// temporary folder and read from there into memory; the copy is removed before this
  /// returns. A file an older version wrote is then migrated in memory; one a newer
  /// version wrote (it has migrations this version does not know) is refused, since this
  /// version cannot know what they mean.
  public static func openForReading(directory: URL, schema: SQLiteSchema, legacyTimeZone: TimeZone = .current)
    throws -> WellflowDatabase
  {
    try schema.check()
    let path = directory.appendingPathComponent(fileName).path
    guard FileManager.default.fileExists(atPath: path) else { throw ReadError.missing(path: path) }
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
      "wellflow-read-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let copy = scratch.appendingPathComponent(fileName).path
    try FileManager.default.copyItem(atPath: path, toPath: copy)
    if let size = try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int, size > 0 {
      try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
    }
    let memory = try DatabaseQueue()
    do {
      var configuration = Configuration()
      configuration.busyMode = .timeout(5)
      let file = try DatabaseQueue(path: copy, configuration: configuration)
      try file.backup(to: memory)
      try file.close()
    }
    let migrator = schema.migrator(legacyTimeZone: legacyTimeZone)
    let (superseded, current) = try memory.read { db in
      (
        try migrator.appliedIdentifiers(db).subtracting(migrator.migrations),
        try migrator.hasCompletedMigrations(db)
      )
    }
    guard superseded.isEmpty else { throw ReadError.newerVersion(path: path, unknown: superseded.sorted()) }
    if !current { try migrator.migrate(memory) }
    // What reads it cannot change it by mistake either.
    try memory.inDatabase { try $0.execute(sql: "PRAGMA query_only = 1") }
    return WellflowDatabase(migrated: memory, schema: schema)
  }

  /// Why `openForReading` could not open a data folder.
  public enum ReadError: Error, Equatable, CustomStringConvertible {
    case missing(path: String)
    /// The file has changes (migrations) this version does not know.
    case newerVersion(path: String, unknown: [String])

    public var description: String {
      switch self {
      case .missing(let path): "no database at \(path)"
      case .newerVersion(let path, let unknown):
        "\(path) was written by a newer wellflow (its schema has \(unknown.joined(separator: ", ")), "
          + "which this version does not know); use that version or a newer one"
      }
    }
  }

  /// The empty file whose lock serializes opening (see `open`); deleting it is harmless.
  public static let lockFileName = "wellflow.sqlite.lock"

  /// A private in-memory database, for tests and benchmarks.
  public static func inMemory(schema: SQLiteSchema) throws -> WellflowDatabase {
    try WellflowDatabase(writer: DatabaseQueue(), schema: schema)
  }

  /// A fresh database in memory, holding exactly what the schema's migrations make: a run
  /// that keeps no data (a script without `--data-dir`) gets the real SQLite schema and
  /// adapters with no file and no fsync. The first ones are made by running the
  /// migrations (`SQLiteSchema.freshDatabase`); later ones are databases no one holds any
  /// more, emptied back to what a new one holds (`ScratchDatabases`).
  public static func scratch(schema: SQLiteSchema) throws -> WellflowDatabase {
    try schema.check()
    return WellflowDatabase(migrated: try schema.scratchDatabases.take(), schema: schema)
  }

  private init(migrated writer: any DatabaseWriter, schema: SQLiteSchema) {
    self.writer = writer
    self.schema = schema
  }
}
