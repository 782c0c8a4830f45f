import Experiments
import FlowKit
import Foundation
import ScriptTestSupport
import StrictJSON
import Testing

@testable import WellflowCore

/// `wellflow report` reads the events in one pass, each line from its bytes (issue 25,
/// item 2): the same numbers and the same problems as the whole-file reader before.
@MainActor
@Suite("wellflow report, streaming")
struct ReportStreamingTests {
  let workspace = Workspace()
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
    "Fixtures")

  private func report(_ configuration: ReportConfiguration) -> RunOutcome {
    let out = Locked<[String]>([])
    let err = Locked<[String]>([])
    let code = ReportCommand.execute(
      configuration,
      console: Console(
        out: { text in out.withLock { $0.append(text) } }, err: { text in err.withLock { $0.append(text) } }))
    return RunOutcome(code: code, out: out.current, err: err.current)
  }

  /// The example populations (200 users, seed 5) reported as the whole-file reader
  /// reported them: `Fixtures/report-*.json` are its JSON reports of the same events, but
  /// for onboarding's chance to beat control, 50% since both variations complete 100% (it
  /// was Beta(1, 1)'s 47.0%, a lean that came from the users on each side, not the rates).
  @Test(arguments: ["checkin", "onboarding"])
  func theExamplePopulationsReportTheNumbersOfBefore(_ name: String) async throws {
    let events = workspace.path("\(name).ndjson")
    let run = await wellflowRun([
      Self.root.appendingPathComponent("Apps/Wellflow/Scripts/experiment-\(name).yaml").path
    ]) {
      $0.experimentsPath =
        Self.root.appendingPathComponent("Apps/Wellflow/Experiments/\(name)-length.yaml").path
      $0.users = 200
      $0.seed = 5
      $0.quiet = true
      $0.eventsPath = events
    }
    #expect(run.code == 0, "\(run.errText)")
    for withFile in [true, false] {
      var configuration = ReportConfiguration(eventsPath: events, experiment: "\(name)-length")
      configuration.format = .json
      if withFile {
        configuration.experimentsPath =
          Self.root.appendingPathComponent("Apps/Wellflow/Experiments/\(name)-length.yaml").path
      }
      let outcome = report(configuration)
      #expect(outcome.code == 0, "\(outcome.errText)")
      let fixture = Self.fixtures.appendingPathComponent("report-\(name)\(withFile ? "" : "-nofile").json")
      let expected = try JSONDecoder().decode(ExperimentReport.self, from: Data(contentsOf: fixture))
      var streamed = try JSONDecoder().decode(ExperimentReport.self, from: Data(outcome.outText.utf8))
      // The fixtures predate the differences to control (issue 25, item 3).
      for variation in streamed.variations.indices {
        streamed.variations[variation].completion.difference = nil
        for metric in streamed.variations[variation].metrics.indices {
          streamed.variations[variation].metrics[metric].difference = nil
        }
      }
      #expect(streamed == expected, "\(name), experiment file: \(withFile)")
    }
  }

  @Test func aTruncatedLastLineIsNamedAndTheRestCounted() throws {
    let exposure =
      #"{"event":"experiment_viewed","experiment":"x","flow":"checkin","ts":"2026-03-02T07:00:00.000Z","user":"u1","variation":"a"}"#
    let start = #"{"event":"flow_started","flow":"checkin","ts":"2026-03-02T07:00:01.000Z","user":"u1"}"#
    let path = workspace.write(
      "cut.ndjson", [exposure, start, #"{"event":"flow_completed","flow":"chec"#].joined(separator: "\n"))
    var configuration = ReportConfiguration(eventsPath: path, experiment: "x")
    configuration.format = .json
    let outcome = report(configuration)
    #expect(outcome.code == 0)
    #expect(
      workspace.relative(outcome.err) == [
        #"warning: cut.ndjson:3: not a JSON object: {"event":"flow_completed","flow":"chec (the last line, without a line end: the file was cut short; it is left out, the 2 lines before it are counted)"#
      ])
    let counted = try JSONDecoder().decode(ExperimentReport.self, from: Data(outcome.outText.utf8))
    #expect(counted.variations.map(\.exposed) == [1])
    #expect(counted.variations.map(\.started) == [1])
    #expect(counted.variations.map(\.abandoned) == [1])

    // With its line end the same line is an error, as any other bad line.
    let ended = workspace.write(
      "ended.ndjson",
      [exposure, start, #"{"event":"flow_completed","flow":"chec"#].joined(separator: "\n") + "\n")
    let refused = report(ReportConfiguration(eventsPath: ended, experiment: "x"))
    #expect(refused.code == 2)
    #expect(
      workspace.relative(refused.err) == [
        #"error: ended.ndjson:3: not a JSON object: {"event":"flow_completed","flow":"chec"#
      ])
  }

  /// PostgreSQL's jsonb keeps a repeated name's last value, so the file's reader does too:
  /// the report from the database and from the file read the line alike.
  @Test func aNameGivenTwiceInALineCountsItsLastValue() throws {
    let line = Array(#"{"ts":"2026-03-02T07:00:04Z","user":"a","event":"e","user":"b","n":1,"n":2}"#.utf8)
    let event = try line.withUnsafeBufferPointer { try EventLine.event($0, keeping: nil) }
    #expect(event.user == "b")
    #expect(event.fields == ["n": "2"])
  }

  /// Names are found by their bytes, but read as text: an escaped or non-ASCII name is
  /// the name it spells, for the event's members and for the fields a report keeps.
  @Test func namesAreTheTextTheySpell() throws {
    let line = Array(
      #"{"t\u0073":"2026-03-02T07:00:04Z","\u0075ser":"a","event":"e","scr\u0065en":"s","é":"x","sourc":"y","source":null,"n":1}"#
        .utf8)
    let event = try line.withUnsafeBufferPointer {
      try EventLine.event($0, keeping: ["screen", "é", "source", "n"] as Set<String>)
    }
    #expect(event.user == "a")
    #expect(event.fields == ["screen": "s", "é": "x", "n": "1"])
    // A field set to null after a value keeps the value, as the whole-object reader did.
    let again = Array(#"{"ts":"2026-03-02T07:00:04Z","user":"a","event":"e","k":"v","k":null}"#.utf8)
    #expect(try again.withUnsafeBufferPointer { try EventLine.event($0, keeping: nil) }.fields == ["k": "v"])
    // A member's last value counts, null too.
    let dropped = Array(#"{"ts":"2026-03-02T07:00:04Z","user":"a","event":"e","user":null}"#.utf8)
    do {
      _ = try dropped.withUnsafeBufferPointer { try EventLine.event($0, keeping: nil) }
      Issue.record("a user set to null was read")
    } catch let problem as EventLine.Problem {
      #expect(problem.message == "the event has no 'user'")
    } catch {
      Issue.record("\(error)")
    }
    // A field that is not kept is still read strictly: nested values are refused.
    let nested = Array(#"{"ts":"2026-03-02T07:00:04Z","user":"a","event":"e","deep":[1]}"#.utf8)
    do {
      _ = try nested.withUnsafeBufferPointer { try EventLine.event($0, keeping: ["screen"] as Set<String>) }
      Issue.record("a nested field was let through")
    } catch let problem as EventLine.Problem {
      #expect(problem.message == "field 'deep' must be text, a number or a flag")
    } catch {
      Issue.record("\(error)")
    }
  }

  /// The line as the whole-file reader read it: `JSONDecoder` into `JSONValue`.
  private static func reference(_ line: String) -> Result<ReportEvent, EventLine.Problem> {
    let data = Data(line.utf8)
    guard let value = try? JSONDecoder().decode(JSONValue.self, from: data), case .object(let object) = value
    else {
      let text = terminalSafe(String(decoding: data.prefix(60), as: UTF8.self))
      return .failure(EventLine.Problem(message: "not a JSON object: \(text)\(data.count > 60 ? "…" : "")"))
    }
    func text(_ key: String, required: Bool) -> Result<String?, EventLine.Problem> {
      switch object[key] {
      case .string(let string): return .success(string)
      case nil, .null?:
        return required ? .failure(EventLine.Problem(message: "the event has no '\(key)'")) : .success(nil)
      default: return .failure(EventLine.Problem(message: "'\(key)' must be text"))
      }
    }
    do {
      let stamp = try text("ts", required: true).get()!
      let formats = [
        Date.ISO8601FormatStyle(includingFractionalSeconds: false),
        Date.ISO8601FormatStyle(includingFractionalSeconds: true),
      ]
      guard let ts = formats.lazy.compactMap({ try? Date(stamp, strategy: $0) }).first else {
        return .failure(
          EventLine.Problem(
            message: "'ts' must be an ISO 8601 date-time, got '\(terminalSafe(stamp, limit: 64))'"))
      }
      var fields: [String: String] = [:]
      for (key, value) in object where !["ts", "user", "event", "flow", "variant"].contains(key) {
        switch value {
        case .bool(let flag): fields[key] = flag ? "true" : "false"
        case .number(let number): fields[key] = formatNumber(number)
        case .string(let string): fields[key] = string
        case .null: continue
        case .array, .object:
          return .failure(
            EventLine.Problem(
              message: "field '\(terminalSafe(key, limit: 64))' must be text, a number or a flag"))
        }
      }
      return .success(
        ReportEvent(
          ts: ts, user: try text("user", required: true).get()!,
          event: try text("event", required: true).get()!,
          flow: try text("flow", required: false).get(), variant: try text("variant", required: false).get(),
          fields: fields))
    } catch {
      return .failure(error)
    }
  }

  @Test func linesReadAsJSONDecoderReadThem() {
    let lines = [
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","flow":"checkin","variant":"quick","n":3,"f":0.25,"b":true,"z":null}"#,
      #"  {"ts":"2026-03-02T07:00:04Z","user":"u","event":"e"}  "#,
      #"{"ts":"2026-03-02T07:00:04.1Z","user":"u","event":"e"}"#,
      #"{"ts":"2026-03-02T07:00:04+01:00","user":"u","event":"e"}"#,
      #"{"ts":"1969-12-31T23:59:59.999Z","user":"u","event":"e"}"#,
      #"{"ts":"2026-02-30T07:00:04Z","user":"u","event":"e"}"#,
      #"{"ts":"2026-13-02T07:00:04Z","user":"u","event":"e"}"#,
      #"{"ts":"2024-02-29T23:59:59.999Z","user":"u","event":"e"}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"\u00e9\ud83d\ude00\n\t\"\\\/","event":"e","screen":"a\u001bb"}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","n":-1.5e3,"m":0,"k":1E+2}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","deep":{"a":[1,{"b":null}]}}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","list":[]}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","event":"e"}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":7,"event":"e"}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","flow":false}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":null}"#,
      #"{"user":"u","event":"e"}"#,
      #"{"ts":"yesterday","user":"u","event":"e"}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e",}"#,
      // One nested value a line: with two, the old reader named whichever its dictionary gave.
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","a":[1,2,]}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","b":{"x":1 , }}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e",,"b":1}"#, #"{,}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","a":[,]}"#,
      #"{"ts":"2026-03-02T07:00:04.137Z","user":"u","event":"e"}"#,
      #"{"ts":"2026-11-27T23:59:59.998Z","user":"u","event":"e"}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e"} x"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","n":01}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","n":1.}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","n":.5}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","s":"\x"}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","s":"\ud83d"}"#,
      "{\"ts\":\"2026-03-02T07:00:04.250Z\",\"user\":\"u\",\"event\":\"e\",\"s\":\"a\u{1}b\"}",
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","n":tru}"#,
      #"[1, 2]"#, "", "{", "{}", "null", #""text""#,
      #"{"t\u0073":"2026-03-02T07:00:04.250Z","\u0075ser":"u","ev\u0065nt":"e","flo\u0077":"f","é":"x"}"#,
      #"{"ts":"2026-03-02T07:00:04\u002e250Z","user":"u","event":"e"}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","é":"\u00e9","s\u00e9":1}"#,
      "{\"ts\":\"2026-03-02T07:00:04.250Z\",\"user\":\"u\",\"event\":\"e\",\"a\u{1}\":1}",
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","a\x":1}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","n":1e400}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","flow":["f"],"a":{}}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","variant":null}"#,
      #"{"ts":"2026-03-02T07:00:04.250Z","user":"u","event":"e","variation_id":2,"variation":"quick"}"#,
    ]
    for line in lines {
      var bytes = Array(line.utf8)
      let parsed: Result<ReportEvent, EventLine.Problem> = bytes.withUnsafeMutableBufferPointer { buffer in
        Result { () throws(EventLine.Problem) in
          try EventLine.event(UnsafeBufferPointer(buffer), keeping: nil)
        }
      }
      switch (parsed, Self.reference(line)) {
      case (.success(let event), .success(let expected)): #expect(event == expected, "\(line)")
      case (.failure(let problem), .failure(let expected)):
        #expect(problem.message == expected.message, "\(line)")
      default: Issue.record("\(line): \(parsed) against \(Self.reference(line))")
      }
    }
  }
}
