import AsyncHTTPClient
import FlowKit
import Foundation
import ProgressBackend
import Sync
import SyncHTTPClient
import SyncURLSession
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Both transports behind the `HTTPTransport` port: async-http-client, which `wellflow`
/// sends with in process, and URLSession, which an Apple app links. Each is run against
/// the real server and against a server that accepts and never answers, with a deadline
/// the test ends itself. The misbehaving-peer suites run the first one in depth.
@Suite struct TransportTests {
  enum Kind: String, CaseIterable, CustomTestStringConvertible {
    /// The process's pool; an app's own `HTTPClient`; URLSession.
    case asyncHTTPClient, appsOwnHTTPClient, urlSession
    var testDescription: String { rawValue }

    func make(connections: Int = 2, deadline: @escaping @Sendable (TimeInterval) async -> Void)
      -> any HTTPTransport
    {
      switch self {
      case .asyncHTTPClient: HTTPClientTransport(connections: connections, deadline: deadline)
      case .appsOwnHTTPClient: HTTPClientTransport(client: Self.appsClient, deadline: deadline)
      case .urlSession: URLSessionTransport(connections: connections, deadline: deadline)
      }
    }

    /// An app's client, for the life of the process (as an app keeps one).
    static let appsClient = HTTPClient(
      eventLoopGroup: HTTPClient.defaultEventLoopGroup,
      configuration: HTTPClientTransport.configuration(idle: 600, connections: 2))

    /// The wall clock, far longer than anything here should take.
    func make() -> any HTTPTransport { make { try? await Task.sleep(for: .seconds($0)) } }
  }

  @Test(arguments: Kind.allCases)
  func concurrentRequestsToTheRealServerEachGetTheirOwnAnswer(_ kind: Kind) async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let client = ProgressAPIClient(
      credentials: BackendCredentials(
        baseURL: backend.url, apiKey: apiKey, token: backend.server.token(for: "alice")),
      transport: kind.make(), timeout: 600)
    let created = try await withThrowingTaskGroup(of: ProgressRecord.self) { group in
      for score in 1...8 {
        group.addTask {
          try await client.createProgress(
            body: progressBody(quantity: Double(score)), idempotencyKey: "key-\(score)")
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(Set(created.map(\.quantity)) == Set((1...8).map(Double.init)))
    #expect(try await client.listProgress(ListQuery(limit: 50)).total == 8)
    // The server's refusal arrives as the same classified error from either stack.
    await #expect(throws: ProgressAPIError.badRequest("quantity must be a whole number from 1 to 10, got 11"))
    {
      _ = try await client.createProgress(body: progressBody(quantity: 11), idempotencyKey: "key-11")
    }
  }

  /// The deadline is the test's: it ends once the silent server holds the connection,
  /// so a timeout is the only outcome however slow the machine.
  @Test(arguments: Kind.allCases)
  func theDeadlineEndsARequestToAServerThatNeverAnswers(_ kind: Kind) async throws {
    let silent = try SilentServer()
    let transport = kind.make { _ in
      while silent.acceptedCount == 0, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
    }
    let request = HTTPExchangeRequest(
      method: "GET", url: URL(string: "http://127.0.0.1:\(silent.port)/api/v1/progress")!, idleTimeout: 3_600,
      deadline: 3_600)
    #expect(await transport.send(request) == .failure(.timeout))
  }

  @Test(arguments: Kind.allCases)
  func aCancelledRequestEndsAsATimeout(_ kind: Kind) async throws {
    let silent = try SilentServer()
    let transport = kind.make()
    let request = HTTPExchangeRequest(
      method: "GET", url: URL(string: "http://127.0.0.1:\(silent.port)/")!, idleTimeout: 3_600,
      deadline: 3_600)
    let sending = Task { await transport.send(request) }
    while silent.acceptedCount == 0 { try await Task.sleep(for: .milliseconds(5)) }
    sending.cancel()
    #expect(await sending.value == .failure(.timeout))
  }

  @Test func aRefusedConnectionIsUnreachableAndSaysWhere() async throws {
    // A port that was just free: bound, read, closed.
    let port = try SilentServer().port
    let result = await Kind.asyncHTTPClient.make().send(
      HTTPExchangeRequest(
        method: "GET", url: URL(string: "http://127.0.0.1:\(port)/")!, idleTimeout: 600, deadline: 600))
    guard case .failure(.unreachable(let message)) = result else {
      Issue.record("expected unreachable, got \(result)")
      return
    }
    #expect(message == "cannot connect to 127.0.0.1:\(port) (Connection refused)")
    #expect(ProgressAPIError.unreachable(message).isTransient)
  }
}

/// The silent server itself: a server dropped at once must not take the next one's
/// connections (its accept thread used to outlive its socket and call `accept` on the
/// descriptor the next server's socket reused).
@Suite struct SilentServerTests {
  @Test func aServerDroppedAtOnceLeavesTheNextOneItsConnections() async throws {
    for round in 0..<30 {
      _ = try SilentServer().port
      let server = try SilentServer()
      let client = try connect(to: server.port)
      defer { close(client) }
      // Bounded only so that a lost connection fails the test instead of hanging it;
      // an accept on loopback takes microseconds.
      var waited = 0
      while server.acceptedCount == 0, waited < 60_000 {
        try await Task.sleep(for: .milliseconds(1))
        waited += 1
      }
      #expect(server.acceptedCount == 1, "round \(round): the connection never reached its server")
      if server.acceptedCount != 1 { return }
    }
  }

  private func connect(to port: Int) throws -> Int32 {
    let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(fd)
      throw POSIXError(.ECONNREFUSED)
    }
    return fd
  }
}

/// A loopback listener that accepts connections and never answers.
///
/// Its accept thread owns the listening socket and closes it only once `accept` has
/// failed (after `deinit`'s `shutdown`). Were `deinit` to close it, a thread that had not
/// reached `accept` yet would call it on whatever socket the next `socket()` got that
/// descriptor: another test's listener, whose first connection it would take and drop,
/// leaving that test waiting for an accept that never comes (the CI runs that hung).
final class SilentServer: Sendable {
  /// The connections accepted so far, closed with the server.
  private final class Connections: Sendable {
    private struct State {
      var open: [Int32] = []
      var count = 0
      var closed = false
    }
    private let state = Locked(State())

    var count: Int { state.withLock { $0.count } }

    /// Keeps `connection` open until `closeAll`; false (and closes it) once that has run.
    func keep(_ connection: Int32) -> Bool {
      let kept = state.withLock { state -> Bool in
        guard !state.closed else { return false }
        state.open.append(connection)
        state.count += 1
        return true
      }
      if !kept { close(connection) }
      return kept
    }

    func closeAll() {
      let open = state.withLock { state -> [Int32] in
        state.closed = true
        defer { state.open = [] }
        return state.open
      }
      for connection in open { close(connection) }
    }
  }

  let port: Int
  private let socket: Int32
  private let connections = Connections()

  var acceptedCount: Int { connections.count }

  init() throws {
    let listener = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard listener >= 0 else { throw POSIXError(.EMFILE) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(listener, 16) == 0 else {
      close(listener)
      throw POSIXError(.EADDRINUSE)
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    socket = listener
    port = Int(UInt16(bigEndian: address.sin_port))
    Thread.detachNewThread { [connections] in
      while true {
        let connection = accept(listener, nil, nil)
        if connection < 0 {
          if errno == EINTR { continue }
          break
        }
        guard connections.keep(connection) else { break }
      }
      close(listener)
    }
  }

  deinit {
    // Ends the accept thread's `accept` (now or when it gets there); it closes the socket.
    shutdown(socket, Int32(SHUT_RDWR))
    connections.closeAll()
  }
}
