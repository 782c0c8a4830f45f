import FlowKit
import Journal
import Storage

/// What the journal brings to the app's storage: its table, and its repository over it
/// (which queues, at launch, the entries a quit left unfinished) or in memory.
public enum JournalStorage {
  public static let feature = FeatureStorage(
    name: "Journal", migrations: SQLiteJournalRepository.migrations,
    sqliteAdapters: { services, database, context in
      let journal = SQLiteJournalRepository(database: database, clock: context.clock)
      try journal.queueUnfinished(userID: context.userID)
      services[JournalRepositoryKey.self] = journal
    },
    memoryAdapters: { _ in
      let journal = InMemoryJournalRepository()
      return { services, _ in services[JournalRepositoryKey.self] = journal }
    })
}
