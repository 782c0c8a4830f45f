import FlowKit
import Foundation
import Storage
import Sync

/// One app process: its storage, the adapters serving every port the features declared,
/// the sync service and the host. Swapping an adapter is a change here (or in
/// `customizeServices`) and nowhere else.
///
///     let app = AppContainer(
///       registry: try WellflowFeatures.makeRegistry(), dataDirectory: applicationSupport,
///       userID: account.id,
///       backend: FixedBackendConnector(credentials: credentials, transport: URLSessionTransport()))
///     let host = try app.open()   // throws CompositionError when a port is missing
///     await host.launch()
///
/// `close()` quits (flows are dropped, storage closed) and `open()` again relaunches on
/// the same data.
@MainActor
public final class AppContainer {
  /// Where the app keeps its data.
  public enum StorageMode: Sendable {
    /// SQLite in the data directory: what users run.
    case sqlite
    /// SQLite in memory, through the same adapters, for runs that keep nothing (scripts
    /// without a data folder, the explorer, previews): the database outlives `close()` and
    /// `open()` (as a file would) and ends with the container.
    case sqliteScratch
  }

  public let registry: FlowRegistry
  public let storage: StorageMode
  /// The features' storage: migrations and adapters, each feature's own.
  public let schema: SQLiteSchema
  /// Where `.sqlite` keeps `wellflow.sqlite`; unused by `.sqliteScratch`.
  public let dataDirectory: URL
  public let clock: any FlowClock
  public let userID: String
  public let analytics: any AnalyticsSink
  /// Where `sync` sends.
  public let backend: any BackendConnector
  /// What `sync` sends and pulls: the features' sync resources; nil for the app's
  /// (`WellflowFeatures.syncResources`).
  public let syncResources: [SyncResource]?
  public let connectivity: any Connectivity
  public let workMode: WorkTracker.Mode
  public let presentationClock: any PresentationClock
  /// Changes the ports after the container wired its own adapters and before the host is
  /// composed: an app swaps one (a HealthKit state-of-mind store) or adds a port a new
  /// feature declared. A `SyncServiceKey` set here replaces the container's sync service.
  public let customizeServices: (@MainActor (inout Services) -> Void)?
  /// Called with each new host before `open()` returns it (experiments install their
  /// variant resolver here).
  public let onHostCreated: (@MainActor (FlowHost) -> Void)?

  public private(set) var host: FlowHost?
  /// Sends the outbox and pulls, once the app is open.
  public private(set) var sync: SyncService?
  private(set) var database: WellflowDatabase?
  /// The `.sqliteScratch` database, kept across relaunches.
  private(set) var scratch: WellflowDatabase?

  /// `clock` defaults to the device's clock and `presentationClock` to real pauses;
  /// `workMode` `.deferred` is for headless runners, which settle between steps.
  public init(
    registry: FlowRegistry, storage: StorageMode = .sqlite, schema: SQLiteSchema = WellflowFeatures.schema,
    dataDirectory: URL, userID: String,
    clock: any FlowClock = SystemClock(), analytics: any AnalyticsSink = DiscardingAnalyticsSink(),
    backend: any BackendConnector, syncResources: [SyncResource]? = nil,
    connectivity: any Connectivity = NetworkSwitch(),
    workMode: WorkTracker.Mode = .concurrent,
    presentationClock: any PresentationClock = SleepingPresentationClock(),
    customizeServices: (@MainActor (inout Services) -> Void)? = nil,
    onHostCreated: (@MainActor (FlowHost) -> Void)? = nil
  ) {
    self.registry = registry
    self.storage = storage
    self.schema = schema
    self.dataDirectory = dataDirectory
    self.userID = userID
    self.clock = clock
    self.analytics = analytics
    self.backend = backend
    self.syncResources = syncResources
    self.connectivity = connectivity
    self.workMode = workMode
    self.presentationClock = presentationClock
    self.customizeServices = customizeServices
    self.onHostCreated = onHostCreated
  }

  /// Opens storage and composes the host, unless the app is already running. Throws
  /// `CompositionError` when a feature's declared port is not provided,
  /// `SQLiteSchemaError` when two features' storage register one migration or outbox
  /// entity, and storage errors when the database cannot be opened.
  @discardableResult
  public func open() throws -> FlowHost {
    if let host { return host }
    // Two features' storage claiming one migration or outbox entity (in every mode).
    try schema.check()
    var services = Services()
    let database: WellflowDatabase
    switch storage {
    case .sqlite:
      database = try WellflowDatabase.open(
        directory: dataDirectory, schema: schema, legacyTimeZone: clock.timeZone)
    case .sqliteScratch:
      database = try scratch ?? WellflowDatabase.scratch(schema: schema)
      scratch = database
    }
    let context = AdapterContext(
      userID: userID, clock: clock, keyValueStore: SQLiteKeyValueStore(database: database, userID: userID),
      outbox: SQLiteOutbox(database: database))
    services[OutboxKey.self] = context.outbox
    for feature in schema.features { try feature.sqliteAdapters(&services, database, context) }
    let keyValueStore = context.keyValueStore
    customizeServices?(&services)
    let sync: SyncService
    if services.has(SyncServiceKey.self) {
      sync = services[SyncServiceKey.self]
    } else {
      sync = SyncService(
        connector: backend, outbox: services[OutboxKey.self],
        resources: try syncResources ?? WellflowFeatures.syncResources,
        services: services,
        clock: clock, connectivity: connectivity, analytics: analytics)
      services[SyncServiceKey.self] = sync
    }
    let environment = HostEnvironment(
      userID: userID, clock: clock, keyValueStore: keyValueStore, analytics: analytics,
      presentationClock: presentationClock, services: services)
    let host = try FlowHost.compose(registry: registry, environment: environment, workMode: workMode)
    try AppKeys.recordFirstLaunch(in: keyValueStore, at: clock.now)
    onHostCreated?(host)
    self.database = database
    self.sync = sync
    self.host = host
    return host
  }

  /// Deletes the app's own data, as uninstalling would. Call it while the app is closed.
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

/// Pauses for animation in real time (an alert's dismissal): an app's presentation clock.
public struct SleepingPresentationClock: PresentationClock {
  public init() {}

  public func pause(seconds: Double) async {
    guard seconds > 0, seconds.isFinite else { return }
    try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
  }
}
