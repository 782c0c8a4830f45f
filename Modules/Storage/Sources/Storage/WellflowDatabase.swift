import Foundation
import GRDB

/// The app's SQLite database: one file in the run's data directory, WAL mode,
/// migrated on open. Every persistence adapter of the app writes through it.
public final class WellflowDatabase: Sendable {
  public static let fileName = "wellflow.sqlite"

  public let writer: any DatabaseWriter

  public init(writer: any DatabaseWriter) throws {
    self.writer = writer
    try Self.migrator.migrate(writer)
  }

  /// Opens (or creates) the database in `directory`; `relaunch` reopens the same file.
  public static func open(directory: URL) throws -> WellflowDatabase {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    var configuration = Configuration()
    configuration.busyMode = .timeout(5)
    let pool = try DatabasePool(
      path: directory.appendingPathComponent(fileName).path, configuration: configuration)
    return try WellflowDatabase(writer: pool)
  }

  /// A private in-memory database, for tests and benchmarks.
  public static func inMemory() throws -> WellflowDatabase {
    try WellflowDatabase(writer: DatabaseQueue())
  }

  /// The schema, in order. Migrations are append-only: a shipped one never changes.
  public static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("keyValues") { db in
      try db.create(table: "key_values") { table in
        table.column("user_id", .text).notNull()
        table.column("key", .text).notNull()
        table.column("value", .text).notNull()
        table.primaryKey(["user_id", "key"])
      }
    }
    return migrator
  }
}
