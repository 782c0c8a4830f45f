import FlowKit
import Foundation
import Hummingbird
import HummingbirdCore
import JournalCatalog
import Logging
import NIOCore

/// The progress API (`/api/v1/progress`, `/api/v1/journal`) served over HTTP (Hummingbird) on SQLite or
/// PostgreSQL: what
/// `wellflow serve` runs and what the runner embeds for scripts.
public final class ProgressServer: Sendable {
  public struct Configuration: Sendable {
    /// The address to bind; loopback unless told otherwise.
    public var host: String
    /// 0 picks a free port.
    public var port: Int
    /// Where the rows are kept.
    public var database: BackendDatabase
    /// The SQLite file; nil keeps the rows in memory (or they are in PostgreSQL).
    public var databasePath: String? {
      get {
        if case .sqlite(let path) = database { return path }
        return nil
      }
      set { database = .sqlite(path: newValue) }
    }
    public var apiKey: String
    public var jwtSecret: String
    /// When set, a token must carry this `iss`; tokens the server issues do.
    public var jwtIssuer: String?
    /// When set, a token's `aud` must name this audience; tokens the server issues do.
    public var jwtAudience: String?
    /// Runs before each request; a non-nil fault is answered instead (fault tests).
    public var fault: (@Sendable (_ method: String, _ path: String) async -> Fault?)?
    public var now: @Sendable () -> Date
    /// Seconds a connection has to send a complete request, from when it opens or from its
    /// last response; then it is closed (half-open and slow-loris connections). A request
    /// read whole is never cut off while it is answered. nil: no limit.
    public var idleTimeout: TimeInterval?
    /// Where a failure answered 500 is logged, with the id its answer names; nil: the
    /// standard error, one line each.
    public var failureLog: (@Sendable (_ id: String, _ error: any Error) -> Void)?
    /// Told one line per request answered (method, path, status, milliseconds); nil: no
    /// request log.
    public var requestLog: (@Sendable (String) -> Void)?
    /// Whether `GET /metrics` is answered on the API's port: only where that port is
    /// loopback (`serve` decides).
    public var servesMetrics: Bool
    /// A port of its own answering `GET /metrics` alone, on the same host; nil: none.
    public var metricsPort: Int?

    public init(
      host: String = "127.0.0.1", port: Int = 0, databasePath: String? = nil, apiKey: String,
      jwtSecret: String, fault: (@Sendable (_ method: String, _ path: String) async -> Fault?)? = nil,
      now: @escaping @Sendable () -> Date = { Date() }, idleTimeout: TimeInterval? = 10,
      jwtIssuer: String? = nil, jwtAudience: String? = nil,
      failureLog: (@Sendable (_ id: String, _ error: any Error) -> Void)? = nil,
      requestLog: (@Sendable (String) -> Void)? = nil, servesMetrics: Bool = true, metricsPort: Int? = nil
    ) {
      self.servesMetrics = servesMetrics
      self.metricsPort = metricsPort
      self.failureLog = failureLog
      self.requestLog = requestLog
      self.host = host
      self.port = port
      self.database = .sqlite(path: databasePath)
      self.apiKey = apiKey
      self.jwtSecret = jwtSecret
      self.fault = fault
      self.now = now
      self.idleTimeout = idleTimeout
      self.jwtIssuer = jwtIssuer
      self.jwtAudience = jwtAudience
    }
  }

  /// The largest request body; a larger one is answered 413.
  public static let maxBodyBytes = 1 << 20

  /// What a fault hook answers in place of the API.
  public enum Fault: Sendable {
    /// This status with the error envelope.
    case status(Int, message: String)
    /// No answer at all until the server stops.
    case hang
  }

  public let configuration: Configuration
  private let settings: BackendRouter.Settings
  private let running = LockedState()
  private let store: any BackendStore

  public init(configuration: Configuration) throws {
    self.configuration = configuration
    store = try configuration.database.makeStore()
    settings = BackendRouter.Settings(
      store: store, catalog: try JournalCatalog.bundled(),
      apiKey: configuration.apiKey, jwtSecret: configuration.jwtSecret, jwtIssuer: configuration.jwtIssuer,
      jwtAudience: configuration.jwtAudience, now: configuration.now, fault: configuration.fault,
      requestLog: configuration.requestLog,
      failed: configuration.failureLog ?? { id, error in
        try? FileHandle.standardError.write(
          contentsOf: Data("wellflow serve: failure \(id): \(error)\n".utf8))
      }, metrics: RequestMetrics(), servesMetrics: configuration.servesMetrics)
  }

  /// A token for `userID` signed with this server's secret.
  public func token(for userID: String, ttl: TimeInterval = 86_400) -> String {
    let now = configuration.now()
    return JWT.sign(
      subject: userID, secret: configuration.jwtSecret, issuedAt: now, expiresAt: now.addingTimeInterval(ttl),
      issuer: configuration.jwtIssuer, audience: configuration.jwtAudience)
  }

  /// Starts serving in the background; returns the base URL once the port is bound.
  @discardableResult
  public func start() async throws -> URL {
    if let url = running.url { return url }
    try await prepareStore()
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    let application = makeApplication { port in continuation.yield(port) }
    let task = Task {
      do {
        try await application.run()
      } catch {
        continuation.finish()
      }
      continuation.finish()
    }
    var iterator = stream.makeAsyncIterator()
    guard let port = await iterator.next() else {
      task.cancel()
      await store.close()
      throw ServerError.couldNotStart(host: configuration.host, port: configuration.port)
    }
    let url = URL(string: "http://\(configuration.host):\(port)")!
    running.set(url: url, task: task)
    return url
  }

  /// The base URL while running.
  public var url: URL? { running.url }

  /// Stops serving; requests in flight are cut off.
  public func stop() async {
    guard let task = running.take() else { return }
    task.cancel()
    _ = await task.result
    await store.close()
  }

  /// Serves in the foreground until SIGINT or SIGTERM (`wellflow serve`).
  public func runUntilSignalled(onStart: @escaping @Sendable (URL) -> Void) async throws {
    let host = configuration.host
    // Connected and migrated before the port is bound: a database that cannot be used
    // is an error at start, not a 500 on every request.
    try await prepareStore()
    let application = makeApplication { port in onStart(URL(string: "http://\(host):\(port)")!) }
    do {
      try await application.runService()
    } catch {
      await store.close()
      throw error
    }
    await store.close()
  }

  private func prepareStore() async throws {
    do {
      try await store.prepare()
    } catch {
      await store.close()
      throw error
    }
  }

  public enum ServerError: Error, CustomStringConvertible {
    case couldNotStart(host: String, port: Int)

    public var description: String {
      switch self {
      case .couldNotStart(let host, let port): "the progress server could not listen on \(host):\(port)"
      }
    }
  }

  private func makeApplication(onPort: @escaping @Sendable (Int) -> Void) -> some ApplicationProtocol {
    var logger = Logger(label: "wellflow.backend", factory: ServerLogHandler.init(label:))
    // Stopping cancels open connections, which Hummingbird logs as errors; nothing else is logged.
    logger.logLevel = .critical
    let metricsServer = configuration.metricsPort.map { port in
      Application(
        router: BackendRouter.metricsOnly(settings.metrics),
        server: RequestDeadline.http1(closingAfter: configuration.idleTimeout),
        configuration: ApplicationConfiguration(
          address: .hostname(configuration.host, port: port), serverName: "wellflow-backend"),
        logger: logger)
    }
    return Application(
      router: BackendRouter.build(settings),
      server: RequestDeadline.http1OnEventLoop(closingAfter: configuration.idleTimeout, envelopes: true),
      configuration: ApplicationConfiguration(
        address: .hostname(configuration.host, port: configuration.port), serverName: "wellflow-backend"),
      services: metricsServer.map { [$0] } ?? [],
      onServerRunning: { channel in onPort(channel.localAddress?.port ?? 0) },
      logger: logger)
  }

  /// Seconds as NIO's time, kept within a millisecond and a day (never traps).
  static func timeAmount(_ seconds: TimeInterval) -> TimeAmount {
    let clamped = seconds.isNaN ? 10 : min(max(seconds, 0.001), 86_400)
    return .nanoseconds(Int64(clamped * 1_000_000_000))
  }
}

/// The running server's address and task.
private final class LockedState: @unchecked Sendable {
  private let lock = NSLock()
  private var state: (url: URL, task: Task<Void, Never>)?

  var url: URL? { lock.withLock { state?.url } }

  func set(url: URL, task: Task<Void, Never>) { lock.withLock { state = (url, task) } }

  func take() -> Task<Void, Never>? {
    lock.withLock {
      defer { state = nil }
      return state?.task
    }
  }
}
