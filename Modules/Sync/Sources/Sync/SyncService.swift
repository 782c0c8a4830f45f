import FlowKit
import Foundation
import MoodTracking

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
/// devices sent. Also answers the `outbox.*` and `backend.*` queries.
public struct SyncService: Sendable {
  public let connector: any BackendConnector
  public let outbox: any Outbox
  public let moods: any MoodRepository
  public let clock: any FlowClock
  public let connectivity: any Connectivity
  public let policy: RetryPolicy
  public let concurrency: Int
  public let random: @Sendable () -> Double
  public let analytics: any AnalyticsSink
  /// The backend's last `Retry-After` for the whole pass (a 429), shared by copies of
  /// the service: a sync before it sends nothing, even one ignoring the rows' backoff.
  private let backendNotBefore = Locked<Date?>(nil)
  /// Where each user's next pull goes on after one stopped at its page limit.
  private let pullResume = Locked<[String: Int]>([:])

  public init(
    connector: any BackendConnector, outbox: any Outbox, moods: any MoodRepository, clock: any FlowClock,
    connectivity: any Connectivity, policy: RetryPolicy = RetryPolicy(),
    concurrency: Int = OutboxProcessor.defaultConcurrency,
    random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
    analytics: any AnalyticsSink = DiscardingAnalyticsSink()
  ) {
    self.connector = connector
    self.outbox = outbox
    self.moods = moods
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
    public var pullSkipped: [MoodPull.Skip] = []
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
      outbox: outbox, api: api, clock: clock, connectivity: connectivity, policy: policy,
      concurrency: concurrency, random: random, analytics: analytics)
    report = try await processor.run(userID: userID, ignoringBackoff: ignoringBackoff)
    backendNotBefore.withLock { $0 = report.notBefore }
    guard report.stop == nil else { return Result(push: report, pulled: 0) }
    let start = pullResume.withLock { $0[userID] ?? 0 }
    let pull = try await MoodPull(api: api, repository: moods, clock: clock).run(userID: userID, from: start)
    // One at its page limit goes on where it stopped; one cut short by a passing
    // failure starts where it did; one that read to the end starts over.
    pullResume.withLock { $0[userID] = pull.error == nil ? pull.resumeOffset : start }
    if let error = pull.error, error.endsPass, let retryAfter = error.retryAfter {
      backendNotBefore.withLock { $0 = clock.now.addingTimeInterval(retryAfter) }
    }
    // A passing failure of the pull is reported, not thrown: the push went through.
    var result = Result(push: report, pulled: pull.imported)
    result.pullSkipped = pull.skipped
    result.pullSkippedCount = pull.skippedCount
    result.pullError = pull.error
    result.pullUnfinished = pull.unfinished
    recordSkips(of: pull, userID: userID)
    return result
  }

  /// One `sync_pull_skipped` event for each row the pull left out that it kept (the first
  /// `MoodPull.maxSkipsKept`), with why and `skipped`, how many it left out in all. The
  /// reason says what was wrong with the row, never its notes.
  private func recordSkips(of pull: MoodPull.Report, userID: String) {
    guard analytics.isRecording else { return }
    for skip in pull.skipped {
      var fields: [String: EventValue] = [
        "entity": .string(OutboxEntity.mood.rawValue), "operation": .string("pull"),
        // A backend's row may say anything in its date or type: kept short and printable.
        "reason": .string(terminalSafe(skip.reason, limit: 200)),
        "skipped": .number(Double(pull.skippedCount)),
      ]
      if let id = skip.backendID { fields["backend_id"] = .string(terminalSafe(id, limit: 200)) }
      analytics.record(
        AnalyticsEvent(ts: clock.now, user: userID, event: "sync_pull_skipped", fields: fields))
    }
  }

  /// The user's rows on the backend (the backend's own count, whatever this device's network).
  public func backendCount(_ resource: BackendResource, userID: String) async throws -> Int {
    let api = try await connector.api(for: userID)
    switch resource {
    case .progress: return try await api.listProgress(ListQuery(limit: 1)).total
    case .journal: return try await api.listJournal(ListQuery(limit: 1)).total
    }
  }
}

public enum BackendResource: String, Sendable, CaseIterable {
  case progress
  case journal
}

/// The app provides the sync service under this key.
public enum SyncServiceKey: ServiceKey {
  public typealias Value = SyncService
}

/// The queries scripts read the backend with (`outbox.*` belong to MoodTracking, which
/// owns the outbox port).
public enum SyncFeature: FlowFeature {
  public static var requiredServices: [any ServiceKey.Type] { [SyncServiceKey.self] }

  public static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    for resource in BackendResource.allCases {
      try registry.register(
        QueryDefinition(
          "backend.\(resource.rawValue).count", type: .number,
          summary: "\(resource.rawValue) rows of the user on the backend"
        ) { environment in
          guard let userID = environment.userID else { return .number(0) }
          let count = try await environment.services[SyncServiceKey.self].backendCount(
            resource, userID: userID)
          return .number(Double(count))
        })
    }
  }
}
