import FlowKit
import Foundation

/// How the app reaches its backend for a user. A runner's embedded server starts on
/// the first call; a real backend is just an address and credentials.
public protocol BackendConnector: Sendable {
  func api(for userID: String) async throws -> any ProgressAPI
}

/// A backend at a known address with fixed credentials (`--backend URL --api-key K --token T`).
public struct FixedBackendConnector: BackendConnector {
  public let client: ProgressAPIClient

  public init(credentials: BackendCredentials, transport: any HTTPTransport, timeout: TimeInterval = 15) {
    client = ProgressAPIClient(credentials: credentials, transport: transport, timeout: timeout)
  }

  public func api(for userID: String) async throws -> any ProgressAPI { client }
}

/// What `sync` does for the signed-in user: send the outbox, then pull what other
/// devices sent, through the features' registered resources. Also answers the
/// `backend.*` queries.
public struct SyncService: Sendable {
  public let connector: any BackendConnector
  public let outbox: any Outbox
  /// What sends and pulls each feature's entities, in the features' order.
  public let resources: [SyncResource]
  /// The app's ports, for the resources' pulls.
  public let services: Services
  public let clock: any FlowClock
  public let connectivity: any Connectivity
  public let policy: RetryPolicy
  public let concurrency: Int
  public let random: @Sendable () -> Double
  public let analytics: any AnalyticsSink
  /// The backend's last `Retry-After` for the whole pass (a 429), shared by copies of
  /// the service: a sync before it sends nothing, even one ignoring the rows' backoff.
  private let backendNotBefore = Locked<Date?>(nil)
  /// Where each user's next pull of each resource goes on after one stopped at its page limit.
  private let pullResume = Locked<[String: Int]>([:])

  public init(
    connector: any BackendConnector, outbox: any Outbox, resources: [SyncResource], services: Services,
    clock: any FlowClock,
    connectivity: any Connectivity, policy: RetryPolicy = RetryPolicy(),
    concurrency: Int = OutboxProcessor.defaultConcurrency,
    random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
    analytics: any AnalyticsSink = DiscardingAnalyticsSink()
  ) {
    self.connector = connector
    self.outbox = outbox
    self.resources = resources
    self.services = services
    self.clock = clock
    self.connectivity = connectivity
    self.policy = policy
    self.concurrency = concurrency
    self.random = random
    self.analytics = analytics
  }

  public struct Result: Sendable, Hashable {
    public var push: SyncReport
    /// Entries other devices sent that are new here.
    public var pulled: Int
    /// Backend rows the pull left out (out-of-range scores, unreadable dates) and why.
    public var pullSkipped: [SyncPullSkip] = []
    public var pullSkippedCount = 0
    /// Why the pull did not run to the end, when a passing failure stopped it.
    public var pullError: ProgressAPIError?
    /// Why the pull stopped although the backend answered: its page limit (the next
    /// sync goes on from there) or pages that do not add up.
    public var pullUnfinished: String?
  }

  /// Tries every pending row once (with `ignoringBackoff`, even those still waiting),
  /// then pulls. Offline, nothing is sent and nothing is pulled; while the backend's
  /// `Retry-After` runs, neither.
  public func sync(userID: String, ignoringBackoff: Bool = true) async throws -> Result {
    var report = SyncReport()
    guard connectivity.isOnline else {
      report.stop = .offline
      report.untried = try await outbox.pendingCount(userID: userID)
      return Result(push: report, pulled: 0)
    }
    if let notBefore = backendNotBefore.current, clock.now < notBefore {
      report.stop = .backendUnavailable(
        "the backend asked to wait until \(notBefore.formatted(.iso8601)) (429)")
      report.notBefore = notBefore
      report.untried = try await outbox.pendingCount(userID: userID)
      return Result(push: report, pulled: 0)
    }
    let api = try await connector.api(for: userID)
    let processor = OutboxProcessor(
      outbox: outbox, api: api, resources: resources, clock: clock, connectivity: connectivity,
      policy: policy, concurrency: concurrency, random: random, analytics: analytics)
    report = try await processor.run(userID: userID, ignoringBackoff: ignoringBackoff)
    backendNotBefore.withLock { $0 = report.notBefore }
    guard report.stop == nil else { return Result(push: report, pulled: 0) }
    var result = Result(push: report, pulled: 0)
    for resource in resources {
      guard let pull = resource.pull else { continue }
      let resumeKey = "\(resource.entity.rawValue)\u{0}\(userID)"
      let start = pullResume.withLock { $0[resumeKey] ?? 0 }
      let pulled = try await pull(
        SyncPullContext(api: api, userID: userID, offset: start, services: services, clock: clock))
      // One at its page limit goes on where it stopped; one cut short by a passing
      // failure starts where it did; one that read to the end starts over.
      pullResume.withLock { $0[resumeKey] = pulled.error == nil ? pulled.resumeOffset : start }
      if let error = pulled.error, error.endsPass, let retryAfter = error.retryAfter {
        backendNotBefore.withLock { $0 = clock.now.addingTimeInterval(retryAfter) }
      }
      // A passing failure of the pull is reported, not thrown: the push went through.
      result.pulled += pulled.imported
      result.pullSkipped += pulled.skipped.prefix(SyncPullReport.maxSkipsKept - result.pullSkipped.count)
      result.pullSkippedCount += pulled.skippedCount
      result.pullError = result.pullError ?? pulled.error
      result.pullUnfinished = result.pullUnfinished ?? pulled.unfinished
      recordSkips(of: pulled, entity: resource.entity, userID: userID)
      // The backend is out of reach: the next resource's pull would fail alike.
      if pulled.error?.endsPass == true { break }
    }
    return result
  }

  /// One `sync_pull_skipped` event for each row the pull left out that it kept (the first
  /// `SyncPullReport.maxSkipsKept`), with why and `skipped`, how many it left out in all.
  /// The reason says what was wrong with the row, never its notes.
  private func recordSkips(of pull: SyncPullReport, entity: OutboxEntity, userID: String) {
    guard analytics.isRecording else { return }
    for skip in pull.skipped {
      var fields: [String: EventValue] = [
        "entity": .string(entity.rawValue), "operation": .string("pull"),
        // A backend's row may say anything in its date or type: kept short and printable.
        "reason": .string(terminalSafe(skip.reason, limit: 200)),
        "skipped": .number(Double(pull.skippedCount)),
      ]
      if let id = skip.backendID { fields["backend_id"] = .string(terminalSafe(id, limit: 200)) }
      analytics.record(
        AnalyticsEvent(ts: clock.now, user: userID, event: "sync_pull_skipped", fields: fields))
    }
  }

  /// The user's rows on the backend at the resource named `name` (the backend's own
  /// count, whatever this device's network).
  public func backendCount(_ name: String, userID: String) async throws -> Int {
    guard let resource = resources.first(where: { $0.name == name }) else {
      throw SyncServiceError.noResource(name)
    }
    let api = try await connector.api(for: userID)
    return try await resource.count(api)
  }
}

public enum SyncServiceError: Error, Equatable, CustomStringConvertible {
  case noResource(String)

  public var description: String {
    switch self {
    case .noResource(let name): "the app syncs no resource named \(name)"
    }
  }
}

/// The app provides the sync service under this key.
public enum SyncServiceKey: ServiceKey {
  public typealias Value = SyncService
}

/// The queries scripts read the backend with: `backend.<resource>.count`, one for each
/// registered resource (`SyncingFeature` registers them). The outbox's own queries
/// (`outbox.pending`, `outbox.failed`) read FlowKit's `OutboxKey` port, which the app
/// provides; a feature registers them, not Sync.
public enum SyncFeature {
  public static func registerCount(of resource: SyncResource, in registry: inout FlowRegistry)
    throws(RegistryError)
  {
    let name = resource.name
    try registry.register(
      QueryDefinition(
        "backend.\(name).count", type: .number, summary: "\(name) rows of the user on the backend"
      ) { environment in
        guard let userID = environment.userID else { return .number(0) }
        let count = try await environment.services[SyncServiceKey.self].backendCount(name, userID: userID)
        return .number(Double(count))
      })
  }
}
