import Foundation
import GRDB
import Storage
import WellflowComposition

/// Files as earlier versions made them, for tests of what opening one does.
enum OlderVersions {
  /// The order main ee4c8f4 ran the migrations in, before each feature's storage moved
  /// beside the feature; then the outbox was made by `v2_moodEntries`.
  static let order = [
    "v1_progressEntries", "v2_moodEntries", "v3_healthSamplesOwed", "v4_moodEntryDeletions", "keyValues",
    "journalEntries", "journalEntriesFinished", "moodEntriesByBackendID", "outboxWithoutSyncedRows",
    "moodEntriesWithoutChildTables", "moodEntriesListedFromIndex", "moodHours", "deliveredNotifications",
  ]

  /// Today's migrations in that order, with the outbox made where `v2_moodEntries` made it
  /// (and not recorded as a migration of its own): `migrate(_:upTo:)` leaves a file as the
  /// version that stopped there made it.
  static func migrator(legacyTimeZone: TimeZone = .current) -> DatabaseMigrator {
    let migrations = Dictionary(
      uniqueKeysWithValues: WellflowFeatures.schema.migrations.map { ($0.identifier, $0) })
    let context = MigrationContext(legacyTimeZone: legacyTimeZone)
    var migrator = DatabaseMigrator()
    for identifier in order {
      let migration = migrations[identifier]!
      let outbox = identifier == "v2_moodEntries" ? migrations["outbox"] : nil
      migrator.registerMigration(identifier) { db in
        try outbox?.migrate(db, context)
        try migration.migrate(db, context)
      }
    }
    return migrator
  }
}
