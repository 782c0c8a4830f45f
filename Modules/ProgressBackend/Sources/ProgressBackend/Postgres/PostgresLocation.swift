import Foundation
import Logging
import NIOCore
import PostgresNIO

/// A PostgreSQL database named by a `postgres://user[:password]@host[:port]/database` URL:
/// what `serve --database`, `run --events` and `report` accept. Its description never
/// shows the password.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
  public var host: String
  public var port: Int
  public var user: String
  public var password: String?
  public var database: String

  /// Whether `text` is meant as a PostgreSQL URL rather than a file path.
  public static func isURL(_ text: String) -> Bool {
    let lowered = text.lowercased()
    return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
  }

  /// Reads `text`; a URL that names no user, host or database, a port out of range, or a
  /// query parameter (TLS and options are not supported) is refused with a sentence.
  public init(url text: String) throws(PostgresFailure) {
    let redacted = Self.redact(text)
    func refuse(_ reason: String) -> PostgresFailure {
      PostgresFailure(location: redacted, reason: reason)
    }
    guard Self.isURL(text), let components = URLComponents(string: text) else {
      throw refuse("not a URL of the form postgres://user[:password]@host[:port]/database")
    }
    guard let user = components.user, !user.isEmpty else { throw refuse("the URL names no user") }
    guard let host = components.host, !host.isEmpty else { throw refuse("the URL names no host") }
    let database = String(components.path.drop(while: { $0 == "/" }))
    guard !database.isEmpty, !database.contains("/") else {
      throw refuse("the URL names no database (…@host:port/database)")
    }
    if let port = components.port, !(1...65_535).contains(port) {
      throw refuse("the port must be 1…65535")
    }
    if components.query != nil || components.fragment != nil {
      throw refuse("query parameters (TLS, options) are not supported; connect on a trusted network")
    }
    self.host = host
    self.port = components.port ?? 5432
    self.user = components.percentEncodedUser?.removingPercentEncoding ?? user
    self.password = components.percentEncodedPassword?.removingPercentEncoding
    self.database = database.removingPercentEncoding ?? database
  }

  public init(host: String, port: Int, user: String, password: String?, database: String) {
    self.host = host
    self.port = port
    self.user = user
    self.password = password
    self.database = database
  }

  /// The same server and account, another database.
  public func database(_ name: String) -> PostgresLocation {
    var copy = self
    copy.database = name
    return copy
  }

  /// The URL without its password.
  public var description: String {
    let hostPart = host.contains(":") ? "[\(host)]" : host
    return "postgres://\(user)@\(hostPart):\(port)/\(database)"
  }

  /// `text` with anything between `user:` and `@` left out: for refusals of URLs that
  /// did not parse.
  static func redact(_ text: String) -> String {
    guard let scheme = text.range(of: "://"), let at = text.range(of: "@", options: .backwards),
      scheme.upperBound <= at.lowerBound
    else { return text }
    let credentials = text[scheme.upperBound..<at.lowerBound]
    guard let colon = credentials.firstIndex(of: ":") else { return text }
    return String(text[..<colon]) + String(text[at.lowerBound...])
  }

  var configuration: PostgresConnection.Configuration {
    var configuration = PostgresConnection.Configuration(
      host: host, port: port, username: user, password: password, database: database, tls: .disable)
    // An address that never answers is a refusal after this, not a hang.
    configuration.options.connectTimeout = .seconds(10)
    return configuration
  }

  /// A new connection; every failure is a `PostgresFailure` naming this location. With
  /// `statementTimeout`, the server cancels any statement of the connection that runs longer
  /// (SQLSTATE 57014), so a stuck query frees its connection instead of holding it. With
  /// `eventLoop`, the connection's reads and writes run on that loop (by default, any of the
  /// driver's).
  public func connect(
    logger: Logger = PostgresLocation.quietLogger, statementTimeout: Duration? = nil,
    on eventLoop: (any EventLoop)? = nil
  ) async throws(PostgresFailure)
    -> PostgresConnection
  {
    var configuration = self.configuration
    if let statementTimeout {
      let milliseconds = max(
        1,
        statementTimeout.components.seconds * 1000
          + statementTimeout.components.attoseconds / 1_000_000_000_000_000)
      configuration.options.additionalStartupParameters.append(("statement_timeout", "\(milliseconds)"))
    }
    do {
      return try await PostgresConnection.connect(
        on: eventLoop ?? PostgresConnection.defaultEventLoopGroup.any(), configuration: configuration,
        id: Self.nextID.next(), logger: logger)
    } catch {
      throw PostgresFailure(location: description, error: error)
    }
  }

  /// Nothing from the driver's own logging: failures come back as errors.
  public static let quietLogger: Logger = {
    var logger = Logger(label: "wellflow.postgres")
    logger.logLevel = .critical
    return logger
  }()

  private static let nextID = ConnectionCounter()
}

/// Connection ids for the driver's logs.
private final class ConnectionCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var value = 0

  func next() -> Int {
    lock.withLock {
      value += 1
      return value
    }
  }
}

/// Why a PostgreSQL database could not be used: one line naming the URL without its
/// password and saying what went wrong (the server's own message when it sent one).
public struct PostgresFailure: Error, Sendable, Equatable, CustomStringConvertible {
  public var location: String
  public var reason: String
  /// The server's SQLSTATE, when the server refused a statement.
  public var sqlState: String?

  public init(location: String, reason: String, sqlState: String? = nil) {
    self.location = location
    self.reason = reason
    self.sqlState = sqlState
  }

  public init(location: String, error: any Error) {
    self.init(location: location, reason: Self.reason(error), sqlState: Self.sqlState(error))
  }

  public var description: String { "cannot use \(location): \(reason)" }

  /// The server's SQLSTATE, when the server refused.
  public static func sqlState(_ error: any Error) -> String? {
    (error as? PostgresFailure)?.sqlState ?? (error as? PSQLError)?.serverInfo?[.sqlState]
  }

  /// What went wrong, in one line: the driver describes its errors only in a generic
  /// sentence (so that no query text leaks), so the parts are picked here.
  static func reason(_ error: any Error) -> String {
    if let failure = error as? PostgresFailure { return failure.reason }
    guard let error = error as? PSQLError else { return oneLine("\(error)") }
    if let message = error.serverInfo?[.message] {
      return oneLine(message)
    }
    switch error.code {
    case .connectionError:
      if let underlying = error.underlying { return oneLine("the connection failed: \(underlying)") }
      return "the connection failed"
    case .serverClosedConnection, .uncleanShutdown:
      return "the server closed the connection"
    case .clientClosedConnection:
      return "the connection was closed"
    case .authMechanismRequiresPassword:
      return "the server asks for a password and the URL has none"
    case .sslUnsupported:
      return "the server asks for TLS, which is not supported"
    default:
      return oneLine("\(error.code)")
    }
  }

  private static func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).joined(separator: " ")
  }
}
