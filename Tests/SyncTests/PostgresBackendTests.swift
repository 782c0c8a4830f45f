import Foundation
import PostgresNIO
import ProgressBackend
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Several servers on one database act as one server, with SQLite and with PostgreSQL:
/// rows, idempotency keys and the schema are the database's, not a process's.
@Suite struct SharedDatabaseTests {
  static func start(_ database: BackendDatabase) async throws -> TestBackend {
    var configuration = ProgressServer.Configuration(apiKey: apiKey, jwtSecret: jwtSecret)
    configuration.database = database
    let server = try ProgressServer(configuration: configuration)
    return TestBackend(server: server, url: try await server.start())
  }

  @Test(arguments: TestStore.available)
  func aRowWrittenThroughOneServerIsReadThroughAnother(store: TestStore) async throws {
    let database = try await store.freshDatabase()
    let first = try await Self.start(database)
    let second = try await Self.start(database)
    defer { Task { await first.stop() } }
    defer { Task { await second.stop() } }
    let (status, created) = try await first.raw(
      "POST", "/api/v1/progress",
      body: String(decoding: progressBody(quantity: 6, notes: "n"), as: UTF8.self),
      headers: first.headers())
    #expect(status == 201)
    let id = try #require((created["data"] as? [String: Any])?["id"] as? String)
    let (readStatus, read) = try await second.raw("GET", "/api/v1/progress/\(id)", headers: second.headers())
    #expect(readStatus == 200)
    #expect((read["data"] as? [String: Any])?["quantity"] as? Double == 6)
    let (_, list) = try await second.raw("GET", "/api/v1/progress", headers: second.headers())
    #expect((list["data"] as? [String: Any])?["total"] as? Int == 1)
    // Another user sees nothing of it through either.
    let (_, other) = try await second.raw("GET", "/api/v1/progress", headers: second.headers(user: "bob"))
    #expect((other["data"] as? [String: Any])?["total"] as? Int == 0)
  }

  /// Each key is sent to both servers at once: one row per key, and both answers name it.
  @Test(arguments: TestStore.available)
  func oneIdempotencyKeySentToTwoServersAtOnceMakesOneRow(store: TestStore) async throws {
    let database = try await store.freshDatabase()
    let first = try await Self.start(database)
    let second = try await Self.start(database)
    defer { Task { await first.stop() } }
    defer { Task { await second.stop() } }
    let keys = (1...20).map { "key-\($0)" }
    let body = String(decoding: progressBody(quantity: 4), as: UTF8.self)
    for key in keys {
      async let a = first.raw(
        "POST", "/api/v1/progress", body: body,
        headers: first.headers().merging(["Idempotency-Key": key]) { $1 })
      async let b = second.raw(
        "POST", "/api/v1/progress", body: body,
        headers: second.headers().merging(["Idempotency-Key": key]) { $1 })
      let (one, two) = try await (a, b)
      #expect(one.status == 201, "\(key): \(one.json)")
      #expect(two.status == 201, "\(key): \(two.json)")
      let ids = [one.json, two.json].map { ($0["data"] as? [String: Any])?["id"] as? String }
      #expect(ids[0] != nil && ids[0] == ids[1], "\(key)")
    }
    let (_, list) = try await first.raw("GET", "/api/v1/progress?limit=100", headers: first.headers())
    #expect((list["data"] as? [String: Any])?["total"] as? Int == keys.count)
  }

  /// Replays racing: eight sends of one key at once, four to each server, single calls and
  /// batches: one row per key, and every answer is the first one.
  @Test(arguments: TestStore.available)
  func concurrentReplaysOfOneKeyAllGetTheFirstAnswer(store: TestStore) async throws {
    let database = try await store.freshDatabase()
    let servers = [try await Self.start(database), try await Self.start(database)]
    defer { for server in servers { Task { await server.stop() } } }
    for round in 0..<3 {
      let key = "race-\(round)"
      let body = String(decoding: progressBody(quantity: 5, entryID: "entry-\(round)"), as: UTF8.self)
      let batch = #"{"items": [{"idempotency_key": "batch-\#(round)", "method": "POST", "body": \#(body)}]}"#
      let answers = try await withThrowingTaskGroup(of: (Int, String?, Bool).self) { group in
        for send in 0..<8 {
          let server = servers[send % 2]
          let isBatch = send % 4 >= 2
          group.addTask {
            if isBatch {
              let (status, json) = try await server.raw(
                "POST", "/api/v1/progress/batch", body: batch, headers: server.headers())
              let result = ((json["data"] as? [String: Any])?["results"] as? [[String: Any]])?.first
              return (
                result?["status"] as? Int ?? status, (result?["data"] as? [String: Any])?["id"] as? String,
                true
              )
            }
            let (status, json) = try await server.raw(
              "POST", "/api/v1/progress", body: body,
              headers: server.headers().merging(["Idempotency-Key": key]) { $1 })
            return (status, (json["data"] as? [String: Any])?["id"] as? String, false)
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      // The key and the batch's key race for one entry: one makes the row (201), the other
      // finds it (200); each key's sends all answer as its first did.
      for isBatch in [false, true] {
        let mine = answers.filter { $0.2 == isBatch }
        #expect(Set(mine.map(\.0)).count == 1, "round \(round): \(answers)")
      }
      #expect(Set(answers.map(\.0)) == [200, 201], "round \(round): \(answers)")
      #expect(Set(answers.map(\.1)).count == 1 && answers[0].1 != nil, "round \(round): \(answers)")
    }
    let (_, list) = try await servers[0].raw(
      "GET", "/api/v1/progress?limit=100", headers: servers[0].headers())
    #expect((list["data"] as? [String: Any])?["total"] as? Int == 3)
  }

  @Test(.enabled(if: TestPostgres.enabled, Comment(rawValue: TestPostgres.howToRun)))
  func serversStartingTogetherMigrateTheSchemaOnce() async throws {
    let location = try await TestPostgres.freshDatabase()
    let backends = try await withThrowingTaskGroup(of: TestBackend.self) { group in
      for _ in 0..<4 { group.addTask { try await Self.start(.postgres(location)) } }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    defer { for backend in backends { Task { await backend.stop() } } }
    #expect(backends.count == 4)
    #expect(
      try await TestPostgres.column(
        "SELECT version::text FROM wellflow_schema ORDER BY version", on: location) == [
          "1", "2", "3", "4", "5",
        ])
    let (status, _) = try await backends[3].raw(
      "POST", "/api/v1/progress", body: String(decoding: progressBody(), as: UTF8.self),
      headers: backends[3].headers())
    #expect(status == 201)
  }

  /// The database drops the server's connections (a restart, a failover): what was written
  /// stays, and the server answers again once it has connected anew.
  @Test(.enabled(if: TestPostgres.enabled, Comment(rawValue: TestPostgres.howToRun)))
  func aDatabaseThatDropsTheConnectionsLosesNothingAndIsUsedAgain() async throws {
    let location = try await TestPostgres.freshDatabase()
    let backend = try await Self.start(.postgres(location))
    defer { Task { await backend.stop() } }
    let body = String(decoding: progressBody(), as: UTF8.self)
    for _ in 0..<3 {
      #expect(
        try await backend.raw("POST", "/api/v1/progress", body: body, headers: backend.headers()).status
          == 201)
    }
    try await TestPostgres.execute(
      [
        """
        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = '\(location.database)' AND pid <> pg_backend_pid()
        """
      ], on: try TestPostgres.server())
    // A request on a connection that was cut is a 500; each one drops that connection.
    var statuses: [Int] = []
    for _ in 0..<10 {
      let status = try await backend.raw("POST", "/api/v1/progress", body: body, headers: backend.headers())
        .status
      statuses.append(status)
      if status == 201 { break }
    }
    #expect(statuses.last == 201, "\(statuses)")
    #expect(statuses.allSatisfy { $0 == 201 || $0 == 500 }, "\(statuses)")
    let (_, list) = try await backend.raw("GET", "/api/v1/progress", headers: backend.headers())
    #expect((list["data"] as? [String: Any])?["total"] as? Int == 4)
  }
}

/// A PostgreSQL URL that cannot be used is one line that names it without its password.
@Suite struct PostgresLocationTests {
  @Test func aURLThatNamesNoUserHostOrDatabaseIsRefusedWithoutItsPassword() {
    let cases: [(String, String)] = [
      (
        "postgres://ann:s3cret@db.example",
        "cannot use postgres://ann@db.example: the URL names no database (…@host:port/database)"
      ),
      ("postgres://db.example/app", "cannot use postgres://db.example/app: the URL names no user"),
      (
        "postgresql://ann:s3cret@db.example:5433/app?sslmode=require",
        "cannot use postgresql://ann@db.example:5433/app?sslmode=require: query parameters (TLS, options) are not supported; connect on a trusted network"
      ),
      (
        "postgres://ann:s3cret@db.example/app/more",
        "cannot use postgres://ann@db.example/app/more: the URL names no database (…@host:port/database)"
      ),
    ]
    for (url, message) in cases {
      #expect(throws: PostgresFailure.self) { try PostgresLocation(url: url) }
      do {
        _ = try PostgresLocation(url: url)
      } catch {
        #expect(error.description == message)
        #expect(!error.description.contains("s3cret"))
      }
    }
  }

  @Test func aURLIsReadWithItsDefaultsAndDescribedWithoutItsPassword() throws {
    let location = try PostgresLocation(url: "postgres://ann:s%40cret@127.0.0.1/app")
    #expect(
      location
        == PostgresLocation(host: "127.0.0.1", port: 5432, user: "ann", password: "s@cret", database: "app"))
    #expect(location.description == "postgres://ann@127.0.0.1:5432/app")
    #expect(try BackendDatabase(argument: "backend.sqlite") == .sqlite(path: "backend.sqlite"))
    #expect(
      try BackendDatabase(argument: "postgres://ann@h/app")
        == .postgres(location.database("app").with(host: "h", password: nil)))
  }

  @Test func aRefusedConnectionIsAnErrorAtStartNamingTheURLWithoutItsPassword() async throws {
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    var configuration = ProgressServer.Configuration(apiKey: apiKey, jwtSecret: jwtSecret)
    configuration.database = try BackendDatabase(argument: "postgres://ann:s3cret@127.0.0.1:1/app")
    let server = try ProgressServer(configuration: configuration)
    do {
      try await server.start()
      Issue.record("the server started")
    } catch let failure as PostgresFailure {
      #expect(
        failure.description.hasPrefix("cannot use postgres://ann@127.0.0.1:1/app: the connection failed"))
      #expect(!failure.description.contains("s3cret"))
      #expect(!failure.description.contains("\n"))
    }
  }

  @Test(.enabled(if: TestPostgres.enabled, Comment(rawValue: TestPostgres.howToRun)))
  func aMissingDatabaseIsAnErrorAtStartWithTheServersSentence() async throws {
    let location = try TestPostgres.server().database("wellflow_missing_database")
    var configuration = ProgressServer.Configuration(apiKey: apiKey, jwtSecret: jwtSecret)
    configuration.database = .postgres(location)
    let server = try ProgressServer(configuration: configuration)
    await #expect(
      throws: PostgresFailure(
        location: location.description, reason: #"database "wellflow_missing_database" does not exist"#,
        sqlState: "3D000")
    ) {
      try await server.start()
    }
  }

  /// A statement that runs past the connection's limit is cancelled by the server (how
  /// `serve`'s connections bound every query, 30 s by default), and the connection answers
  /// the next one.
  @Test(.enabled(if: TestPostgres.enabled, Comment(rawValue: TestPostgres.howToRun)))
  func aStatementPastItsTimeoutIsCancelledAndTheConnectionStaysUsable() async throws {
    let connection = try await TestPostgres.server().connect(statementTimeout: .milliseconds(50))
    defer { connection.closeInBackground() }
    let logger = PostgresLocation.quietLogger
    do {
      // The server's cancellation arrives with the rows.
      for try await _ in try await connection.query("SELECT pg_sleep(60)", logger: logger) {}
      Issue.record("pg_sleep(60) ran to its end")
    } catch {
      #expect(PostgresFailure.sqlState(error) == "57014")
    }
    var answers: [Int] = []
    for try await value in try await connection.query("SELECT 1", logger: logger).decode(Int.self) {
      answers.append(value)
    }
    #expect(answers == [1])
  }
}

extension PostgresLocation {
  fileprivate func with(host: String, password: String?) -> PostgresLocation {
    PostgresLocation(host: host, port: port, user: user, password: password, database: database)
  }
}
