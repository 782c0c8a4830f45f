import Experiments
import FlowKit
import Foundation
import PostgresNIO
import ProgressBackend
import Testing
import WellflowCore

/// The PostgreSQL server these tests use (WELLFLOW_TEST_POSTGRES_URL, a user that may
/// create databases); each test makes a database of its own. Without it they are skipped
/// and say how to run them; CI sets WELLFLOW_REQUIRE_POSTGRES=1 and starts a server.
enum PostgresForTests {
  static let url = ProcessInfo.processInfo.environment["WELLFLOW_TEST_POSTGRES_URL"].flatMap {
    $0.isEmpty ? nil : $0
  }
  static let enabled = url != nil || ProcessInfo.processInfo.environment["WELLFLOW_REQUIRE_POSTGRES"] == "1"
  static let howToRun = Comment(
    rawValue:
      "no PostgreSQL server for the tests: set WELLFLOW_TEST_POSTGRES_URL=postgres://USER@127.0.0.1:PORT/postgres "
      + "(a user that may create databases); .ci/run starts one and requires it")

  static func freshDatabase() async throws -> PostgresLocation {
    let server = try PostgresLocation(url: try #require(url, howToRun))
    let name = "wellflow_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    let connection = try await server.connect()
    defer { connection.closeInBackground() }
    try await connection.query(
      PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: PostgresLocation.quietLogger)
    return server.database(name)
  }

  static func count(_ sql: String, on location: PostgresLocation) async throws -> Int {
    let connection = try await location.connect()
    defer { connection.closeInBackground() }
    for try await value in try await connection.query(
      PostgresQuery(unsafeSQL: sql), logger: PostgresLocation.quietLogger
    )
    .decode(Int.self) {
      return value
    }
    return 0
  }
}

/// `run --events postgres://…` and `report postgres://…`: the events table and a report
/// equal to the file's.
@MainActor
@Suite struct EventsInPostgresTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static let script = root.appendingPathComponent("Apps/Wellflow/Scripts/experiment-checkin.yaml").path
  static let experiments = root.appendingPathComponent("Apps/Wellflow/Experiments/checkin-length.yaml").path

  func report(_ events: String, experiments: String? = nil) async -> RunOutcome {
    let out = Locked<[String]>([])
    let err = Locked<[String]>([])
    var configuration = ReportConfiguration(eventsPath: events, experiment: "checkin-length")
    configuration.format = .json
    configuration.experimentsPath = experiments
    let code = await ReportFromPostgres.execute(
      configuration,
      console: Console(
        out: { text in out.withLock { $0.append(text) } }, err: { text in err.withLock { $0.append(text) } }))
    return RunOutcome(code: code, out: out.current, err: err.current)
  }

  @Test(.enabled(if: PostgresForTests.enabled, PostgresForTests.howToRun))
  func theReportFromPostgresIsTheReportFromTheFile() async throws {
    let workspace = Workspace()
    let file = workspace.path("events.ndjson")
    let fromFile = await wellflowRun([Self.script]) {
      $0.experimentsPath = Self.experiments
      $0.users = 40
      $0.jobs = 1
      $0.eventsPath = file
      $0.quiet = true
    }
    #expect(fromFile.code == 0, "\(fromFile.errText)")
    let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").count
    // The same run, its events to PostgreSQL: all of them arrive.
    let location = try await PostgresForTests.freshDatabase()
    let toDatabase = await wellflowRun([Self.script]) {
      $0.experimentsPath = Self.experiments
      $0.users = 40
      $0.jobs = 1
      $0.eventsPath = "\(location)"
      $0.quiet = true
    }
    #expect(toDatabase.code == 0, "\(toDatabase.errText)")
    #expect(try await PostgresForTests.count("SELECT COUNT(*) FROM events", on: location) == lines)
    // The file's own events in another database: the reports are equal, with and without
    // the experiment file.
    let copy = try await PostgresForTests.freshDatabase()
    try await PostgresEvents.prepare(copy)
    #expect(try await PostgresEvents.insert(ndjsonFile: file, into: copy) == lines)
    for experiments in [nil, Self.experiments] {
      let expected = await report(file, experiments: experiments)
      let actual = await report("\(copy)", experiments: experiments)
      #expect(expected.code == 0, "\(expected.errText)")
      #expect(actual.code == 0, "\(actual.errText)")
      #expect(actual.outText == expected.outText)
      #expect(actual.outText.contains(#""experiment" : "checkin-length""#))
    }
    let fromRun = await report("\(location)", experiments: Self.experiments)
    #expect(fromRun.outText == (await report(file, experiments: Self.experiments)).outText)
  }

  /// CUPED's covariate comes from events before exposure: the report from PostgreSQL reads
  /// them as the file's does.
  @Test(.enabled(if: PostgresForTests.enabled, PostgresForTests.howToRun))
  func aCovariateBeforeExposureCountsFromPostgresToo() async throws {
    let workspace = Workspace()
    let lines = (0..<20).flatMap { index -> [String] in
      let stamp = #""ts":"2026-01-05T09:00:0\#(index % 10)Z","user":"u\#(index)""#
      let variation = index % 2 == 0 ? "full" : "quick"
      return [
        #"{\#(stamp),"event":"mood_saved","flow":"checkin","score":\#(index % 4 + 1)}"#,
        #"{\#(stamp),"event":"experiment_viewed","flow":"checkin","experiment":"checkin-length","variation":"\#(variation)"}"#,
        #"{\#(stamp),"event":"mood_saved","flow":"checkin","score":\#(index % 4 + index % 2 + 2)}"#,
      ]
    }
    let file = workspace.write("events.ndjson", lines.joined(separator: "\n") + "\n")
    let experiments = workspace.write(
      "x.yaml",
      """
      experiments:
        - key: checkin-length
          flow: checkin
          variations: [full, quick]
          covariate: {event: mood_saved, value: score}
          metrics:
            - {name: mood score, event: mood_saved, value: score}
      """)
    let database = try await PostgresForTests.freshDatabase()
    try await PostgresEvents.prepare(database)
    #expect(try await PostgresEvents.insert(ndjsonFile: file, into: database) == lines.count)
    let expected = await report(file, experiments: experiments)
    let actual = await report("\(database)", experiments: experiments)
    #expect(expected.code == 0, "\(expected.errText)")
    #expect(actual.outText == expected.outText)
    let decoded = try JSONDecoder().decode(ExperimentReport.self, from: Data(actual.outText.utf8))
    #expect(decoded.cuped?.usersWithCovariate == 20)
  }

  @Test func aDatabaseThatCannotBeUsedIsOneLineWithoutThePasswordAndNothingRuns() async throws {
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    let url = "postgres://ann:s3cret@127.0.0.1:1/app"
    let run = await wellflowRun([Self.script]) { $0.eventsPath = url }
    #expect(run.code == 2)
    #expect(run.out.isEmpty)
    #expect(run.err.count == 1)
    #expect(run.errText.hasPrefix("error: cannot use postgres://ann@127.0.0.1:1/app: the connection failed"))
    #expect(!run.errText.contains("s3cret"))
    let report = await report(url)
    #expect(report.code == 2)
    #expect(report.err.count == 1)
    #expect(
      report.errText.hasPrefix("error: cannot use postgres://ann@127.0.0.1:1/app: the connection failed"))
    let bad = await self.report("postgres://ann:s3cret@127.0.0.1/")
    #expect(
      bad.err == [
        "error: cannot use postgres://ann@127.0.0.1/: the URL names no database (…@host:port/database)"
      ])
  }

  @Test func serveWithADatabaseThatCannotBeUsedExits2WithOneLine() throws {
    let process = Process()
    process.executableURL = try PreviewProcess.executable()
    process.arguments = ["serve", "--port", "0", "--database", "postgres://ann:s3cret@127.0.0.1:1/app"]
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 2)
    let lines = text.split(separator: "\n").filter { !$0.hasPrefix("warning:") }
    #expect(lines.count == 1, "\(text)")
    #expect(
      lines.first?.hasPrefix(
        "wellflow serve: cannot use postgres://ann@127.0.0.1:1/app: the connection failed") == true, "\(text)"
    )
    #expect(!text.contains("s3cret"))
  }
}
