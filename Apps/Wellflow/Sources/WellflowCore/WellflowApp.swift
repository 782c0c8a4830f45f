import CheckInFlow
import FlowKit
import Foundation
import Journal
import MoodTracking
import Onboarding
import Storage
import Sync

/// The composition root: which features the app ships and which adapters serve their
/// ports. Swapping an adapter is a change here and nowhere else.
public enum WellflowApp {
  public static let features: [any FlowFeature.Type] = [
    OnboardingFeature.self, MoodTrackingFeature.self, CheckInFeature.self, JournalFeature.self,
    SyncFeature.self,
  ]

  public static func makeRegistry() throws(RegistryError) -> FlowRegistry {
    var registry = FlowRegistry()
    for feature in features { try registry.register(feature) }
    try registry.validate()
    return registry
  }
}

/// One app process as a script sees it: storage in a data directory, a host, a clock
/// the runner moves. `relaunch` closes and reopens it on the same data.
@MainActor
public final class AppSession {
  /// Where the app keeps its data.
  public enum StorageMode: Sendable {
    /// SQLite in the data directory: what users run.
    case sqlite
    /// SQLite in memory, through the same adapters, for runs that keep nothing: the
    /// database outlives `relaunch` (as a file would) and ends with the session.
    case sqliteScratch
    /// Memory that lives as long as the session (benchmarks measuring the runner itself).
    case memory
  }

  public let registry: FlowRegistry
  public let storage: StorageMode
  public let dataDirectory: URL
  public let clock: ManualClock
  public let userID: String
  public let analytics: any AnalyticsSink
  /// Chooses variants of flows started without one; nil runs every flow's default.
  public let experiments: ExperimentAssigner?
  public private(set) var host: FlowHost?
  /// Where `sync` sends; the device's network state outlives relaunches.
  public let backend: any BackendConnector
  public let connectivity: NetworkSwitch
  /// Sends the outbox and pulls, once the app is open.
  public private(set) var sync: SyncService?
  private var database: WellflowDatabase?
  /// The `.sqliteScratch` database, kept across relaunches.
  private var scratch: WellflowDatabase?
  private lazy var memoryStore = InMemoryKeyValueStore()
  private lazy var memoryJournal = InMemoryJournalRepository()
  private lazy var memoryOutbox = InMemoryOutbox()
  private lazy var memoryMoods = InMemoryMoodRepository(outbox: memoryOutbox)
  private lazy var memoryHealth = InMemoryStateOfMindStore()

  public init(
    registry: FlowRegistry, dataDirectory: URL, clock: ManualClock, userID: String,
    analytics: any AnalyticsSink, storage: StorageMode = .sqlite, experiments: ExperimentAssigner? = nil,
    backend: any BackendConnector = EmbeddedBackend(databasePath: nil),
    connectivity: NetworkSwitch = NetworkSwitch()
  ) {
    self.experiments = experiments
    self.registry = registry
    self.backend = backend
    self.connectivity = connectivity
    self.storage = storage
    self.dataDirectory = dataDirectory
    self.clock = clock
    self.userID = userID
    self.analytics = analytics
  }

  /// Opens storage and makes the host, unless the app is already running.
  @discardableResult
  public func open() throws -> FlowHost {
    if let host { return host }
    let keyValueStore: any KeyValueStore
    var services = Services()
    switch storage {
    case .sqlite, .sqliteScratch:
      let database: WellflowDatabase
      if storage == .sqlite {
        database = try WellflowDatabase.open(directory: dataDirectory, legacyTimeZone: clock.timeZone)
      } else {
        database = try scratch ?? WellflowDatabase.scratch()
        scratch = database
      }
      keyValueStore = SQLiteKeyValueStore(database: database, userID: userID)
      let journal = SQLiteJournalRepository(database: database, clock: clock)
      try journal.queueUnfinished(userID: userID)
      services[JournalRepositoryKey.self] = journal
      services[MoodRepositoryKey.self] = SQLiteMoodRepository(writer: database.writer)
      services[StateOfMindStoreKey.self] = SQLiteStateOfMindStore(writer: database.writer)
      services[OutboxKey.self] = SQLiteOutbox(writer: database.writer)
      self.database = database
    case .memory:
      keyValueStore = memoryStore
      services[JournalRepositoryKey.self] = memoryJournal
      services[MoodRepositoryKey.self] = memoryMoods
      services[StateOfMindStoreKey.self] = memoryHealth
      services[OutboxKey.self] = memoryOutbox
    }
    let sync = SyncService(
      connector: backend, outbox: services[OutboxKey.self], moods: services[MoodRepositoryKey.self],
      clock: clock,
      connectivity: connectivity, analytics: analytics)
    services[SyncServiceKey.self] = sync
    self.sync = sync
    let environment = HostEnvironment(
      userID: userID, clock: clock, keyValueStore: keyValueStore, analytics: analytics, services: services)
    try AppKeys.recordFirstLaunch(in: keyValueStore, at: clock.now)
    let host = try FlowHost(registry: registry, environment: environment, workMode: .deferred)
    experiments?.install(on: host)
    self.host = host
    return host
  }

  /// Deletes the app's own data (not the embedded backend's), as uninstalling would.
  /// Call it while the app is closed.
  public func clearLocalData() throws {
    switch storage {
    case .sqlite:
      let names = ["", "-wal", "-shm"].map { WellflowDatabase.fileName + $0 }
      for name in names {
        let file = dataDirectory.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
      }
    case .sqliteScratch:
      scratch = nil
    case .memory:
      memoryStore = InMemoryKeyValueStore()
      memoryJournal = InMemoryJournalRepository()
      memoryOutbox = InMemoryOutbox()
      memoryMoods = InMemoryMoodRepository(outbox: memoryOutbox)
      memoryHealth = InMemoryStateOfMindStore()
    }
  }

  /// Quits: flows are dropped and storage is closed.
  public func close() {
    host?.terminate()
    host = nil
    sync = nil
    database = nil
  }
}
