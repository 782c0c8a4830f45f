import Experiments
import FlowKit
import Foundation
import PostgresNIO
import ProgressBackend
import ScriptTestSupport
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

  static func execute(_ sql: String, on location: PostgresLocation) async throws {
    let connection = try await location.connect()
    defer { connection.closeInBackground() }
    try await connection.query(PostgresQuery(unsafeSQL: sql), logger: PostgresLocation.quietLogger)
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

  /// The check-in experiment's script for `users` users, quietly, in one job, its events to
  /// `events` (a file or a database URL).
  static func runCheckIn(users: Int, events: String) async -> RunOutcome {
    await wellflowRun([script]) {
      $0.experimentsPath = experiments
      $0.users = users
      $0.jobs = 1
      $0.eventsPath = events
      $0.quiet = true
    }
  }

  func report(
    _ events: String, experiments: String? = nil, experiment: String = "checkin-length",
    format: ReportConfiguration.Format = .json
  ) async -> RunOutcome {
    let out = Locked<[String]>([])
    let err = Locked<[String]>([])
    var configuration = ReportConfiguration(eventsPath: events, experiment: experiment)
    configuration.format = format
    configuration.experimentsPath = experiments
    let code = await ReportFromPostgres.execute(
      configuration,
      console: Console(
        out: { text in out.withLock { $0.append(text) } }, err: { text in err.withLock { $0.append(text) } }))
    return RunOutcome(code: code, out: out.current, err: err.current)
  }

  /// A server that holds no such database: `run --events` and `report` say so in one line,
  /// exit 2, and `run` runs nothing.
  @Test(.enabled(if: PostgresForTests.enabled, PostgresForTests.howToRun))
  func aMissingDatabaseIsOneLineAndNothingRuns() async throws {
    let server = try PostgresLocation(url: try #require(PostgresForTests.url, PostgresForTests.howToRun))
    let missing = server.database("wellflow_missing_" + UUID().uuidString.prefix(8).lowercased())
    let expected = "error: cannot use \(missing.description): database \"\(missing.database)\" does not exist"
    let run = await wellflowRun([Self.script]) { $0.eventsPath = "\(missing)" }
    #expect(run.code == 2)
    #expect(run.out.isEmpty, "no script ran")
    #expect(run.err == [expected], "\(run.errText)")
    let report = await report("\(missing)")
    #expect(report.code == 2)
    #expect(report.err == [expected], "\(report.errText)")
  }

  /// The database goes away in the middle of the report's answers: a proxy cuts the
  /// connection halfway through the bytes a whole report receives through it. The report is
  /// one line naming the URL without its password (exit 2), not a hang or a trap; once the
  /// database answers again, the report is the whole one.
  @Test(.enabled(if: PostgresForTests.enabled, PostgresForTests.howToRun))
  func aDatabaseLostInTheMiddleOfTheReportIsOneLineAndTheNextReportIsWhole() async throws {
    let workspace = Workspace()
    let file = workspace.path("events.ndjson")
    let made = await Self.runCheckIn(users: 20, events: file)
    #expect(made.code == 0, "\(made.errText)")
    let location = try await Self.database(with: file)
    func through(_ proxy: CuttingProxy) -> String {
      "postgres://\(location.user):s3cret@127.0.0.1:\(proxy.port)/\(location.database)"
    }
    // A proxy that only counts: the bytes of a whole report.
    let counting = try CuttingProxy(to: location.port, cutAfter: .max)
    let whole = await report(through(counting), experiments: Self.experiments)
    #expect(whole.code == 0, "\(whole.errText)")
    let answer = counting.largestAnswer
    #expect(answer > 1_000, "\(answer) bytes")

    let cutting = try CuttingProxy(to: location.port, cutAfter: answer / 2)
    let lost = await report(through(cutting), experiments: Self.experiments)
    #expect(lost.code == 2)
    #expect(lost.out.isEmpty)
    #expect(lost.err.count == 1, "\(lost.errText)")
    #expect(
      lost.errText.hasPrefix("error: cannot use postgres://\(location.user)@127.0.0.1:\(cutting.port)/"),
      "\(lost.errText)")
    #expect(!lost.errText.contains("s3cret"))

    let again = await report(through(counting), experiments: Self.experiments)
    #expect(again.code == 0, "\(again.errText)")
    #expect(again.outText == whole.outText)
  }

  /// The database goes away while a run's events go in: the connection that inserts them is
  /// cut after its 100th row, inside the transaction (a trigger ends its own backend, as a
  /// restart or failover would). The run says so in one line without the password and keeps
  /// the events in a file it names; the table holds none of them. Once the database is
  /// whole again, running again adds the run's events once.
  @Test(.enabled(if: PostgresForTests.enabled, PostgresForTests.howToRun))
  func aDatabaseLostWhileEventsGoInKeepsThemAndARerunAddsThemOnce() async throws {
    let location = try await PostgresForTests.freshDatabase()
    try await PostgresEvents.prepare(location)
    try await PostgresForTests.execute(
      """
      CREATE FUNCTION cut_after_100() RETURNS trigger AS $$
      BEGIN
        IF (SELECT count(*) FROM events) >= 100 THEN PERFORM pg_terminate_backend(pg_backend_pid()); END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql
      """, on: location)
    try await PostgresForTests.execute(
      "CREATE TRIGGER cut BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION cut_after_100()", on: location
    )
    let url = "\(location)"
    func run() async -> RunOutcome {
      await Self.runCheckIn(users: 20, events: url)
    }
    let lost = await run()
    #expect(lost.code == 2)
    #expect(lost.err.count == 1, "\(lost.errText)")
    #expect(lost.errText.hasPrefix("error: cannot use \(location.description)"), "\(lost.errText)")
    let marker = "the run's events are kept in "
    let kept = try #require(
      lost.errText.components(separatedBy: marker).last?.trimmingCharacters(in: .whitespacesAndNewlines))
    defer { try? FileManager.default.removeItem(atPath: kept) }
    let lines = try String(contentsOfFile: kept, encoding: .utf8).split(separator: "\n").count
    #expect(lines > 100, "more events than the cut lets in")
    #expect(try await PostgresForTests.count("SELECT COUNT(*) FROM events", on: location) == 0)

    try await PostgresForTests.execute("DROP TRIGGER cut ON events", on: location)
    let again = await run()
    #expect(again.code == 0, "\(again.errText)")
    #expect(try await PostgresForTests.count("SELECT COUNT(*) FROM events", on: location) == lines)
  }

  @Test(.enabled(if: PostgresForTests.enabled, PostgresForTests.howToRun))
  func theReportFromPostgresIsTheReportFromTheFile() async throws {
    let workspace = Workspace()
    let file = workspace.path("events.ndjson")
    let fromFile = await Self.runCheckIn(users: 40, events: file)
    #expect(fromFile.code == 0, "\(fromFile.errText)")
    let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").count
    // The same run, its events to PostgreSQL: all of them arrive.
    let location = try await PostgresForTests.freshDatabase()
    let toDatabase = await Self.runCheckIn(users: 40, events: "\(location)")
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

  /// The file's events in a database of their own.
  static func database(with file: String) async throws -> PostgresLocation {
    let database = try await PostgresForTests.freshDatabase()
    try await PostgresEvents.prepare(database)
    try await PostgresEvents.insert(ndjsonFile: file, into: database)
    return database
  }

  /// The same report, as JSON and as text, from the file and from the database.
  func expectSameReports(
    _ file: String, _ database: PostgresLocation, experiments: String?, experiment: String = "checkin-length",
    sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    for format in [ReportConfiguration.Format.json, .text] {
      let expected = await report(file, experiments: experiments, experiment: experiment, format: format)
      let actual = await report(
        "\(database)", experiments: experiments, experiment: experiment, format: format)
      #expect(expected.code == 0, "\(expected.errText)", sourceLocation: sourceLocation)
      #expect(actual.code == 0, "\(actual.errText)", sourceLocation: sourceLocation)
      #expect(actual.err == expected.err, sourceLocation: sourceLocation)
      #expect(actual.outText == expected.outText, sourceLocation: sourceLocation)
    }
  }

  /// Every part of the report from SQL: each metric kind (an event with a screen, an event
  /// of a flow, returned the next day, a mean of fractional values whose sums depend on the
  /// order they are added in), every way a funnel's first run ends, CUPED's covariate
  /// before exposure, and the warnings: users in two variations and in two runs, an
  /// exposure without a variation, variations ordered by `variation_id`, other experiments.
  @Test(.enabled(if: PostgresForTests.enabled, PostgresForTests.howToRun))
  func everyMetricFunnelCovariateAndWarningIsTheFilesFromPostgres() async throws {
    let workspace = Workspace()
    var lines: [String] = []
    func add(_ user: String, _ time: String, _ event: String, _ more: String = "") {
      lines.append(eventLine(user, time, event, more))
    }
    func expose(
      _ user: String, _ time: String, _ variation: String?, id: String? = nil, flow: String = "checkin"
    ) {
      var more = #","flow":"\#(flow)","experiment":"checkin-length","source":"script""#
      if let variation { more += #","variation":"\#(variation)""# }
      if let id { more += #","variation_id":\#(id)"# }
      add(user, time, "experiment_viewed", more)
    }
    let checkin = #","flow":"checkin""#
    func screen(_ name: String) -> String { #","flow":"checkin","screen":"checkin.\#(name)""# }
    // Before anyone's exposure: covariates, an unexposed user's, another experiment.
    add("u8", "07:00:00", "mood_saved", #","flow":"checkin","score":0.1"#)
    add("u8", "07:00:01", "mood_saved", #","flow":"checkin","score":"0.2""#)
    add("u1", "07:00:02", "mood_saved", #","score":2.7"#)
    add("u12", "07:00:03", "mood_saved", #","score":5"#)
    add("u1", "07:00:04", "experiment_viewed", #","experiment":"other","variation":"x""#)
    for (index, user) in ["u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", "u9", "u10", "u11"].enumerated() {
      let variation: String? = user == "u9" ? nil : ["quick", "full", "mini"][index % 3]
      let id = variation.map { ["full": "0", "quick": "1", "mini": #""2""#][$0]! }
      expose(user, "08:00:\(10 + index)", variation, id: index < 3 ? nil : id)
    }
    // u1 completes and comes back the next day.
    add("u1", "08:01:00", "flow_started", checkin)
    add("u1", "08:01:01", "screen_viewed", screen("sensing"))
    add("u1", "08:01:02", "screen_viewed", screen("acting"))
    add("u1", "08:01:03", "mood_saved", #","flow":"checkin","score":0.7"#)
    add("u1", "08:01:04", "flow_completed", checkin)
    add("u1", "08:01:05", "mood_saved", #","flow":"checkin","score":0.1"#)
    lines.append(#"{"ts":"2026-01-06T09:00:00Z","user":"u1","event":"app_opened"}"#)
    // u2 cancels, u3 is terminated, u4 starts again (abandoned), u5 stops without an end.
    add("u2", "08:02:00", "flow_started", checkin)
    add("u2", "08:02:01", "screen_viewed", screen("sensing"))
    add("u2", "08:02:02", "flow_cancelled", #","flow":"checkin","reason":"user""#)
    add("u2", "08:02:03", "flow_completed", checkin)
    add("u3", "08:03:00", "flow_started", checkin)
    add("u3", "08:03:01", "screen_viewed", screen("naming"))
    add("u3", "08:03:02", "flow_cancelled", #","flow":"checkin","reason":"terminated""#)
    add("u4", "08:04:00", "screen_viewed", screen("pet"))
    add("u4", "08:04:01", "flow_started", checkin)
    add("u4", "08:04:02", "screen_viewed", screen("pet"))
    add("u4", "08:04:03", "screen_viewed", #","flow":"checkin""#)
    add("u4", "08:04:04", "flow_started", checkin)
    add("u4", "08:04:05", "screen_viewed", screen("acting"))
    add("u4", "08:04:06", "flow_completed", checkin)
    add("u5", "08:05:00", "flow_started", #","flow":"onboarding""#)
    add("u5", "08:05:01", "flow_started", checkin)
    add("u5", "08:05:02", "screen_viewed", screen("shaping"))
    add("u5", "08:05:03", "mood_saved", #","flow":"checkin","score":1e-3"#)
    // u6 is shown another variation; u7 a second run, its stamps starting over.
    expose("u6", "08:06:00", "quick", id: "1")
    add("u6", "08:06:01", "flow_started", checkin)
    add("u6", "08:06:02", "flow_completed", checkin)
    add("u7", "08:07:00", "flow_started", checkin)
    expose("u7", "08:00:05", "quick", id: "1")
    add("u7", "08:00:06", "flow_started", checkin)
    add("u8", "08:08:00", "mood_saved", #","flow":"checkin","score":0.3"#)
    add("u8", "08:08:01", "mood_saved", #","flow":"checkin","score":0.3"#)
    add("u9", "08:09:00", "flow_started", checkin)
    add("u9", "08:09:01", "flow_cancelled", checkin)
    add("u10", "08:10:00", "mood_saved", #","flow":"onboarding","score":-0.25"#)
    lines.append(#"{"ts":"2026-01-06T23:59:59.999Z","user":"u10","event":"app_opened"}"#)
    lines.append(#"{"ts":"2026-01-07T00:00:00Z","user":"u11","event":"app_opened"}"#)
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
            - {name: reached the last screen, event: screen_viewed, screen: checkin.acting}
            - {name: saved in the check-in, event: mood_saved, flow: checkin}
            - returned_next_day
            - {name: mood score, event: mood_saved, value: score}
      """)
    let sequential = workspace.write(
      "s.yaml",
      """
      experiments:
        - key: checkin-length
          flow: checkin
          variations: [quick, full]
          sequential: true
          metrics:
            - {name: mood score, event: mood_saved, value: score}
      """)
    let database = try await Self.database(with: file)
    for experiments in [nil, experiments, sequential] {
      await expectSameReports(file, database, experiments: experiments)
    }
    let decoded = try JSONDecoder().decode(
      ExperimentReport.self, from: Data(await report("\(database)", experiments: experiments).outText.utf8))
    #expect(decoded.usersInSeveralVariations == 1)
    #expect(decoded.usersInSeveralRuns == 1)
    #expect(decoded.cuped?.usersWithCovariate == 2)
    #expect(decoded.variations.map(\.variation) == ["full", "quick", "mini", ""])
  }

  /// Stamps in the form `wellflow run` writes are read from their digits when they are
  /// written, others are parsed when the report reads them: with milliseconds and without, a UTC offset across midnight, and a second run
  /// whose stamps go back between the two forms count as in the file.
  @Test(.enabled(if: PostgresForTests.enabled, PostgresForTests.howToRun))
  func stampsOfEveryFormCountTheirDaysAndRunsAsInTheFile() async throws {
    let workspace = Workspace()
    func line(_ user: String, _ ts: String, _ event: String, _ more: String = "") -> String {
      #"{"ts":"\#(ts)","user":"\#(user)","event":"\#(event)"\#(more)}"#
    }
    func expose(_ user: String, _ ts: String, _ variation: String) -> String {
      line(
        user, ts, "experiment_viewed",
        #","flow":"checkin","experiment":"checkin-length","variation":"\#(variation)""#)
    }
    let lines = [
      // u1: back in time from a stamp with milliseconds to one without: a second run.
      expose("u1", "2026-01-05T08:00:00.500Z", "full"),
      line("u1", "2026-01-05T08:00:01.000Z", "flow_started", #","flow":"checkin""#),
      expose("u1", "2026-01-05T08:00:00Z", "full"),
      // u2: its next day's event written with an offset that puts it on the same UTC day.
      expose("u2", "2026-01-05T20:00:00Z", "quick"),
      line("u2", "2026-01-06T01:00:00+02:00", "app_opened"),
      // u3: the next UTC day with an offset, then at its last millisecond.
      expose("u3", "2026-01-05T20:00:00.000Z", "quick"),
      line("u3", "2026-01-05T23:30:00-01:00", "app_opened"),
      // u4: exposed with an offset; the next day in the short form.
      expose("u4", "2026-01-05T23:30:00-01:00", "full"),
      line("u4", "2026-01-07T10:00:00Z", "app_opened"),
      // u5: exposed late on the 5th; the 6th's last millisecond is the next day.
      expose("u5", "2026-01-05T23:59:59.999Z", "full"),
      line("u5", "2026-01-06T23:59:59.999Z", "app_opened"),
      // u6, u7: the day after February's last, in a leap year and in a century that is not.
      expose("u6", "2028-02-28T12:00:00Z", "full"),
      line("u6", "2028-02-29T00:00:00.000Z", "app_opened"),
      expose("u7", "2100-02-28T10:00:00Z", "quick"),
      line("u7", "2100-03-01T00:00:00Z", "app_opened"),
      // u8: exposed before 1970 (parsed), back the next day in wellflow's form.
      expose("u8", "1969-12-31T23:00:00Z", "quick"),
      line("u8", "1970-01-01T00:00:00.000Z", "app_opened"),
    ]
    let file = workspace.write("events.ndjson", lines.joined(separator: "\n") + "\n")
    let experiments = workspace.write(
      "x.yaml",
      """
      experiments:
        - key: checkin-length
          flow: checkin
          variations: [full, quick]
          metrics:
            - returned_next_day
      """)
    let database = try await Self.database(with: file)
    await expectSameReports(file, database, experiments: experiments)
    let decoded = try JSONDecoder().decode(
      ExperimentReport.self, from: Data(await report("\(database)", experiments: experiments).outText.utf8))
    #expect(decoded.usersInSeveralRuns == 1)
    // u3 to u8 came back the next UTC day; u2 did not.
    #expect(decoded.variations.map { $0.metrics[0].conversions }.reduce(0, +) == 6)
  }

  /// The first run and the several-runs warning come from one ordered pass over each user's
  /// events: ends before the first start, screens after an end or of another flow, a second
  /// start after an end, a screen without a name, and stamps going back before, at and after
  /// the last exposure count as the file counts them.
  @Test(.enabled(if: PostgresForTests.enabled, PostgresForTests.howToRun))
  func firstRunsAndRestartsInEveryOrderCountAsInTheFile() async throws {
    let workspace = Workspace()
    var lines: [String] = []
    func add(_ user: String, _ time: String, _ event: String, _ more: String = "") {
      lines.append(eventLine(user, time, event, more))
    }
    func expose(_ user: String, _ time: String, _ variation: String) {
      add(
        user, time, "experiment_viewed",
        #","flow":"checkin","experiment":"checkin-length","variation":"\#(variation)""#)
    }
    let checkin = #","flow":"checkin""#
    func screen(_ name: String, flow: String = "checkin") -> String {
      #","flow":"\#(flow)","screen":"checkin.\#(name)""#
    }
    // a: an end and a screen before the first start; cancelled after two screens.
    expose("a", "08:00:00", "full")
    add("a", "08:00:01", "flow_completed", checkin)
    add("a", "08:00:02", "screen_viewed", screen("pet"))
    add("a", "08:00:03", "flow_started", checkin)
    add("a", "08:00:04", "screen_viewed", screen("sensing"))
    add("a", "08:00:05", "screen_viewed", screen("naming"))
    add("a", "08:00:06", "flow_cancelled", #","flow":"checkin","reason":"user""#)
    add("a", "08:00:07", "screen_viewed", screen("acting"))
    add("a", "08:00:08", "flow_started", checkin)
    // b: completed after one screen, then a second run that does not count.
    expose("b", "08:01:00", "quick")
    add("b", "08:01:01", "flow_started", checkin)
    add("b", "08:01:02", "screen_viewed", screen("sensing"))
    add("b", "08:01:03", "flow_completed", checkin)
    add("b", "08:01:04", "flow_started", checkin)
    add("b", "08:01:05", "screen_viewed", screen("acting"))
    add("b", "08:01:06", "flow_completed", checkin)
    // c: started again before an end (abandoned at its first screen).
    expose("c", "08:02:00", "full")
    add("c", "08:02:01", "flow_started", checkin)
    add("c", "08:02:02", "screen_viewed", screen("shaping"))
    add("c", "08:02:03", "screen_viewed", #","flow":"checkin""#)
    add("c", "08:02:04", "flow_started", checkin)
    add("c", "08:02:05", "flow_completed", checkin)
    // d: another flow's start, screens and end around a run left open.
    expose("d", "08:03:00", "quick")
    add("d", "08:03:01", "flow_started", #","flow":"onboarding""#)
    add("d", "08:03:02", "flow_started", checkin)
    add("d", "08:03:03", "screen_viewed", screen("pet", flow: "onboarding"))
    add("d", "08:03:04", "screen_viewed", screen("evaluating"))
    add("d", "08:03:05", "flow_completed", #","flow":"onboarding""#)
    // e: terminated; its stamps go back only after its last exposure (one run).
    expose("e", "08:04:00", "full")
    add("e", "08:04:01", "flow_started", checkin)
    add("e", "08:04:02", "flow_cancelled", #","flow":"checkin","reason":"terminated""#)
    expose("e", "08:04:03", "full")
    add("e", "08:00:00", "app_opened")
    // f: stamps going back through another event between two exposures (two runs).
    expose("f", "08:05:00", "quick")
    add("f", "08:05:01", "app_opened")
    add("f", "08:04:59", "app_opened")
    add("f", "08:05:02", "flow_started", checkin)
    expose("f", "08:05:03", "quick")
    // g: back in time at its second exposure itself (two runs).
    expose("g", "08:06:00", "full")
    add("g", "08:06:01", "flow_started", checkin)
    expose("g", "08:05:59", "full")
    add("g", "08:06:02", "flow_completed", checkin)
    let file = workspace.write("events.ndjson", lines.joined(separator: "\n") + "\n")
    let database = try await Self.database(with: file)
    await expectSameReports(file, database, experiments: Self.experiments)
    let decoded = try JSONDecoder().decode(
      ExperimentReport.self,
      from: Data(await report("\(database)", experiments: Self.experiments).outText.utf8))
    #expect(decoded.usersInSeveralRuns == 2)
    let full = try #require(decoded.variations.first { $0.variation == "full" })
    #expect(
      [full.started, full.completed, full.cancelled, full.terminated, full.abandoned] == [4, 1, 1, 1, 1]
        as [Int])
    let quick = try #require(decoded.variations.first { $0.variation == "quick" })
    #expect([quick.started, quick.completed, quick.abandoned] == [3, 1, 2] as [Int])
    #expect(quick.topExitScreen?.screen == "checkin.evaluating")
    #expect(quick.medianStepsToComplete == 1)
  }

  /// Names from the experiment file go into the SQL quoted: a quote or a backslash in an
  /// experiment, an event or a field is that character, from the file and from the table.
  @Test(.enabled(if: PostgresForTests.enabled, PostgresForTests.howToRun))
  func namesWithQuotesAndBackslashesAreReadAsTheyAre() async throws {
    let workspace = Workspace()
    let key = #"it's a \\ test"#
    var lines: [String] = []
    for (index, user) in ["a", "b", "c", "d"].enumerated() {
      let variation = index % 2 == 0 ? "full" : "quick"
      lines.append(
        #"{"ts":"2026-01-05T08:00:0\#(index)Z","user":"\#(user)","event":"experiment_viewed","experiment":"\#(key)","flow":"checkin","variation":"\#(variation)"}"#
      )
      lines.append(
        #"{"ts":"2026-01-05T08:01:0\#(index)Z","user":"\#(user)","event":"it's \\ done","o'k \\ n":\#(index + 1)}"#
      )
    }
    let file = workspace.write("events.ndjson", lines.joined(separator: "\n") + "\n")
    let experiments = workspace.write(
      "x.yaml",
      #"""
      experiments:
        - key: "it's a \\ test"
          flow: checkin
          variations: [full, quick]
          metrics:
            - {name: done, event: "it's \\ done"}
            - {name: amount, event: "it's \\ done", value: "o'k \\ n"}
      """#)
    let database = try await Self.database(with: file)
    let experiment = #"it's a \ test"#
    await expectSameReports(file, database, experiments: experiments, experiment: experiment)
    let decoded = try JSONDecoder().decode(
      ExperimentReport.self,
      from: Data(await report("\(database)", experiments: experiments, experiment: experiment).outText.utf8))
    #expect(decoded.variations.map(\.exposed) == [2, 2])
    #expect(decoded.variations.map { $0.metrics[0].conversions } == [2, 2])
    #expect(decoded.variations.map { $0.metrics[1].mean } == [2, 3])
  }

  /// Example populations of the app's experiments, from `wellflow run`: the check-in with
  /// its metrics, the check-in run twice into one file (users in two runs), onboarding.
  @Test(.enabled(if: PostgresForTests.enabled, PostgresForTests.howToRun))
  func theExamplePopulationsReportTheSameFromPostgres() async throws {
    let workspace = Workspace()
    let onboarding = Self.root.appendingPathComponent("Apps/Wellflow/Scripts/experiment-onboarding.yaml").path
    let onboardingExperiments = Self.root.appendingPathComponent(
      "Apps/Wellflow/Experiments/onboarding-length.yaml"
    ).path
    let twice = workspace.path("twice.ndjson")
    for seed in [UInt64(1), 2] {
      let run = await wellflowRun([Self.script]) {
        $0.experimentsPath = Self.experiments
        $0.users = 30
        $0.jobs = 1
        $0.seed = seed
        $0.eventsPath = twice
        $0.appendEvents = true
        $0.quiet = true
      }
      #expect(run.code == 0, "\(run.errText)")
    }
    let onboardingFile = workspace.path("onboarding.ndjson")
    let run = await wellflowRun([onboarding]) {
      $0.experimentsPath = onboardingExperiments
      $0.users = 60
      $0.jobs = 1
      $0.eventsPath = onboardingFile
      $0.quiet = true
    }
    #expect(run.code == 0, "\(run.errText)")
    let twiceDatabase = try await Self.database(with: twice)
    for experiments in [nil, Self.experiments] {
      await expectSameReports(twice, twiceDatabase, experiments: experiments)
    }
    let decoded = try JSONDecoder().decode(
      ExperimentReport.self, from: Data(await report("\(twiceDatabase)").outText.utf8))
    #expect(decoded.usersInSeveralRuns > 0)
    let onboardingDatabase = try await Self.database(with: onboardingFile)
    for experiments in [nil, onboardingExperiments] {
      await expectSameReports(
        onboardingFile, onboardingDatabase, experiments: experiments, experiment: "onboarding-length")
    }
  }

  /// What stops a report from a file stops it from the database, said the same way but for
  /// where: the event's `seq` in place of the file's line.
  @Test(.enabled(if: PostgresForTests.enabled, PostgresForTests.howToRun))
  func theFilesRefusalsAreTheDatabasesRefusals() async throws {
    let workspace = Workspace()
    let file = workspace.write(
      "events.ndjson",
      """
      {"ts":"2026-01-05T08:00:00Z","user":"u1","event":"experiment_viewed","flow":"checkin","experiment":"checkin-length","variation":"full"}
      {"ts":"2026-01-05T08:00:01Z","user":"u1","event":"mood_saved","score":"3"}
      {"ts":"2026-01-05T08:00:02Z","user":"u1","event":"mood_saved","score":"high"}
      {"ts":"2026-01-05T08:00:03Z","user":"u1","event":"mood_saved","score":true}

      """)
    let database = try await Self.database(with: file)
    func experiments(_ metric: String) -> String {
      workspace.write(
        "x.yaml",
        """
        experiments:
          - key: checkin-length
            flow: checkin
            variations: [full, quick]
            metrics:
              - \(metric)
        """)
    }
    let scored = experiments("{name: mood score, event: mood_saved, value: score}")
    #expect(
      await report(file, experiments: scored).err == [
        "error: \(file):3: metric 'mood score': field 'score' must be a number, got 'high'"
      ])
    #expect(
      await report("\(database)", experiments: scored).err == [
        "error: \(database) (event seq 3): metric 'mood score': field 'score' must be a number, got 'high'"
      ])
    let misspelt = experiments("{name: mood score, event: mood_saved, value: scor}")
    let fromFile = await report(file, experiments: misspelt)
    let fromDatabase = await report("\(database)", experiments: misspelt)
    #expect(fromFile.code == 2)
    #expect(fromDatabase.code == 2)
    #expect(
      fromDatabase.err
        == fromFile.err.map { $0.replacingOccurrences(of: " in \(file) ", with: " in \(database) ") })
    #expect(fromDatabase.errText.contains("no mood_saved event in \(database) has a field 'scor'"))
    let unknown = await report("\(database)", experiment: "checkin-lenght")
    #expect(unknown.err == (await report(file, experiment: "checkin-lenght")).err)
    #expect(unknown.errText.contains("experiments seen: checkin-length"))
  }

  /// `run --events postgres://…` makes the events tables and their indexes only (the
  /// progress tables are `serve`'s); a database made before the exposures' index gains it.
  @Test(.enabled(if: PostgresForTests.enabled, PostgresForTests.howToRun))
  func eventsMakeOnlyTheEventsTableAndAnEarlierOneGainsTheIndex() async throws {
    let database = try await PostgresForTests.freshDatabase()
    try await PostgresEvents.prepare(database)
    #expect(
      try await PostgresForTests.count(
        """
        SELECT count(*) FROM pg_tables WHERE schemaname = 'public'
          AND tablename NOT IN ('events', 'event_facts', 'event_users')
        """, on: database) == 0)
    #expect(
      try await PostgresForTests.count(
        "SELECT count(*) FROM pg_tables WHERE tablename = 'events'", on: database) == 1)
    let connection = try await database.connect()
    try await connection.query("DROP INDEX events_exposures", logger: PostgresLocation.quietLogger)
    try await connection.close()
    let indexes = "SELECT count(*) FROM pg_indexes WHERE indexname = 'events_exposures'"
    #expect(try await PostgresForTests.count(indexes, on: database) == 0)
    try await PostgresEvents.prepare(database)
    #expect(try await PostgresForTests.count(indexes, on: database) == 1)
  }

  /// The events table as versions before the report's facts made it, and filled by them.
  static func olderDatabase(with file: String) async throws -> PostgresLocation {
    let database = try await PostgresForTests.freshDatabase()
    let connection = try await database.connect()
    defer { connection.closeInBackground() }
    let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
    for sql in [
      """
      CREATE TABLE events (
        seq bigserial PRIMARY KEY,
        data jsonb NOT NULL,
        ts text COLLATE "C" GENERATED ALWAYS AS (data->>'ts') STORED,
        user_id text GENERATED ALWAYS AS (data->>'user') STORED,
        event text GENERATED ALWAYS AS (data->>'event') STORED
      )
      """,
      "CREATE INDEX events_by_event_user ON events (event, user_id)",
      "CREATE INDEX events_exposures ON events ((data->>'experiment'), seq) WHERE event = 'experiment_viewed'",
    ] {
      try await connection.query(PostgresQuery(unsafeSQL: sql), logger: PostgresLocation.quietLogger)
    }
    try await connection.query(
      "INSERT INTO events (data) SELECT line::jsonb FROM unnest(\(lines)::text[]) AS line",
      logger: PostgresLocation.quietLogger)
    return database
  }

  /// Events an older version wrote (the events table alone) report as the file does: the
  /// first report copies them into the facts, and events written after that are added by
  /// the table's triggers.
  @Test(.enabled(if: PostgresForTests.enabled, PostgresForTests.howToRun))
  func eventsWrittenByAnOlderVersionReportAsTheFileAndGainTheirFactsOnce() async throws {
    let workspace = Workspace()
    let first = workspace.path("first.ndjson")
    let both = workspace.path("both.ndjson")
    for (seed, append) in [(UInt64(1), false), (2, true)] {
      let run = await wellflowRun([Self.script]) {
        $0.experimentsPath = Self.experiments
        $0.users = 30
        $0.jobs = 1
        $0.seed = seed
        $0.eventsPath = append ? both : first
        $0.quiet = true
      }
      #expect(run.code == 0, "\(run.errText)")
    }
    let firstText = try String(contentsOfFile: first, encoding: .utf8)
    let all = workspace.write(
      "all.ndjson", firstText + (try String(contentsOfFile: both, encoding: .utf8)))
    let database = try await Self.olderDatabase(with: first)
    let facts = "SELECT count(*) FROM pg_tables WHERE tablename = 'event_facts'"
    #expect(try await PostgresForTests.count(facts, on: database) == 0)
    await expectSameReports(first, database, experiments: Self.experiments)
    let events = firstText.split(separator: "\n").count
    #expect(try await PostgresForTests.count("SELECT count(*) FROM event_facts", on: database) == events)
    // Later events, through the writer of `run --events`: the triggers add their facts.
    try await PostgresEvents.insert(ndjsonFile: both, into: database)
    await expectSameReports(all, database, experiments: Self.experiments)
    await expectSameReports(all, database, experiments: nil)
    #expect(
      try await PostgresForTests.count(
        "SELECT count(*) FROM events e FULL JOIN event_facts f USING (seq) WHERE e.seq IS NULL OR f.seq IS NULL",
        on: database) == 0)
  }

  /// Events removed, changed or truncated by hand take their facts with them: the report
  /// counts what the table holds.
  @Test(.enabled(if: PostgresForTests.enabled, PostgresForTests.howToRun))
  func factsFollowEveryChangeToTheEventsTable() async throws {
    let workspace = Workspace()
    let file = workspace.path("events.ndjson")
    let run = await Self.runCheckIn(users: 30, events: file)
    #expect(run.code == 0, "\(run.errText)")
    let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
    let database = try await Self.database(with: file)
    let kept = lines.count * 2 / 3
    let connection = try await database.connect()
    defer { connection.closeInBackground() }
    let logger = PostgresLocation.quietLogger
    try await connection.query(
      PostgresQuery(unsafeSQL: "DELETE FROM events WHERE seq > (SELECT min(seq) FROM events) + \(kept - 1)"),
      logger: logger)
    let head = workspace.write("head.ndjson", lines.prefix(kept).joined(separator: "\n") + "\n")
    await expectSameReports(head, database, experiments: Self.experiments)
    // The exposures to `mini` renamed `quick`, in the table and in the file.
    #expect(lines.prefix(kept).contains { $0.contains(#""variation":"mini""#) })
    try await connection.query(
      """
      UPDATE events SET data = jsonb_set(data, '{variation}', '"quick"')
      WHERE event = 'experiment_viewed' AND data->>'variation' = 'mini'
      """, logger: logger)
    let renamed = workspace.write(
      "renamed.ndjson",
      lines.prefix(kept).map {
        $0.replacingOccurrences(of: #""variation":"mini""#, with: #""variation":"quick""#)
      }.joined(separator: "\n") + "\n")
    await expectSameReports(renamed, database, experiments: Self.experiments)
    try await connection.query("TRUNCATE events", logger: logger)
    #expect(try await PostgresForTests.count("SELECT count(*) FROM event_facts", on: database) == 0)
  }

  /// A report over a database that holds no events table says so in one line, and makes
  /// nothing there.
  @Test(.enabled(if: PostgresForTests.enabled, PostgresForTests.howToRun))
  func aReportOverADatabaseWithoutEventsNamesTheTableAndMakesNothing() async throws {
    let database = try await PostgresForTests.freshDatabase()
    let outcome = await report("\(database)")
    #expect(outcome.code == 2)
    #expect(outcome.err == ["error: cannot use \(database): relation \"events\" does not exist"])
    #expect(
      try await PostgresForTests.count(
        "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", on: database) == 0)
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

/// One event of 2026-01-05 as an events file holds it; `more` is the rest of its members,
/// each led by a comma.
private func eventLine(_ user: String, _ time: String, _ event: String, _ more: String) -> String {
  #"{"ts":"2026-01-05T\#(time)Z","user":"\#(user)","event":"\#(event)"\#(more)}"#
}
