import FlowKit
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// Open connections to one database, reused between requests, kept per event loop: a
/// request answered on loop L (`EventLoopConnections`) gets a connection whose socket is
/// L's too, so sending a statement and reading its answer wake no other thread. At most
/// `perLoop` connections are open per loop; a request that finds them all in use waits for
/// one (more would only add PostgreSQL processes competing for the same cores). A
/// connection is opened when none is idle, so a refused or missing database is an error at
/// once; one whose use failed for any reason but the server's own refusal of a statement
/// is closed, not reused.
final class PostgresConnections: @unchecked Sendable {
  let location: PostgresLocation
  let logger = PostgresLocation.quietLogger
  /// The most connections open at once on one event loop.
  let perLoop: Int
  private let lock = NSLock()
  private var pools: [ObjectIdentifier: Pool] = [:]
  private var closed = false

  /// One event loop's connections.
  private struct Pool {
    var idle: [PostgresConnection] = []
    /// Idle, in use, or being opened.
    var open = 0
    /// Requests waiting for a connection of this loop, first come first served: each is
    /// given an idle connection, or nil to open one in place of one that was closed.
    var waiting: [CheckedContinuation<PostgresConnection?, Never>] = []
  }

  /// Each statement's limit on the server (PostgreSQL's `statement_timeout`).
  let statementTimeout: Duration?

  /// `statementTimeout`: by default 30 s, the longest any request's statement should take.
  /// `perLoop`: 4 by default, enough to keep 2 cores' PostgreSQL busy from each loop.
  init(location: PostgresLocation, perLoop: Int = 4, statementTimeout: Duration? = .seconds(30)) {
    self.location = location
    self.perLoop = max(1, perLoop)
    self.statementTimeout = statementTimeout
  }

  func withConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
    // Off an event loop (start-up, tests) any of the driver's loops serves.
    let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? PostgresConnection.defaultEventLoopGroup.any()
    let connection = try await take(on: loop)
    let value: T
    do {
      value = try await body(connection)
    } catch {
      if PostgresFailure.sqlState(error) != nil, !connection.isClosed {
        give(connection, on: loop)
      } else {
        drop(connection, on: loop)
      }
      // The driver describes its errors in one generic sentence; this names what failed.
      if error is PSQLError { throw PostgresFailure(location: location.description, error: error) }
      throw error
    }
    give(connection, on: loop)
    return value
  }

  /// Closes the idle connections; later uses open new ones, and close them when done.
  func close() async {
    let all = lock.withLock {
      closed = true
      defer { for key in pools.keys { pools[key]!.idle = [] } }
      return pools.values.flatMap(\.idle)
    }
    for connection in all { try? await connection.close() }
  }

  private enum Turn {
    case use(PostgresConnection)
    case open
    case wait
  }

  private func take(on loop: any EventLoop) async throws -> PostgresConnection {
    let key = ObjectIdentifier(loop)
    var turn = lock.withLock { () -> Turn in
      var pool = pools[key] ?? Pool()
      defer { pools[key] = pool }
      while let connection = pool.idle.popLast() {
        if !connection.isClosed { return .use(connection) }
        pool.open -= 1
      }
      guard pool.open < perLoop || closed else { return .wait }
      pool.open += 1
      return .open
    }
    if case .wait = turn {
      let given = await withCheckedContinuation { continuation in
        let queued = lock.withLock {
          // A connection may have come back between the two locks.
          guard !closed, pools[key]!.idle.isEmpty, pools[key]!.open >= perLoop else { return false }
          pools[key]!.waiting.append(continuation)
          return true
        }
        if !queued { continuation.resume(returning: nil as PostgresConnection?) }
      }
      if let given {
        turn = .use(given)
      } else {
        // Nothing handed over: take again (an idle one, or a place to open one).
        return try await take(on: loop)
      }
    }
    if case .use(let connection) = turn { return connection }
    do {
      return try await location.connect(logger: logger, statementTimeout: statementTimeout, on: loop)
    } catch {
      release(on: loop)
      throw error
    }
  }

  /// Back to its loop's idle connections, or to the first request waiting for one.
  private func give(_ connection: PostgresConnection, on loop: any EventLoop) {
    guard !connection.isClosed else { return drop(connection, on: loop) }
    let key = ObjectIdentifier(loop)
    let (waiter, kept) = lock.withLock { () -> (CheckedContinuation<PostgresConnection?, Never>?, Bool) in
      if !pools[key]!.waiting.isEmpty { return (pools[key]!.waiting.removeFirst(), false) }
      if closed {
        pools[key]!.open -= 1
        return (nil, false)
      }
      pools[key]!.idle.append(connection)
      return (nil, true)
    }
    if let waiter {
      waiter.resume(returning: connection)
    } else if !kept {
      connection.closeInBackground()
    }
  }

  /// Closes a connection that failed; a waiting request opens one in its place.
  private func drop(_ connection: PostgresConnection, on loop: any EventLoop) {
    if !connection.isClosed { connection.closeInBackground() }
    release(on: loop)
  }

  /// One connection fewer is open on `loop`.
  private func release(on loop: any EventLoop) {
    let key = ObjectIdentifier(loop)
    let waiter = lock.withLock { () -> CheckedContinuation<PostgresConnection?, Never>? in
      pools[key]!.open -= 1
      return pools[key]!.waiting.isEmpty ? nil : pools[key]!.waiting.removeFirst()
    }
    waiter?.resume(returning: nil)
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
      await rollBack(logger: logger)
      throw error
    }
    try await query("COMMIT", logger: logger)
    return value
  }

  /// ROLLBACK after a failure, unless the connection is gone: then the server has rolled
  /// back, and a query written to a closed channel is dropped by the driver without an
  /// answer, so waiting for one would never end (a database that went away mid-insert hung
  /// `run --events` here). The ROLLBACK is given up once the connection closes.
  private func rollBack(logger: Logger) async {
    guard !isClosed else { return }
    let ended = Locked(false)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let once: @Sendable () -> Void = {
        if ended.withLock({ done -> Bool in
          defer { done = true }
          return !done
        }) {
          continuation.resume()
        }
      }
      closeFuture.whenComplete { _ in once() }
      Task {
        _ = try? await self.query("ROLLBACK", logger: logger)
        once()
      }
    }
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
