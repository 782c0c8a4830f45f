import FlowKit
import Foundation
import Sync
import WellflowComposition

/// The runner's view of the app's composition, which lives in `WellflowComposition`
/// (the features and the adapters of their ports) so that an app links it without the
/// runner.
public enum WellflowApp {
  public static var features: [any FlowFeature.Type] { WellflowFeatures.all }

  public static func makeRegistry() throws(RegistryError) -> FlowRegistry {
    try WellflowFeatures.makeRegistry()
  }
}

/// One app process as a script sees it: the composed app (`AppContainer`) on a clock
/// the runner moves, with deferred work, no animation pauses, the embedded backend by
/// default and experiments choosing variants. `relaunch` closes and reopens it on the
/// same data.
@MainActor
public final class AppSession {
  /// Where the app keeps its data.
  public typealias StorageMode = AppContainer.StorageMode

  public let container: AppContainer
  public let clock: ManualClock
  /// Chooses variants of flows started without one; nil runs every flow's default.
  public let experiments: ExperimentAssigner?
  /// The device's network state, which outlives relaunches.
  public let connectivity: NetworkSwitch
  /// The language screens show in; nil is English.
  public let locale: String?

  public init(
    registry: FlowRegistry, dataDirectory: URL, clock: ManualClock, userID: String,
    analytics: any AnalyticsSink, storage: StorageMode = .sqlite, experiments: ExperimentAssigner? = nil,
    backend: any BackendConnector = EmbeddedBackend(databasePath: nil),
    connectivity: NetworkSwitch = NetworkSwitch(), locale: String? = nil
  ) {
    self.clock = clock
    self.experiments = experiments
    self.connectivity = connectivity
    self.locale = locale
    let localizer = locale.flatMap(WellflowLocalization.localizer)
    let install: @MainActor (FlowHost) -> Void = { host in
      host.localizer = localizer
      experiments?.install(on: host)
    }
    container = AppContainer(
      registry: registry, storage: storage, dataDirectory: dataDirectory, userID: userID, clock: clock,
      analytics: analytics, backend: backend, connectivity: connectivity, workMode: .deferred,
      presentationClock: ImmediatePresentationClock(),
      onHostCreated: install)
  }

  public var registry: FlowRegistry { container.registry }
  public var storage: StorageMode { container.storage }
  public var dataDirectory: URL { container.dataDirectory }
  public var userID: String { container.userID }
  public var analytics: any AnalyticsSink { container.analytics }
  /// Where `sync` sends.
  public var backend: any BackendConnector { container.backend }
  public var host: FlowHost? { container.host }
  /// Sends the outbox and pulls, once the app is open.
  public var sync: SyncService? { container.sync }

  /// Opens storage and makes the host, unless the app is already running.
  @discardableResult
  public func open() throws -> FlowHost { try container.open() }

  /// Deletes the app's own data (not the embedded backend's), as uninstalling would.
  /// Call it while the app is closed.
  public func clearLocalData() throws { try container.clearLocalData() }

  /// Quits: flows are dropped and storage is closed.
  public func close() { container.close() }
}
