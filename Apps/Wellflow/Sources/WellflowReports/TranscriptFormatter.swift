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
  package static func header(name: String, file: String, user: String) -> String {
    "▶ \(terminalSafe(name, limit: nameLimit)) — \(terminalSafe(file)) (\(terminalSafe(user)))"
  }

  /// One step of the transcript, printed as the step ends.
  package static func line(_ step: StepResult) -> String {
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
  package static func footer(passed: Bool, steps count: Int, seconds: Double) -> String {
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
  package static func summary(runs: Int, failures: [(name: String, headline: String)], seconds: Double)
    -> String
  {
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

  package static func encoder() -> JSONEncoder {
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
  package static func jsonHead(passed: Int, failed: Int, seconds: Double) -> String {
    let empty = Document(passed: passed, failed: failed, durationSeconds: seconds, scripts: [])
    let text = (try? String(decoding: encoder().encode(empty), as: UTF8.self)) ?? ""
    guard let opening = text.range(of: "\"scripts\" : [", options: .backwards) else { return "{" }
    return String(text[..<opening.upperBound]) + "\n"
  }

  package static func jsonScript(_ result: ScriptResult, first: Bool, encoder: JSONEncoder) -> String {
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

  package static let jsonTail = "\n  ]\n}"
}
