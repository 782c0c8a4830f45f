import ArgumentParser
import Foundation
import ProgressBackend
import WellflowCore

/// The settings `serve` and `token` share when none are given, for local use only.
struct Serve: AsyncParsableCommand {
  /// How long a request's log line may wait to be written with others.
  static let logInterval = Duration.milliseconds(100)

  /// The request log on standard output, a line per request, written in batches: a write
  /// per request cost it more than the line did.
  static func requestLogBuffer() -> BatchedLines {
    BatchedLines { bytes in
      do throws(WriteFailure) {
        try OutputFile.standardOutput.write(bytes)
      } catch {
        StandardStreams.end(after: error)
      }
    }
  }

  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Serve the progress API (moods, journal, batch) on 127.0.0.1 until interrupted.",
    discussion: """
      Rows are kept in a SQLite file (--db or --database FILE), in PostgreSQL
      (--database postgres://user@host:port/db; several serve processes on one
      database act as one server) or in memory. Every request needs the API
      key in X-API-Key and a bearer token from `wellflow token USER` signed with the
      same JWT secret.

      Secrets come from --api-key-file/--jwt-secret-file, --api-key/--jwt-secret
      (readable by others on the machine; a warning), $WELLFLOW_API_KEY and
      $WELLFLOW_JWT_SECRET, else development defaults. With a --host beyond
      loopback, serve needs its own key and a JWT secret of 32 bytes or more, from
      the environment or a file, and refuses to start otherwise.

      Example:
        wellflow serve --port 8080 --db backend.sqlite --api-key k --jwt-secret s &
        wellflow run Apps/Wellflow/Scripts/sync-mood-offline-days.yaml \\
          --backend http://127.0.0.1:8080 --api-key k \\
          --token "$(wellflow token user-1 --jwt-secret s)"
      """)

  @Option(help: "The port to listen on (0 picks a free one).")
  var port: Int = 8080

  @Option(help: "Keep the rows in this SQLite file (default: in memory).")
  var db: String?

  @Option(help: "Keep the rows in this SQLite file or PostgreSQL database (postgres://user@host:port/db).")
  var database: String?

  @Option(name: .customLong("api-key"), help: "The API key clients must send.")
  var apiKey: String?

  @Option(name: .customLong("api-key-file"), help: "Read the API key from this file.")
  var apiKeyFile: String?

  @Option(name: .customLong("jwt-secret"), help: "The secret bearer tokens are signed with (HS256).")
  var jwtSecret: String?

  @Option(name: .customLong("jwt-secret-file"), help: "Read the JWT secret from this file.")
  var jwtSecretFile: String?

  @Option(help: "The address to bind.")
  var host: String = "127.0.0.1"

  @Option(name: .customLong("jwt-issuer"), help: "Accept only tokens whose iss is this.")
  var jwtIssuer: String?

  @Flag(help: "Log no line per request (method, path, status, milliseconds; never a header or body).")
  var quiet = false

  @Option(name: .customLong("jwt-audience"), help: "Accept only tokens whose aud names this.")
  var jwtAudience: String?

  @Option(
    name: .customLong("metrics-port"),
    help: """
      Also answer GET /metrics (Prometheus, no auth) on this port of --host. On a loopback \
      --host the API's port answers it too.
      """)
  var metricsPort: Int?

  func validate() throws {
    guard (0...65_535).contains(port) else { throw ValidationError("--port takes 0…65535, got \(port)") }
    if let metricsPort, !(1...65_535).contains(metricsPort) {
      throw ValidationError("--metrics-port takes 1…65535, got \(metricsPort)")
    }
    guard jwtIssuer?.isEmpty != true, jwtAudience?.isEmpty != true else {
      throw ValidationError("--jwt-issuer and --jwt-audience must not be empty")
    }
    if db != nil, database != nil { throw ValidationError("give --db or --database, not both") }
  }

  func run() async throws {
    let store: BackendDatabase
    do {
      store = try database.map(BackendDatabase.init(argument:)) ?? .sqlite(path: db)
    } catch {
      StandardStreams.err("wellflow serve: \(error)\n")
      throw ExitCode(2)
    }
    let secrets: ServerSecrets
    do {
      secrets = try ServerSecrets.resolve(
        apiKey: .init(value: apiKey, file: apiKeyFile),
        jwtSecret: .init(value: jwtSecret, file: jwtSecretFile),
        host: host, environment: ProcessInfo.processInfo.environment)
    } catch {
      StandardStreams.err("wellflow serve: \(error)\n")
      throw ExitCode(2)
    }
    for warning in secrets.warnings {
      StandardStreams.err("warning: \(warning)\n")
    }
    let log = quiet ? nil : Self.requestLogBuffer()
    // Lines wait at most `logInterval`; those still waiting when the server stops are
    // written before the process ends.
    let flusher = log.map { log in
      Task {
        while !Task.isCancelled {
          try? await Task.sleep(for: Self.logInterval)
          log.flush()
        }
      }
    }
    defer {
      flusher?.cancel()
      log?.flush()
    }
    let requestLog: (@Sendable (String) -> Void)?
    if let log { requestLog = { log.append($0) } } else { requestLog = nil }
    var configuration = ProgressServer.Configuration(
      host: host, port: port, apiKey: secrets.apiKey, jwtSecret: secrets.jwtSecret,
      jwtIssuer: jwtIssuer, jwtAudience: jwtAudience, requestLog: requestLog,
      servesMetrics: ServerSecrets.isLoopback(host), metricsPort: metricsPort)
    configuration.database = store
    let server = try ProgressServer(configuration: configuration)
    do {
      try await server.runUntilSignalled { url in
        StandardStreams.out("serving the progress API on \(url.absoluteString) (Ctrl-C stops)\n")
      }
    } catch let failure as PostgresFailure {
      StandardStreams.err("wellflow serve: \(failure)\n")
      throw ExitCode(2)
    }
  }
}
