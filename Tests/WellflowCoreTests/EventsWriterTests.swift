import FlowKit
import Foundation
import ScriptTestSupport
import Testing

@testable import WellflowCore

/// The events file is written byte by byte and buffered (issue 25, item 1): the same bytes
/// as `JSONSerialization` wrote before, each run's events in the file when it ends.
@MainActor
@Suite("events writer")
struct EventsWriterTests {
  let workspace = Workspace()

  /// The line as the sink spelled it before: `JSONSerialization`, sorted keys.
  private static func reference(_ event: AnalyticsEvent) -> String {
    let milliseconds = (event.ts.timeIntervalSince1970 * 1000).rounded()
    var object: [String: Any] = [
      "ts": NDJSONLine.slowTimestamp(event.ts, milliseconds: milliseconds), "user": event.user,
      "event": event.event,
    ]
    if let flow = event.flow { object["flow"] = flow }
    if let variant = event.variant { object["variant"] = variant }
    for (key, value) in event.fields where object[key] == nil {
      switch value {
      case .string(let text): object[key] = text
      case .number(let number): object[key] = number
      case .bool(let bool): object[key] = bool
      }
    }
    let data = try! JSONSerialization.data(
      withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    return String(decoding: data, as: UTF8.self)
  }

  private static let numbers: [Double] = [
    0, -0.0, 1, 3, -42, 7.5, 0.1, 0.3, 1.0 / 3, 2.0 / 3, 4.35, 100, 1_234_567, 999_999_999_999_999,
    1e15, 1e16, 1e17, 1.2345678901234568e+17, 1e20, 1e21, 1e22, 1e-5, 1e-7, 0.000123, 12345.678, 1e300,
    .leastNonzeroMagnitude, 9_007_199_254_740_992, 0.30000000000000004, -1e16, -0.5,
  ]

  private static var allBytes: String {
    var text = ""
    for value in 0..<0x80 { text.unicodeScalars.append(Unicode.Scalar(UInt8(value))) }
    return text + "é😀\u{2028}\u{85}\u{FEFF}/\\\"<>&"
  }

  private static let stamps: [Double] = [
    0, 0.0004, 0.0005, 1.9995, 86_399.999, 951_782_400.25, 1_772_434_804.25, 1_772_434_804.2505,
    1_772_434_804.999, 4_102_444_800.001, 253_402_300_799.999, -1, -86_400.5, -62_135_596_800, 1e13,
  ]

  @Test func linesAreTheBytesJSONSerializationWrote() {
    var events: [AnalyticsEvent] = []
    for (index, number) in Self.numbers.enumerated() {
      events.append(
        AnalyticsEvent(
          ts: Date(timeIntervalSince1970: Self.stamps[index % Self.stamps.count]), user: "user-\(index)",
          event: "mood_saved", flow: index % 2 == 0 ? "checkin" : nil,
          variant: index % 3 == 0 ? "quick" : nil,
          fields: [
            "score": .number(number), "screen": .string("checkin.acting"), "kept": .bool(index % 2 == 0),
          ]))
    }
    for stamp in Self.stamps {
      events.append(AnalyticsEvent(ts: Date(timeIntervalSince1970: stamp), user: "u", event: "flow_started"))
    }
    events.append(
      AnalyticsEvent(
        ts: Date(timeIntervalSince1970: 0), user: Self.allBytes, event: Self.allBytes, flow: Self.allBytes,
        variant: Self.allBytes, fields: ["name": .string(Self.allBytes)]))
    // Fields named like the members (kept only when the member is absent), keys of every
    // kind, in JSONSerialization's order (numeric, case-insensitive, collated).
    let keys = [
      "a_b", "ab", "a1", "a_", "A", "b", "B", "a10", "a2", "variation", "variation_id", "source", "_x", "x-y",
      "x.y", "é", "z", "ts", "user", "event", "flow", "variant",
    ]
    events.append(
      AnalyticsEvent(
        ts: Date(timeIntervalSince1970: 1_772_434_804), user: "u", event: "experiment_viewed",
        flow: "checkin",
        fields: Dictionary(uniqueKeysWithValues: keys.map { ($0, EventValue.string($0)) })))
    for event in events {
      #expect(NDJSONAnalyticsSink.line(for: event) == Self.reference(event))
    }
  }

  /// A sink spells each line alone, though it keeps its scratch space between lines: events
  /// with more, fewer and other fields one after the other are each their own line.
  @Test func eachLineIsItsEventsAlone() throws {
    let path = workspace.path("lines.ndjson")
    let sink = try NDJSONAnalyticsSink(path: path)
    let events = [
      AnalyticsEvent(
        ts: Date(timeIntervalSince1970: 1), user: "u", event: "e", flow: "f", variant: "v",
        fields: ["b": .string("x\"y"), "a": .number(1), "Z": .bool(true), "é": .string("\n")]),
      AnalyticsEvent(ts: Date(timeIntervalSince1970: 2), user: "u", event: "e"),
      AnalyticsEvent(
        ts: Date(timeIntervalSince1970: 3), user: "u", event: "e", fields: ["flow": .string("own")]),
      AnalyticsEvent(
        ts: Date(timeIntervalSince1970: 4), user: "u", event: "e", flow: "f",
        fields: ["screen": .string("s"), "action": .string("tap"), "trigger": .string("launch")]),
    ]
    for event in events { sink.record(event) }
    sink.flush()
    #expect(
      try String(contentsOfFile: path, encoding: .utf8)
        == events.map { Self.reference($0) + "\n" }.joined())
  }

  @Test func tagsAreAddedUnlessTheEventHasTheField() throws {
    let path = workspace.path("tags.ndjson")
    let sink = try NDJSONAnalyticsSink(path: path, tags: ["source": .string("script")])
    let own = AnalyticsEvent(
      ts: Date(timeIntervalSince1970: 5), user: "u", event: "e",
      fields: ["source": .string("app"), "n": .number(2)])
    let plain = AnalyticsEvent(ts: Date(timeIntervalSince1970: 6), user: "u", event: "e", flow: "checkin")
    sink.record(own)
    sink.record(plain)
    sink.flush()
    var tagged = plain
    tagged.fields["source"] = .string("script")
    #expect(
      try String(contentsOfFile: path, encoding: .utf8)
        == Self.reference(own) + "\n" + Self.reference(tagged) + "\n")
  }

  @Test func eventsWaitInTheBufferUntilFlushed() throws {
    let path = workspace.path("buffered.ndjson")
    let sink = try NDJSONAnalyticsSink(path: path)
    sink.record(AnalyticsEvent(ts: Date(timeIntervalSince1970: 0), user: "u", event: "flow_started"))
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "")
    sink.flush()
    #expect(
      try String(contentsOfFile: path, encoding: .utf8)
        == #"{"event":"flow_started","ts":"1970-01-01T00:00:00.000Z","user":"u"}"# + "\n")
    // A full buffer is written without waiting for the flush.
    for index in 0..<3_000 {
      sink.record(
        AnalyticsEvent(ts: Date(timeIntervalSince1970: 0), user: "user-\(index)", event: "flow_started"))
    }
    let written = try Data(contentsOf: URL(fileURLWithPath: path)).count
    #expect(written >= NDJSONAnalyticsSink.bufferLimit)
  }

  @Test func eachRunsEventsAreInTheFileWhenItEnds() async throws {
    let events = workspace.path("events.ndjson")
    let script = workspace.write(
      "s.yaml",
      """
      name: per user
      steps:
        - start: {flow: onboarding, variant: short}
        - tap: continue
      """)
    var configuration = RunConfiguration(paths: [script])
    configuration.users = 3
    configuration.quiet = true
    configuration.eventsPath = events
    var usersSeen: [Set<String>] = []
    let code = await RunCommand.execute(
      configuration, console: Console(out: { _ in }, err: { _ in }),
      afterEachRun: { _ in
        let lines = (try? String(contentsOfFile: events, encoding: .utf8)) ?? ""
        usersSeen.append(
          Set(
            lines.split(separator: "\n").compactMap {
              (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["user"] as? String
            }))
      })
    #expect(code == 0)
    #expect(usersSeen == [["user-1"], ["user-1", "user-2"], ["user-1", "user-2", "user-3"]])
  }
}

/// `--jobs N` splits a population among worker processes and joins what they wrote
/// (issue 25, item 1).
@MainActor
@Suite("wellflow run --jobs")
struct RunJobsTests {
  let workspace = Workspace()
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  private func population(jobs: Int, users: Int, quiet: Bool = false) async throws -> (
    outcome: RunOutcome, events: Data
  ) {
    let events = workspace.path("events-\(jobs)-\(users)-\(quiet).ndjson")
    let executable = try PreviewProcess.executable().path
    let outcome = await wellflowRun([
      Self.root.appendingPathComponent("Apps/Wellflow/Scripts/experiment-checkin.yaml").path,
      Self.root.appendingPathComponent("Apps/Wellflow/Scripts/onboarding-short.yaml").path,
    ]) {
      $0.experimentsPath =
        Self.root.appendingPathComponent("Apps/Wellflow/Experiments/checkin-length.yaml").path
      $0.users = users
      $0.seed = 11
      $0.quiet = quiet
      $0.eventsPath = events
      $0.jobs = jobs
      $0.executable = executable
    }
    return (outcome, try Data(contentsOf: URL(fileURLWithPath: events)))
  }

  /// The output without the times of runs, which differ from run to run.
  private func timeless(_ outcome: RunOutcome) -> String {
    outcome.outText.replacingOccurrences(of: #"-?\d+\.\d ms"#, with: "… ms", options: .regularExpression)
  }

  @Test func severalJobsWriteTheEventsAndTheOutputOfOne() async throws {
    let one = try await population(jobs: 1, users: 7)
    #expect(one.outcome.code == 0, "\(one.outcome.errText)")
    #expect(!one.events.isEmpty)
    for jobs in [2, 3] {
      let several = try await population(jobs: jobs, users: 7)
      #expect(several.outcome.code == one.outcome.code, "\(several.outcome.errText)")
      #expect(several.events == one.events, "--jobs \(jobs) writes the events of --jobs 1, byte for byte")
      #expect(timeless(several.outcome) == timeless(one.outcome))
      #expect(several.outcome.errText == one.outcome.errText)
    }
    let quiet = try await population(jobs: 2, users: 7, quiet: true)
    #expect(quiet.events == one.events)
    #expect(quiet.outcome.out.count == 1)
    #expect(quiet.outcome.outText.hasPrefix("14 script runs: 14 passed, 0 failed ("))
  }

  /// What a population writes with `--format json --junit FILE --html FILE` and `jobs`
  /// workers: the standard output, the errors and both files.
  private func reports(jobs: Int, users: Int) async throws -> (
    out: String, err: String, junit: String, html: String
  ) {
    let junit = workspace.path("junit-\(jobs).xml")
    let html = workspace.path("report-\(jobs).html")
    let executable = try PreviewProcess.executable().path
    let outcome = await wellflowRun([
      Self.root.appendingPathComponent("Apps/Wellflow/Scripts/experiment-checkin.yaml").path,
      Self.root.appendingPathComponent("Apps/Wellflow/Scripts/onboarding-short.yaml").path,
    ]) {
      $0.experimentsPath =
        Self.root.appendingPathComponent("Apps/Wellflow/Experiments/checkin-length.yaml").path
      $0.users = users
      $0.seed = 11
      $0.format = .json
      $0.junitPath = junit
      $0.htmlPath = html
      $0.jobs = jobs
      $0.executable = executable
    }
    #expect(outcome.code == 0, "\(outcome.errText)")
    return (
      outcome.outText, outcome.errText, try String(contentsOfFile: junit, encoding: .utf8),
      try String(contentsOfFile: html, encoding: .utf8)
    )
  }

  /// The times runs took, which differ from one run to the next (two runs of one job
  /// differ there too), as `…`; nothing else.
  private func timeless(_ text: String) -> String {
    text.replacingOccurrences(of: #""durationSeconds" : [-0-9.e]+"#, with: "…", options: .regularExpression)
      .replacingOccurrences(of: #"time="[0-9.]+""#, with: "…", options: .regularExpression)
      .replacingOccurrences(of: #"-?\d+\.\d ms"#, with: "… ms", options: .regularExpression)
  }

  /// JSON, JUnit and HTML with `--jobs 3` are what one job writes, byte for byte but for
  /// the times. 30 users of two scripts: 60 runs, so the HTML report draws 50 and lists 10
  /// (the joined report picks its drawn runs from each worker's first ones).
  @Test func severalJobsWriteTheReportsOfOne() async throws {
    let one = try await reports(jobs: 1, users: 30)
    let three = try await reports(jobs: 3, users: 30)
    #expect(one.out.hasPrefix("{\n  \"durationSeconds\" : "))
    #expect(one.out.contains("\"passed\" : 60,"))
    #expect(timeless(three.out) == timeless(one.out))
    #expect(three.err == one.err)
    #expect(one.junit.contains(#"tests="60" failures="0""#))
    #expect(timeless(three.junit) == timeless(one.junit))
    #expect(one.html.contains(#"id="run-50""#) && !one.html.contains(#"id="run-51""#))
    #expect(one.html.contains(#"id="passed-listed""#))
    #expect(timeless(three.html) == timeless(one.html))
  }

  @Test func aWorkerIsToldItsOutputs() {
    let worker = RunConfiguration.Worker(
      users: 3...9, events: true, junit: false, html: true, directory: "/tmp/w")
    #expect(worker.argument == "3:9:eh:/tmp/w")
    #expect(RunConfiguration.Worker(argument: "3:9:eh:/tmp/w") == worker)
    #expect(RunConfiguration.Worker(argument: "3:9:-:/tmp/w")?.events == false)
    for bad in ["3:9:1:/tmp/w", "3:9:he:/tmp/w", "3:9::/tmp/w", "9:3:e:/tmp/w", "3:9:e:"] {
      #expect(RunConfiguration.Worker(argument: bad) == nil, "\(bad)")
    }
  }

  @Test func jobsOutsideTheLimitsAreRefused() async {
    for jobs in [0, RunCommand.maxJobs + 1] {
      let outcome = await wellflowRun(["missing.yaml"]) { $0.jobs = jobs }
      #expect(outcome.code == 2)
      #expect(outcome.err == ["error: --jobs takes a number from 1 to \(RunCommand.maxJobs), got \(jobs)"])
    }
  }

  /// Workers run the binary `Bundle.main` names, read without the bundle's lookup.
  @Test func theWorkersBinaryIsTheOneBundleMainNames() throws {
    let own = try #require(RunConfiguration.ownExecutable())
    #expect(own == Bundle.main.executablePath)
    #expect(FileManager.default.isExecutableFile(atPath: own))
  }
}
