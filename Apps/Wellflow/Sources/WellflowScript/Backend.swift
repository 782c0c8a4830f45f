import FlowKit
import Foundation
import ProgressBackend
import Sync
import SyncHTTPClient

/// Which backend `sync` talks to during a run: an embedded one on loopback unless
/// `--backend` names one.
public enum BackendChoice: Sendable {
  /// A progress server on a loopback port, started when a script first needs it.
  case embedded
  /// A real one: `--backend URL --api-key K --token T`.
  case remote(BackendCredentials)
}

/// The runner's own progress server: started on a free loopback port the first time a
/// script syncs or asks the backend, with a token issued for the script's user that
/// lasts the run. Its rows live beside the app's data, so `--data-dir` keeps both.
public actor EmbeddedBackend: BackendConnector {
  public static let fileName = "backend.sqlite"
  /// Every token expires; one outlived by its run (a preview left open for
  /// days) is replaced halfway through its life.
  static let tokenLifetime: TimeInterval = 24 * 3_600

  private let databasePath: String?
  private var server: ProgressServer?
  private var clients: [String: (client: ProgressAPIClient, renewAt: Date)] = [:]
  private let started = Locked(false)

  private let now: @Sendable () -> Date

  /// `databasePath` nil keeps the backend's rows in memory; `now` is the server's clock.
  public init(databasePath: String?, now: @escaping @Sendable () -> Date = { Date() }) {
    self.databasePath = databasePath
    self.now = now
  }

  /// Whether a server was started, readable without waiting for the actor.
  public nonisolated var wasStarted: Bool { started.current }

  public func api(for userID: String) async throws -> any ProgressAPI {
    if let cached = clients[userID], now() < cached.renewAt {
      return cached.client
    }
    let server = try await runningServer()
    let client = ProgressAPIClient(
      credentials: BackendCredentials(
        baseURL: server.url!, apiKey: server.configuration.apiKey,
        token: server.token(for: userID, ttl: Self.tokenLifetime)),
      transport: HTTPClientTransport.shared, timeout: 30)
    clients[userID] = (client, now().addingTimeInterval(Self.tokenLifetime / 2))
    return client
  }

  private func runningServer() async throws -> ProgressServer {
    if let server { return server }
    started.withLock { $0 = true }
    // Secrets are made only here: most script runs never sync, and each run must stay cheap.
    let server = try ProgressServer(
      configuration: ProgressServer.Configuration(
        host: "127.0.0.1", port: 0, databasePath: databasePath,
        apiKey: "wellflow-embedded-\(UUID().uuidString)",
        jwtSecret: UUID().uuidString + UUID().uuidString, now: now))
    try await server.start()
    self.server = server
    return server
  }

  public func stop() async {
    clients = [:]
    await server?.stop()
    server = nil
  }
}
