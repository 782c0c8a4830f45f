import Foundation
import PostgresNIO
import ProgressBackend
import Testing

/// The PostgreSQL server the tests use, named by WELLFLOW_TEST_POSTGRES_URL (a user that may
/// create databases); each test gets a database of its own. Without it the tests are
/// skipped and say how to run them; CI starts a server and sets WELLFLOW_REQUIRE_POSTGRES=1,
/// which turns a missing one into a failure.
enum TestPostgres {
  static let environment = ProcessInfo.processInfo.environment
  static let url = environment["WELLFLOW_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
  static let required = environment["WELLFLOW_REQUIRE_POSTGRES"] == "1"
  static let enabled = url != nil || required
  static let howToRun =
    "no PostgreSQL server for the tests: set WELLFLOW_TEST_POSTGRES_URL=postgres://USER@127.0.0.1:PORT/postgres "
    + "(a user that may create databases); .ci/run starts one and requires it"

  /// The server's location from the environment (the test fails when CI has none).
  static func server() throws -> PostgresLocation {
    try PostgresLocation(url: try #require(url, Comment(rawValue: howToRun)))
  }

  /// A new, empty database on the test server.
  static func freshDatabase() async throws -> PostgresLocation {
    let server = try server()
    let name = "wellflow_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    try await execute(["CREATE DATABASE \(name)"], on: server)
    return server.database(name)
  }

  static func execute(_ statements: [String], on location: PostgresLocation) async throws {
    let connection = try await location.connect()
    defer { connection.closeInBackground() }
    for statement in statements {
      try await connection.query(PostgresQuery(unsafeSQL: statement), logger: PostgresLocation.quietLogger)
    }
  }

  /// The first column of every row of `sql`, as text.
  static func column(_ sql: String, on location: PostgresLocation) async throws -> [String?] {
    let connection = try await location.connect()
    defer { connection.closeInBackground() }
    var values: [String?] = []
    for try await value in try await connection.query(
      PostgresQuery(unsafeSQL: sql), logger: PostgresLocation.quietLogger
    ).decode(String?.self) {
      values.append(value)
    }
    return values
  }
}

/// Which store a parameterised test runs against.
enum TestStore: String, CaseIterable, CustomTestStringConvertible, Sendable {
  case sqlite, postgres

  var testDescription: String { rawValue }

  /// Stores this run can use: PostgreSQL only with a server (or in CI, where its absence fails).
  static let available: [TestStore] = TestPostgres.enabled ? [.sqlite, .postgres] : [.sqlite]

  /// The store of the backends tests start without naming a file: memory, or a new
  /// PostgreSQL database each with WELLFLOW_TEST_STORE=postgres (so the contract and
  /// hardening suites run against PostgreSQL too: `.ci/run` runs them both ways).
  static let chosen: TestStore =
    TestPostgres.environment["WELLFLOW_TEST_STORE"] == "postgres" ? .postgres : .sqlite

  /// An empty database: in memory for SQLite.
  func emptyDatabase() async throws -> BackendDatabase {
    self == .sqlite ? .sqlite(path: nil) : try await freshDatabase()
  }

  /// A new empty database of this kind, shared by the servers a test starts on it.
  func freshDatabase() async throws -> BackendDatabase {
    switch self {
    case .sqlite:
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "wellflow-store-\(UUID())")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      return .sqlite(path: directory.appendingPathComponent("backend.sqlite").path)
    case .postgres:
      return .postgres(try await TestPostgres.freshDatabase())
    }
  }
}
