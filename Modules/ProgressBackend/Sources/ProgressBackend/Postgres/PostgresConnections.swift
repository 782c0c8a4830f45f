import Foundation
import Logging
import PostgresNIO

/// Open connections to one database, reused between requests. A connection is opened
/// when none is idle, so a refused or missing database is an error at once (the driver's
/// pool waits for a connection that never comes); one whose use failed for any reason but
/// the server's own refusal of a statement is closed, not reused.
final class PostgresConnections: @unchecked Sendable {
  let location: PostgresLocation
  let logger = PostgresLocation.quietLogger
  /// Idle connections kept beyond this many are closed.
  private let keep: Int
  private let lock = NSLock()
  private var idle: [PostgresConnection] = []
  private var closed = false

  /// Each statement's limit on the server (PostgreSQL's `statement_timeout`).
  let statementTimeout: Duration?

  /// `statementTimeout`: by default 30 s, the longest any request's statement should take.
  init(location: PostgresLocation, keep: Int = 32, statementTimeout: Duration? = .seconds(30)) {
    self.location = location
    self.keep = keep
    self.statementTimeout = statementTimeout
  }

  func withConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
    let connection = try await take()
    let value: T
    do {
      value = try await body(connection)
    } catch {
      if PostgresFailure.sqlState(error) != nil, !connection.isClosed {
        give(connection)
      } else {
        try? await connection.close()
      }
      // The driver describes its errors in one generic sentence; this names what failed.
      if error is PSQLError { throw PostgresFailure(location: location.description, error: error) }
      throw error
    }
    give(connection)
    return value
  }

  /// Closes the idle connections; later uses open new ones.
  func close() async {
    let all = lock.withLock {
      closed = true
      defer { idle = [] }
      return idle
    }
    for connection in all { try? await connection.close() }
  }

  private func take() async throws -> PostgresConnection {
    while let connection = lock.withLock({ idle.popLast() }) {
      if !connection.isClosed { return connection }
    }
    return try await location.connect(logger: logger, statementTimeout: statementTimeout)
  }

  private func give(_ connection: PostgresConnection) {
    let kept = lock.withLock {
      guard !closed, idle.count < keep, !connection.isClosed else { return false }
      idle.append(connection)
      return true
    }
    if !kept { connection.closeInBackground() }
  }
}

extension PostgresConnection {
  /// `body` between BEGIN and COMMIT; ROLLBACK when it throws. The error is the body's own
  /// (the driver's `withTransaction` wraps it).
  func inTransaction<T>(logger: Logger, _ body: (PostgresConnection) async throws -> T) async throws -> T {
    try await query("BEGIN", logger: logger)
    let value: T
    do {
      value = try await body(self)
    } catch {
      _ = try? await query("ROLLBACK", logger: logger)
      throw error
    }
    try await query("COMMIT", logger: logger)
    return value
  }

  /// Runs `statements` one by one (the extended protocol takes one statement a query).
  func run(_ statements: [String], logger: Logger) async throws {
    for statement in statements {
      try await query(PostgresQuery(unsafeSQL: statement), logger: logger)
    }
  }
}

extension PostgresConnection {
  /// Closes without waiting. The connection is kept until it is closed: the driver asserts
  /// that no connection goes away open.
  public func closeInBackground() {
    let connection = self
    close().whenComplete { _ in withExtendedLifetime(connection) {} }
  }
}
