import AsyncHTTPClient
import FlowKit
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import Sync

/// HTTP in this process through async-http-client (SwiftNIO): what `wellflow` sends with
/// on every platform, and what a server-side Swift app would use.
///
/// It follows no redirect: a 3xx comes back as the answer, so the API key and the bearer
/// token never go to another origin or over another scheme. A body is read as it
/// arrives with backpressure, decompressed under a limit, and refused once it passes
/// `HTTPExchangeResponse.maxBodyBytes` (or at its head, when its `Content-Length` is
/// over): a gzip bomb costs no more memory than the limit. Each request races its whole
/// deadline (`DeadlineWait`, which a test may control); the idle timeout is the
/// connection's read timeout.
public final class HTTPClientTransport: HTTPTransport {
  /// Returns when `seconds` have passed, or when its task is cancelled.
  public typealias DeadlineWait = @Sendable (_ seconds: TimeInterval) async -> Void

  /// The transport of `wellflow`: one connection pool per process.
  public static let shared = HTTPClientTransport()

  /// Where requests go: the process's pool (at most `connections` per host), or an app's client.
  private enum Pool {
    case shared(connections: Int)
    case own(HTTPClient)
  }

  private let pool: Pool
  private let waitOutDeadline: DeadlineWait

  /// `connections` is the most connections per host; `deadline` waits out each request's
  /// deadline (the wall clock unless a test passes one it controls).
  public init(
    connections: Int = OutboxProcessor.defaultConcurrency,
    deadline: @escaping DeadlineWait = { try? await Task.sleep(for: .seconds($0)) }
  ) {
    self.pool = .shared(connections: max(1, connections))
    self.waitOutDeadline = deadline
  }

  /// Sends through `client`, an app's own (a server that already has one): its pool,
  /// timeouts and redirect rule are the app's, and the app shuts it down. Each request
  /// still races its whole deadline.
  public init(
    client: HTTPClient, deadline: @escaping DeadlineWait = { try? await Task.sleep(for: .seconds($0)) }
  ) {
    self.pool = .own(client)
    self.waitOutDeadline = deadline
  }

  /// What `wellflow`'s own clients are made with: no redirects, `idle` as the connect
  /// and read timeout, decompression under the body limit, at most `connections` per host.
  public static func configuration(idle: TimeInterval, connections: Int) -> HTTPClient.Configuration {
    let milliseconds = Int64(min(max(idle, 0.001), 86_400) * 1_000)
    var configuration = HTTPClient.Configuration(
      redirectConfiguration: .disallow,
      timeout: HTTPClient.Configuration.Timeout(
        connect: .milliseconds(milliseconds), read: .milliseconds(milliseconds)),
      decompression: .enabled(limit: .size(HTTPExchangeResponse.maxBodyBytes)))
    configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(1, connections)
    // A refused connection is an answer (the row waits for the next sync, which has its
    // own backoff), not something to retry until the deadline.
    configuration.connectionPool.retryConnectionEstablishment = false
    return configuration
  }

  public func send(_ request: HTTPExchangeRequest) async -> Result<HTTPExchangeResponse, HTTPTransportFailure>
  {
    let idle = max(request.idleTimeout.isFinite && request.idleTimeout > 0 ? request.idleTimeout : 15, 0.001)
    let deadline = request.deadline.isFinite && request.deadline > 0 ? request.deadline : idle
    let client =
      switch pool {
      case .shared(let connections): ClientPool.client(idle: idle, connections: connections)
      case .own(let client): client
      }
    let waitOutDeadline = waitOutDeadline
    // Whichever ends first answers; the other is cancelled and awaited, so nothing of
    // the request outlives the call.
    return await withTaskGroup(of: Result<HTTPExchangeResponse, HTTPTransportFailure>?.self) { group in
      group.addTask { await Self.exchange(request, on: client) }
      group.addTask {
        await waitOutDeadline(deadline)
        return Task.isCancelled ? nil : .failure(.timeout)
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first ?? .failure(.timeout)
    }
  }

  private static func exchange(_ request: HTTPExchangeRequest, on client: HTTPClient) async -> Result<
    HTTPExchangeResponse, HTTPTransportFailure
  > {
    var outgoing = HTTPClientRequest(url: request.url.absoluteString)
    outgoing.method = HTTPMethod(rawValue: request.method)
    for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
    if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
    do {
      let response = try await client.execute(outgoing, deadline: .distantFuture)
      let limit = HTTPExchangeResponse.maxBodyBytes
      if let length = response.headers.first(name: "content-length").flatMap({ Int($0) }), length > limit {
        return .failure(.tooLarge)
      }
      var body = Data()
      for try await chunk in response.body {
        guard body.count + chunk.readableBytes <= limit else { return .failure(.tooLarge) }
        body.append(contentsOf: chunk.readableBytesView)
      }
      var headers: [String: String] = [:]
      for (name, value) in response.headers where headers[name.lowercased()] == nil {
        headers[name.lowercased()] = value
      }
      return .success(HTTPExchangeResponse(status: Int(response.status.code), headers: headers, body: body))
    } catch {
      return .failure(failure(error, url: request.url))
    }
  }

  /// What an error of the stack means to the progress client.
  static func failure(_ error: any Error, url: URL) -> HTTPTransportFailure {
    let place = "\(url.host ?? "?"):\(url.port.map(String.init) ?? (url.scheme == "https" ? "443" : "80"))"
    if error is CancellationError { return .timeout }
    if let error = error as? NIOHTTPDecompression.DecompressionError, case .limit = error { return .tooLarge }
    if let error = error as? HTTPClientError {
      switch error {
      case .readTimeout, .writeTimeout, .connectTimeout, .deadlineExceeded, .cancelled,
        .getConnectionFromPoolTimeout:
        return .timeout
      case .remoteConnectionClosed: return .unreachable("the backend closed the connection")
      default: return .unreachable("\(error)")
      }
    }
    if let error = error as? NIOConnectionError {
      let reasons = error.connectionErrors.map { "\($0.error)" } + (error.dnsAError.map { ["\($0)"] } ?? [])
      return .unreachable(
        "cannot connect to \(error.host):\(error.port)" + (reasons.isEmpty ? "" : " (\(reasons[0]))"))
    }
    if let error = error as? IOError {
      let reason = String(cString: strerror(error.errnoCode))
      switch error.errnoCode {
      case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL:
        return .unreachable("cannot connect to \(place) (\(reason))")
      default: return .unreachable("the connection to \(place) failed (\(reason))")
      }
    }
    return .unreachable("\(error)")
  }
}

/// One client per idle timeout and connection limit, for the life of the process (as
/// `HTTPClient.shared` is): a pool is never shut down under a request in flight.
private enum ClientPool {
  private struct Key: Hashable {
    var idleMilliseconds: Int64
    var connections: Int
  }

  private static let clients = Locked<[Key: HTTPClient]>([:])

  static func client(idle: TimeInterval, connections: Int) -> HTTPClient {
    let milliseconds = Int64(min(idle, 86_400) * 1_000)
    return clients.withLock { clients in
      let key = Key(idleMilliseconds: milliseconds, connections: connections)
      if let client = clients[key] { return client }
      let client = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: HTTPClientTransport.configuration(idle: idle, connections: connections))
      clients[key] = client
      return client
    }
  }
}

extension ProgressAPIClient {
  /// A client sending through async-http-client in this process. `timeout` is the idle
  /// timeout; `requestDeadline` bounds each whole request and defaults to `timeout`;
  /// `maxConnections` lets a concurrent processor use that many connections.
  public convenience init(
    credentials: BackendCredentials, timeout: TimeInterval = 15, requestDeadline: TimeInterval? = nil,
    maxConnections: Int = 4
  ) {
    self.init(
      credentials: credentials, transport: HTTPClientTransport(connections: maxConnections), timeout: timeout,
      requestDeadline: requestDeadline)
  }
}
