import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Escape sequences a script or `-e` carries (YAML's `\e`, `\a`, `\x1b`, `\0`, which the
/// loader accepts) are printed as text, never acted on by the terminal: no screen
/// cleared, no window title set, no clipboard written (OSC 52).
@MainActor
@Suite("Terminal escapes from scripts")
struct TerminalEscapeTests {
  let workspace = Workspace()

  /// Clears the screen and sets the window title in its name, rings and turns text red in a
  /// label, and expects text that `-e` gives: an OSC 52 clipboard write.
  static let script = #"""
    name: "\e[2J\e]0;pwned\aFirst day"
    steps:
      - launch
      - label: "bell\a\x1b[31m"
        tap: continue
      - expect: {text: "${X}"}
    """#
  static let clipboard = "X=\u{1B}]52;c;aGk=\u{07}"

  @Test func theTranscriptAndTheFailureShowEscapesAsText() async throws {
    let path = workspace.write("s.yaml", Self.script + "\n")
    let outcome = await wellflowRun([path]) { $0.variables = [Self.clipboard] }
    #expect(outcome.code == 1)
    let transcript = outcome.outText.components(separatedBy: "\n")
    #expect(
      Array(transcript.prefix(4)) == [
        "▶ \\u{1B}[2J\\u{1B}]0;pwned\\u{7}First day — \(path) (user-1)",
        "  3:5    ✓ launch → onboarding.welcome",
        "  4:5    ✓ bell\\u{7}\\u{1B}[31m: tap continue → onboarding.features",
        "  6:5    ✗ expect {text: \\u{1B}]52;c;aGk=\\u{7}} → onboarding.features",
      ])
    #expect(
      outcome.err.first?.components(separatedBy: "\n").first
        == "\(path):6:5: expect failed: '\\u{1B}]52;c;aGk=\\u{7}' is not on screen onboarding.features")
    #expect(
      transcript.last?.hasPrefix(
        "  ✗ \\u{1B}[2J\\u{1B}]0;pwned\\u{7}First day: \(path):6:5: expect failed: '\\u{1B}]52;c;aGk=\\u{7}' is not on screen onboarding.features"
      ) == true, "\(transcript)")
    for output in [outcome.outText, outcome.errText] {
      #expect(!output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(output)")
    }
  }

  @Test func aLongNameIsClippedInTheTranscript() async throws {
    let name = String(repeating: "n", count: 200)
    let path = workspace.write("s.yaml", "name: \(name)\nsteps:\n  - label: \(name)\n    launch:\n")
    let outcome = await wellflowRun([path])
    #expect(outcome.code == 0)
    let clipped = String(repeating: "n", count: 79) + "…"
    #expect(
      outcome.out.first?.hasPrefix("▶ \(clipped) — \(path) (user-1)\n  3:5    ✓ \(clipped): launch") == true)
  }

  @Test func aBadDashEValueIsEchoedEscaped() async {
    let outcome = await wellflowRun([workspace.path("none.yaml")]) { $0.variables = ["\u{1B}[2J"] }
    #expect(outcome.code == 2)
    #expect(outcome.err == ["error: -e takes KEY=VALUE, got '\\u{1B}[2J'"])
  }

  @Test func problemsQuoteWhatTheScriptSaidEscaped() async {
    // A bidirectional override would reorder the rest of the line on screen.
    let path = workspace.write("s.yaml", "name: x\nsteps:\n  - tap: \"con\\u202Etinue\"\n")
    let outcome = await wellflowRun([path])
    #expect(outcome.code == 2)
    #expect(
      outcome.err == [
        "\(path):3:10: unknown element 'con\\u{202E}tinue': no registered screen has it (did you mean 'continue'?)",
        "1 problem found; no script ran",
      ])
  }

  /// XML 1.0 cannot hold most C0 controls even as character references: the JUnit file
  /// writes them as text and stays well-formed.
  @Test func theJUnitReportStaysWellFormed() async throws {
    let path = workspace.write(
      "s.yaml", Self.script.replacingOccurrences(of: "First day", with: "\\0\\x7F\\x9B<&>") + "\n")
    let report = workspace.path("report.xml")
    let outcome = await wellflowRun([path]) {
      $0.variables = [Self.clipboard]
      $0.junitPath = report
    }
    #expect(outcome.code == 1)
    let text = try String(contentsOfFile: report, encoding: .utf8)
    let document = try XMLDocument(xmlString: text, options: [])
    let testcase = try #require(try document.nodes(forXPath: "//testcase").first as? XMLElement)
    #expect(
      testcase.attribute(forName: "name")?.stringValue
        == "\\u{1B}[2J\\u{1B}]0;pwned\\u{7}\\u{0}\\u{7F}\\u{9B}<&> (user-1)")
    let failure = try #require(testcase.elements(forName: "failure").first)
    #expect(
      failure.attribute(forName: "message")?.stringValue
        == "\(path):6:5: expect failed: '\\u{1B}]52;c;aGk=\\u{7}' is not on screen onboarding.features")
    let steps = testcase.elements(forName: "system-out").first?.stringValue ?? ""
    #expect(steps.contains("\(path):4:5 passed tap continue [bell\\u{7}\\u{1B}[31m] → onboarding.features"))
  }

  @Test func playShowsPipedEscapesAsText() async throws {
    var input = ["enter notes \u{1B}]0;t\u{07}", "tap \u{1B}[2J"][...]
    let out = Locked<[String]>([])
    let code = await PlayCommand.execute(
      PlayConfiguration(flow: "mood.log"), readLine: { input.popFirst() },
      console: Console(out: { text in out.withLock { $0.append(text) } }, err: { _ in }))
    #expect(code == 1)
    let text = out.current.joined(separator: "\n")
    #expect(text.contains("> enter notes \\u{1B}]0;t\\u{7}"))
    #expect(text.contains("(up to 500 characters) = \"\\u{1B}]0;t\\u{7}\""), "\(text)")
    #expect(text.contains("> tap \\u{1B}[2J"))
    #expect(text.contains("error: mood.log has no element '\\u{1B}[2J' (elements: score, notes, date, save)"))
    #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(text)")
  }
}
