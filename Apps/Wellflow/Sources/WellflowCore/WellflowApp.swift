import CheckInFlow
import FlowKit
import Foundation
import Journal
import MoodTracking
import Onboarding
import Storage

/// The composition root: which features the app ships and which adapters serve their
/// ports. Swapping an adapter is a change here and nowhere else.
public enum WellflowApp {
  public static let features: [any FlowFeature.Type] = [
    OnboardingFeature.self, MoodTrackingFeature.self, CheckInFeature.self, JournalFeature.self,
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
  private var database: WellflowDatabase?
  private lazy var memoryStore = InMemoryKeyValueStore()
  private lazy var memoryJournal = InMemoryJournalRepository()
  private lazy var memoryOutbox = InMemoryOutbox()
  private lazy var memoryMoods = InMemoryMoodRepository(outbox: memoryOutbox)
  private lazy var memoryHealth = InMemoryStateOfMindStore()

  public init(
    registry: FlowRegistry, dataDirectory: URL, clock: ManualClock, userID: String,
    analytics: any AnalyticsSink, storage: StorageMode = .sqlite, experiments: ExperimentAssigner? = nil
  ) {
    self.experiments = experiments
    self.registry = registry
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
    case .sqlite:
      let database = try WellflowDatabase.open(directory: dataDirectory, legacyTimeZone: clock.timeZone)
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
    let environment = HostEnvironment(
      userID: userID, clock: clock, keyValueStore: keyValueStore, analytics: analytics, services: services)
    try AppKeys.recordFirstLaunch(in: keyValueStore, at: clock.now)
    let host = try FlowHost(registry: registry, environment: environment, workMode: .deferred)
    experiments?.install(on: host)
    self.host = host
    return host
  }

  /// Quits: flows are dropped and storage is closed.
  public func close() {
    host?.terminate()
    host = nil
    database = nil
  }
}
