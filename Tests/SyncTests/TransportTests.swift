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

/// A loopback listener that accepts connections and never answers.
final class SilentServer: @unchecked Sendable {
  let port: Int
  private let socket: Int32
  private var accepted: [Int32] = []
  private let lock = NSLock()

  var acceptedCount: Int { lock.withLock { accepted.count } }

  init() throws {
    let listener = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    socket = listener
    port = Int(UInt16(bigEndian: address.sin_port))
    Thread.detachNewThread { [weak self] in
      while true {
        let connection = accept(listener, nil, nil)
        guard connection >= 0, let self else { return }
        self.lock.lock()
        self.accepted.append(connection)
        self.lock.unlock()
      }
    }
  }

  deinit {
    shutdown(socket, Int32(SHUT_RDWR))
    close(socket)
    for connection in accepted { close(connection) }
  }
}
