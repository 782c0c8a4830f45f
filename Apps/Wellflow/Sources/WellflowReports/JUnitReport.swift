import FlowKit
import Foundation
import WellflowScript

/// A JUnit XML report: one `testcase` per script run with its steps, statuses and
/// positions inside, so CI shows where a journey broke.
public enum JUnitReport {
  public static func xml(_ results: [ScriptResult], seconds: Double) -> String {
    let failures = results.filter { !$0.passed }.count
    return head(tests: results.count, failures: failures, seconds: seconds)
      + results.map(testcase).joined() + tail
  }

  /// The lines before the first test case: the totals, known when every run has ended.
  package static func head(tests: Int, failures: Int, seconds: Double) -> String {
    #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
      + #"<testsuites name="wellflow" tests="\#(tests)" failures="\#(failures)" time="\#(time(seconds))">"#
      + "\n"
      + #"  <testsuite name="wellflow run" tests="\#(tests)" failures="\#(failures)" errors="0" time="\#(time(seconds))">"#
      + "\n"
  }

  package static let tail = "  </testsuite>\n</testsuites>\n"

  /// One run's `testcase`, each line ended, written as the run ends.
  package static func testcase(_ result: ScriptResult) -> String {
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
