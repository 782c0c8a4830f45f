import FlowKit
import Foundation
import Hummingbird
import HummingbirdCore
import JournalCatalog
import Logging
import NIOCore

/// The progress API of SPEC §3 served over HTTP (Hummingbird) on SQLite: what
/// `wellflow serve` runs and what the runner embeds for scripts.
public final class ProgressServer: Sendable {
  public struct Configuration: Sendable {
    /// The address to bind; loopback unless told otherwise.
    public var host: String
    /// 0 picks a free port.
    public var port: Int
    /// The SQLite file; nil keeps the rows in memory.
    public var databasePath: String?
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
    /// Told one line per request answered (`logLine`); nil: no request log.
    public var requestLog: (@Sendable (String) -> Void)?

    public init(
      host: String = "127.0.0.1", port: Int = 0, databasePath: String? = nil, apiKey: String,
      jwtSecret: String, fault: (@Sendable (_ method: String, _ path: String) async -> Fault?)? = nil,
      now: @escaping @Sendable () -> Date = { Date() }, idleTimeout: TimeInterval? = 10,
      jwtIssuer: String? = nil, jwtAudience: String? = nil,
      failureLog: (@Sendable (_ id: String, _ error: any Error) -> Void)? = nil,
      requestLog: (@Sendable (String) -> Void)? = nil
    ) {
      self.failureLog = failureLog
      self.requestLog = requestLog
      self.host = host
      self.port = port
      self.databasePath = databasePath
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

  /// The headers the API reads (lower case).
  static let readHeaders: Set<String> = ["authorization", "x-api-key", "idempotency-key", "content-length"]

  /// What a fault hook answers in place of the API.
  public enum Fault: Sendable {
    /// This status with the error envelope.
    case status(Int, message: String)
    /// No answer at all until the server stops.
    case hang
  }

  public let configuration: Configuration
  private let api: BackendAPI
  private let running = LockedState()

  public init(configuration: Configuration) throws {
    self.configuration = configuration
    var api = BackendAPI(
      store: try BackendStore(path: configuration.databasePath), apiKey: configuration.apiKey,
      jwtSecret: configuration.jwtSecret, jwtIssuer: configuration.jwtIssuer,
      jwtAudience: configuration.jwtAudience, catalog: try JournalCatalog.bundled(), now: configuration.now)
    api.failed =
      configuration.failureLog ?? { id, error in
        try? FileHandle.standardError.write(
          contentsOf: Data("wellflow serve: failure \(id): \(error)\n".utf8))
      }
    self.api = api
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
  }

  /// Serves in the foreground until SIGINT or SIGTERM (`wellflow serve`).
  public func runUntilSignalled(onStart: @escaping @Sendable (URL) -> Void) async throws {
    let host = configuration.host
    let application = makeApplication { port in onStart(URL(string: "http://\(host):\(port)")!) }
    try await application.runService()
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
    var logger = Logger(label: "wellflow.backend")
    // Stopping cancels open connections, which Hummingbird logs as errors; nothing else is logged.
    logger.logLevel = .critical
    let api = self.api
    let fault = configuration.fault
    let requestLog = configuration.requestLog
    let handle: @Sendable (Request) async throws -> Response = { request in
      var request = request
      let path = request.uri.path
      let method = request.method.rawValue
      if let fault, let answer = await fault(method, path) {
        switch answer {
        case .status(let status, let message):
          return Self.response(
            BackendAPI.Refusal(status: status, code: "injected", message: message).response)
        case .hang:
          while !Task.isCancelled { try await Task.sleep(for: .seconds(3_600)) }
          throw CancellationError()
        }
      }
      var headers: [String: String] = [:]
      for field in request.headers {
        // The HTTP parser turns bytes that are not UTF-8 into U+FFFD, so two different
        // keys (0x85 and 0x86) would arrive as one: a header the API reads that holds
        // U+FFFD is refused rather than merged with another.
        if field.value.unicodeScalars.contains("\u{FFFD}"),
          Self.readHeaders.contains(field.name.canonicalName)
        {
          return Self.response(
            BackendAPI.Refusal.invalid("the \(field.name.rawName) header is not UTF-8 text").response)
        }
        headers[field.name.canonicalName] = field.value
      }
      var query: [String: String] = [:]
      for (name, value) in request.uri.queryParameters {
        query[String(name)] = String(value).removingPercentEncoding ?? String(value)
      }
      let tooLarge = BackendAPI.Refusal(
        status: 413, code: "payload_too_large",
        message: "the body must be at most \(Self.maxBodyBytes) bytes (1 MiB)")
      if let length = headers["content-length"].flatMap({ Int($0) }), length > Self.maxBodyBytes {
        return Self.response(tooLarge.response)
      }
      let body: Data
      do {
        body = Data(try await request.collectBody(upTo: Self.maxBodyBytes).readableBytesView)
      } catch is NIOTooManyBytesError {
        return Self.response(tooLarge.response)
      }
      let answer = await api.respond(
        to: BackendAPI.Request(method: method, path: path, query: query, headers: headers, body: body))
      return Self.response(answer)
    }
    let responder = CallbackResponder<BasicRequestContext> { request, _ in
      guard let requestLog else { return try await handle(request) }
      let started = ContinuousClock.now
      let response = try await handle(request)
      requestLog(Self.logLine(request, status: response.status.code, took: ContinuousClock.now - started))
      return response
    }
    return Application(
      responder: responder,
      server: RequestDeadline.http1(closingAfter: configuration.idleTimeout, envelopes: true),
      configuration: ApplicationConfiguration(
        address: .hostname(configuration.host, port: configuration.port), serverName: "wellflow-backend"),
      onServerRunning: { channel in onPort(channel.localAddress?.port ?? 0) },
      logger: logger)
  }

  /// One request as `serve` logs it: method, path (no query), status, milliseconds. Never a
  /// header or a body: no key or token reaches a log.
  static func logLine(_ request: Request, status: Int, took: Duration) -> String {
    let milliseconds = Double(took.components.seconds) * 1_000 + Double(took.components.attoseconds) / 1e15
    let path = terminalSafe(request.uri.path, limit: 200)
    return "\(request.method.rawValue) \(path) \(status) \(String(format: "%.1f", milliseconds)) ms"
  }

  /// Seconds as NIO's time, kept within a millisecond and a day (never traps).
  static func timeAmount(_ seconds: TimeInterval) -> TimeAmount {
    let clamped = seconds.isNaN ? 10 : min(max(seconds, 0.001), 86_400)
    return .nanoseconds(Int64(clamped * 1_000_000_000))
  }

  private static func response(_ answer: BackendResponse) -> Response {
    var headers = HTTPFields()
    if !answer.body.isEmpty { headers[.contentType] = "application/json" }
    if let allow = answer.allow { headers[.allow] = allow.joined(separator: ", ") }
    return Response(
      status: HTTPResponse.Status(code: answer.status), headers: headers,
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
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
