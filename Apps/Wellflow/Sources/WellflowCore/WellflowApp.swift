import FlowKit
import Foundation
import Onboarding
import Storage

/// The composition root: which features the app ships and which adapters serve their
/// ports. Swapping an adapter is a change here and nowhere else.
public enum WellflowApp {
  public static let features: [any FlowFeature.Type] = [OnboardingFeature.self]

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
  public let registry: FlowRegistry
  public let dataDirectory: URL
  public let clock: ManualClock
  public let userID: String
  public let analytics: any AnalyticsSink
  public private(set) var host: FlowHost?
  private var database: WellflowDatabase?

  public init(
    registry: FlowRegistry, dataDirectory: URL, clock: ManualClock, userID: String,
    analytics: any AnalyticsSink
  ) {
    self.registry = registry
    self.dataDirectory = dataDirectory
    self.clock = clock
    self.userID = userID
    self.analytics = analytics
  }

  /// Opens storage and makes the host, unless the app is already running.
  @discardableResult
  public func open() throws -> FlowHost {
    if let host { return host }
    let database = try WellflowDatabase.open(directory: dataDirectory)
    let environment = HostEnvironment(
      userID: userID, clock: clock, keyValueStore: SQLiteKeyValueStore(database: database, userID: userID),
      analytics: analytics)
    let host = try FlowHost(registry: registry, environment: environment)
    self.database = database
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
