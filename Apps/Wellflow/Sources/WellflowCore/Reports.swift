import FlowKit
import Foundation
import WellflowScript

/// The text transcript and the JSON document of a run. The text goes to a terminal or a
/// CI log, so whatever a script (or `-e`) wrote is printed through `terminalSafe`: a
/// script's escape sequences are shown, never acted on, and long names are clipped.
public enum TranscriptFormatter {
  /// The characters of a script's name or a step's label the text shows.
  static let nameLimit = 80

  public static func text(_ result: ScriptResult) -> String {
    var lines = [header(name: result.name, file: result.file, user: result.user)]
    for step in result.steps { lines.append(line(step)) }
    lines.append(footer(passed: result.passed, steps: result.steps.count, seconds: result.durationSeconds))
    return lines.joined(separator: "\n")
  }

  /// The transcript's first line, printed before the run's steps.
  static func header(name: String, file: String, user: String) -> String {
    "▶ \(terminalSafe(name, limit: nameLimit)) — \(terminalSafe(file)) (\(terminalSafe(user)))"
  }

  /// One step of the transcript, printed as the step ends.
  static func line(_ step: StepResult) -> String {
    let mark =
      switch step.status {
      case .passed: "✓"
      case .failed: "✗"
      case .warning: "!"
      case .skipped: "-"
      }
    let indent = String(repeating: "  ", count: step.depth + 1)
    // Padded by hand: Foundation's `padding` goes through NSString for every step.
    var place = "\(step.position.line):\(step.position.column)"
    if place.utf8.count < 7 { place += String(repeating: " ", count: 7 - place.utf8.count) }
    let label = step.label.map { "\(terminalSafe($0, limit: nameLimit)): " } ?? ""
    var line =
      "\(indent)\(place)\(mark) \(label)\(terminalSafe(step.summary)) → \(terminalSafe(step.screen))"
    if let message = step.message, step.status != .failed { line += "  (\(terminalSafe(message)))" }
    return line
  }

  /// The transcript's last line.
  static func footer(passed: Bool, steps count: Int, seconds: Double) -> String {
    let time = milliseconds(seconds)
    return passed ? "  passed: \(count) steps in \(time)" : "  FAILED after \(count) steps in \(time)"
  }

  /// `12.3 ms`: what `String(format: "%.1f ms")` prints, without its cost on every run.
  static func milliseconds(_ seconds: Double) -> String {
    let tenths = (seconds * 10_000).rounded()
    guard tenths.isFinite, abs(tenths) < 1e15 else { return String(format: "%.1f ms", seconds * 1000) }
    let whole = Int(tenths)
    return "\(whole < 0 ? "-" : "")\(abs(whole) / 10).\(abs(whole) % 10) ms"
  }

  public static func failure(_ result: ScriptResult) -> String {
    guard let failure = result.failure else { return "" }
    let screen = failure.currentScreen.split(separator: "\n").map { "  " + terminalSafe(String($0)) }
    return "\(terminalSafe(failure.headline))\n\(screen.joined(separator: "\n"))"
  }

  public static func summary(_ results: [ScriptResult], seconds: Double) -> String {
    summary(
      runs: results.count,
      failures: results.compactMap { result in result.failure.map { (result.name, $0.headline) } },
      seconds: seconds)
  }

  /// The summary from what a run keeps to the end: the count of runs and each failure.
  static func summary(runs: Int, failures: [(name: String, headline: String)], seconds: Double) -> String {
    var text =
      "\(runs) script run\(runs == 1 ? "" : "s"): \(runs - failures.count) passed, \(failures.count) failed"
      + " (\(milliseconds(seconds)))"
    for (name, headline) in failures {
      text += "\n  ✗ \(terminalSafe(name, limit: nameLimit)): \(terminalSafe(headline))"
    }
    return text
  }

  struct Document: Codable {
    var passed: Int
    var failed: Int
    var durationSeconds: Double
    var scripts: [ScriptResult]
  }

  static func encoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return encoder
  }

  public static func json(_ results: [ScriptResult], seconds: Double) -> String {
    let failed = results.filter { !$0.passed }.count
    let document = Document(
      passed: results.count - failed, failed: failed, durationSeconds: seconds, scripts: results)
    return (try? String(decoding: encoder().encode(document), as: UTF8.self)) ?? "{}"
  }

  /// The JSON document in pieces, so a run writes each script run as it ends and holds
  /// none: `jsonHead`, then `jsonScript` of each run (the first with `first`), then
  /// `jsonTail` give what `json` gives for the same runs.
  static func jsonHead(passed: Int, failed: Int, seconds: Double) -> String {
    let empty = Document(passed: passed, failed: failed, durationSeconds: seconds, scripts: [])
    let text = (try? String(decoding: encoder().encode(empty), as: UTF8.self)) ?? ""
    guard let opening = text.range(of: "\"scripts\" : [", options: .backwards) else { return "{" }
    return String(text[..<opening.upperBound]) + "\n"
  }

  static func jsonScript(_ result: ScriptResult, first: Bool, encoder: JSONEncoder) -> String {
    let text = (try? String(decoding: encoder.encode(result), as: UTF8.self)) ?? "{}"
    // An element of `scripts`, two levels in; strings hold no raw newline, so each line
    // is indented whole, but for the empty line of an empty array, which has no indent.
    var element = first ? "" : ",\n"
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      if index > 0 { element += "\n" }
      if !line.isEmpty { element += "    " + line }
    }
    return element
  }

  static let jsonTail = "\n  ]\n}"
}

/// A JUnit XML report: one `testcase` per script run with its steps, statuses and
/// positions inside, so CI shows where a journey broke.
public enum JUnitReport {
  public static func xml(_ results: [ScriptResult], seconds: Double) -> String {
    let failures = results.filter { !$0.passed }.count
    return head(tests: results.count, failures: failures, seconds: seconds)
      + results.map(testcase).joined() + tail
  }

  /// The lines before the first test case: the totals, known when every run has ended.
  static func head(tests: Int, failures: Int, seconds: Double) -> String {
    #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
      + #"<testsuites name="wellflow" tests="\#(tests)" failures="\#(failures)" time="\#(time(seconds))">"#
      + "\n"
      + #"  <testsuite name="wellflow run" tests="\#(tests)" failures="\#(failures)" errors="0" time="\#(time(seconds))">"#
      + "\n"
  }

  static let tail = "  </testsuite>\n</testsuites>\n"

  /// One run's `testcase`, each line ended, written as the run ends.
  static func testcase(_ result: ScriptResult) -> String {
    let classname = ((result.file as NSString).lastPathComponent as NSString).deletingPathExtension
    var lines = [
      #"    <testcase name="\#(escape(result.name)) (\#(escape(result.user)))" classname="\#(escape(classname))" file="\#(escape(result.file))" time="\#(time(result.durationSeconds))">"#
    ]
    if let failure = result.failure {
      lines.append(
        #"      <failure message="\#(escape(failure.headline))" type="StepFailure">\#(escape(failure.headline + "\n" + failure.currentScreen))</failure>"#
      )
    }
    lines.append("      <system-out>")
    for step in result.steps {
      let indent = String(repeating: "  ", count: step.depth)
      let label = step.label.map { " [\($0)]" } ?? ""
      let message = step.message.map { " — \($0)" } ?? ""
      lines.append(
        escape(
          "\(step.position) \(step.status.rawValue) \(indent)\(step.summary)\(label) → \(step.screen)\(message)"
        ))
    }
    lines.append("      </system-out>")
    lines.append("    </testcase>")
    return lines.joined(separator: "\n") + "\n"
  }

  private static func time(_ seconds: Double) -> String { String(format: "%.4f", seconds) }

  /// Markup escaped; characters XML 1.0 cannot hold even as references (C0 controls but
  /// tab and newline, U+FFFE, U+FFFF) and those a log viewer may act on (DEL, C1) are
  /// written as the text `\u{1B}`, as the terminal shows them, so the file stays
  /// well-formed and says what the script held.
  static func escape(_ text: String) -> String {
    var escaped = ""
    for scalar in text.unicodeScalars {
      switch scalar.value {
      case 0x26: escaped += "&amp;"
      case 0x3C: escaped += "&lt;"
      case 0x3E: escaped += "&gt;"
      case 0x22: escaped += "&quot;"
      case 0x27: escaped += "&apos;"
      case 0x09, 0x0A: escaped.unicodeScalars.append(scalar)
      case 0x00...0x1F, 0x7F...0x9F: escaped += terminalSafe(String(Character(scalar)))
      case 0xFFFE, 0xFFFF: escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      default: escaped.unicodeScalars.append(scalar)
      }
    }
    return escaped
  }
}
