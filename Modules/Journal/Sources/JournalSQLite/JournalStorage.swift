import FlowKit
import Foundation
import Journal
import Storage

/// What the journal brings to the app's storage: its table, and its repository over it
/// (which queues, at launch, the entries a quit left unfinished).
public enum JournalStorage: StoringFeature {
  public static var storage: FeatureStorage { feature }

  public static let feature = FeatureStorage(
    name: "Journal", migrations: SQLiteJournalRepository.migrations,
    sqliteAdapters: { services, database, context in
      let journal = SQLiteJournalRepository(database: database, clock: context.clock)
      try journal.queueUnfinished(userID: context.userID)
      services[JournalRepositoryKey.self] = journal
    },
    export: FeatureExport(type: "journal", columns: ["primary", "secondary", "strategy", "initiated_by"]) {
      database, userID, interval in
      try await SQLiteJournalRepository(database: database, clock: SystemClock())
        .entries(userID: userID, in: interval).map { entry in
          FeatureExport.Row(
            date: entry.createdAt,
            values: [
              "primary": .integer(entry.primary),
              "secondary": entry.secondary.map(FeatureExport.Value.integer) ?? .none,
              "strategy": entry.strategy.map(FeatureExport.Value.integer) ?? .none,
              "initiated_by": .text(entry.initiatedBy.rawValue),
            ])
        }
    })
}
