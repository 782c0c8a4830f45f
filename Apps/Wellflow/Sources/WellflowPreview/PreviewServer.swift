import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ProgressBackend
import ServiceLifecycle
import WellflowCore

/// `wellflow preview`'s web server (Hummingbird), on 127.0.0.1 only:
///
/// - `GET /` the page (no file from elsewhere),
/// - `GET /api/state` what the page shows, as JSON,
/// - `GET /api/events` the same state pushed as Server-Sent Events on every change,
/// - `POST /api/command` a `PreviewCommand` as JSON; answers the new state, or 400 with
///   `{"error": "…"}`,
/// - `GET /api/script` the steps taken as a script (YAML).
public final class PreviewServer: Sendable {
  public static let host = "127.0.0.1"
  /// A command's body is a few hundred bytes; typed text is at most a field's limit.
  static let maxBodyBytes = 64 * 1024

  public let session: PreviewSession
  private let port: Int
  /// Seconds a connection has to send a complete request, as `serve` gives it; nil: no limit.
  private let requestTimeout: TimeInterval?
  private let running = RunningServer()

  public init(
    session: PreviewSession, port: Int, requestTimeout: TimeInterval? = RequestDeadline.defaultSeconds
  ) {
    self.session = session
    self.port = port
    self.requestTimeout = requestTimeout
  }

  /// Serves in the background; the base URL once the port is bound.
  public func start() async throws -> URL {
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
    guard let bound = await iterator.next() else {
      task.cancel()
      throw PreviewError("the preview could not listen on \(Self.host):\(port)")
    }
    let url = URL(string: "http://\(Self.host):\(bound)")!
    running.set(task)
    return url
  }

  /// Stops serving; open event streams end.
  public func stop() async {
    await session.close()
    guard let task = running.take() else { return }
    task.cancel()
    _ = await task.result
  }

  /// Serves in the foreground until SIGINT or SIGTERM: the pages' event streams end first
  /// (the server waits for open responses, and a stream never ends by itself), then the
  /// server stops; what is still open half a second later is cancelled.
  public func runUntilSignalled(onStart: @escaping @Sendable (URL) -> Void) async throws {
    let application = makeApplication { port in onStart(URL(string: "http://\(Self.host):\(port)")!) }
    // A group shuts its services down last first: the streams end before the server stops.
    var configuration = ServiceGroupConfiguration(
      services: [application, EndStreamsOnShutdown(session: session)],
      gracefulShutdownSignals: [.sigterm, .sigint], logger: Self.logger)
    configuration.maximumGracefulShutdownDuration = .milliseconds(500)
    try await ServiceGroup(configuration: configuration).run()
    await session.close()
  }

  private static var logger: Logger {
    var logger = Logger(label: "wellflow.preview")
    logger.logLevel = .critical
    return logger
  }

  private func makeApplication(onPort: @escaping @Sendable (Int) -> Void) -> some ApplicationProtocol {
    let session = self.session
    let responder = CallbackResponder<BasicRequestContext> { request, _ in
      var request = request
      let path = request.uri.path
      if let refusal = Self.refusal(
        host: request.head.authority, origin: request.headers[.origin],
        contentType: request.headers[.contentType], method: request.method)
      {
        return Self.json(403, ["error": refusal])
      }
      switch (request.method, path) {
      case (.get, "/"), (.get, "/index.html"):
        return Self.response(200, PreviewPage.page, type: "text/html; charset=utf-8")
      case (.get, "/api/state"):
        return Self.json(200, await session.state())
      case (.get, "/api/script"):
        return Self.response(200, await session.script(), type: "text/yaml; charset=utf-8")
      case (.get, "/api/events"):
        return Self.eventStream(session)
      case (.post, "/api/command"):
        let body: ByteBuffer
        do {
          body = try await request.collectBody(upTo: Self.maxBodyBytes)
        } catch {
          return Self.json(413, ["error": "a command is at most \(Self.maxBodyBytes) bytes"])
        }
        let command: PreviewCommand
        do {
          command = try JSONDecoder().decode(PreviewCommand.self, from: Data(body.readableBytesView))
        } catch {
          return Self.json(400, ["error": "the body is not a command: \(error)"])
        }
        do {
          try await session.perform(command)
        } catch {
          return Self.json(400, ["error": "\(error)"])
        }
        return Self.json(200, await session.state())
      default:
        return Self.json(404, ["error": "no such page: \(request.method.rawValue) \(path)"])
      }
    }
    return Application(
      responder: responder,
      server: RequestDeadline.http1(closingAfter: requestTimeout),
      configuration: ApplicationConfiguration(
        address: .hostname(Self.host, port: port), serverName: "wellflow-preview"),
      onServerRunning: { channel in onPort(channel.localAddress?.port ?? 0) },
      logger: Self.logger)
  }

  /// Why a request is refused before it reaches the app, nil when it may: the page is
  /// served to this machine's browser only. A request naming another host (a DNS
  /// rebinding page) or coming from another origin (any site open in the browser posting
  /// to 127.0.0.1) could otherwise drive the app or read its state; a command must be
  /// JSON, so a form or a `text/plain` fetch cannot send one without a preflight.
  static func refusal(host: String?, origin: String?, contentType: String?, method: HTTPRequest.Method)
    -> String?
  {
    let local = ["127.0.0.1", "localhost"]
    guard let host, let name = host.split(separator: ":", maxSplits: 1).first, local.contains(String(name))
    else {
      return "the preview answers requests for 127.0.0.1 only, not for '\(host ?? "")'"
    }
    // A browser names the page's origin as scheme://host[:port], as the Host header has it.
    if let origin, origin != "http://\(host)" {
      return "the preview takes requests from its own page only, not from '\(origin)'"
    }
    if method == .post, contentType?.lowercased().hasPrefix("application/json") != true {
      return "a command is JSON: send it with Content-Type: application/json"
    }
    return nil
  }

  /// The state as Server-Sent Events: one `data:` line of JSON for every change, the
  /// current state first; the stream ends when the session ends its updates.
  private static func eventStream(_ session: PreviewSession) -> Response {
    var headers = Self.protectedHeaders
    headers[.contentType] = "text/event-stream"
    headers[.cacheControl] = "no-cache"
    let body = ResponseBody { writer in
      let updates = await session.updates()
      for await json in updates {
        var buffer = ByteBuffer(string: "data: ")
        buffer.writeBytes(json)
        buffer.writeString("\n\n")
        try await writer.write(buffer)
      }
      try await writer.finish(nil)
    }
    return Response(status: .ok, headers: headers, body: body)
  }

  private static var encoder: JSONEncoder { PreviewState.encoder }

  private static func json(_ status: Int, _ value: some Encodable) -> Response {
    response(
      status, String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self),
      type: "application/json")
  }

  /// Every answer's: no other site may frame the page (it acts on clicks, so a framing
  /// page could trick them), and the page runs and styles only what it holds itself.
  static let protectedHeaders: HTTPFields = [
    HTTPField.Name("X-Frame-Options")!: "DENY",
    HTTPField.Name("Content-Security-Policy")!: PreviewPage.contentSecurityPolicy,
  ]

  private static func response(_ status: Int, _ text: String, type: String) -> Response {
    var headers = Self.protectedHeaders
    headers[.contentType] = type
    headers[.cacheControl] = "no-store"
    return Response(
      status: HTTPResponse.Status(code: status), headers: headers,
      body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
  }
}

/// Ends the pages' event streams when the service group starts shutting down.
private struct EndStreamsOnShutdown: Service {
  let session: PreviewSession

  func run() async throws {
    try await gracefulShutdown()
    await session.endUpdates()
  }
}

private final class RunningServer: @unchecked Sendable {
  private let lock = NSLock()
  private var task: Task<Void, Never>?

  func set(_ task: Task<Void, Never>) { lock.withLock { self.task = task } }
  func take() -> Task<Void, Never>? {
    lock.withLock {
      defer { task = nil }
      return task
    }
  }
}
