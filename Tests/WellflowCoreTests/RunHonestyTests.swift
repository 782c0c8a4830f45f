import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore

/// A run must never pass falsely, and what a person typed never reaches its output.
@MainActor
@Suite("Run honesty")
struct RunHonestyTests {
  let workspace = Workspace()

  @Test func anOutcomeOfAnOlderRunDoesNotPassWhileANewerRunIsOnScreen() async throws {
    let path = workspace.write(
      "older.yaml",
      """
      name: older outcome
      steps:
        - start: mood.log
        - tap: save
        - expect: {flow: mood.log, outcome: completed}
        - start: mood.log
        - expect: {flow: mood.log, outcome: completed}
      """)
    let outcome = await wellflowRun([path])
    #expect(outcome.code == 1)
    #expect(
      outcome.err.first?.hasPrefix(
        "\(path):7:5: expect failed: mood.log is still presented on mood.log (its latest run has not ended), expected completed"
      ) == true, "\(outcome.err)")
  }

  @Test func typedTextIsShownAsItsLengthInEveryOutput() async throws {
    let secret = "my secret words"
    let path = workspace.write(
      "typed.yaml",
      """
      name: typed text
      steps:
        - start: mood.log
        - enter: {notes: "\(secret)"}
        - expect: {value: {notes: "\(secret)"}}
        - tap: save
        - expect: {data: {mood.latest.notes: "\(secret)"}}
        - start: mood.log
        - enter: {notes: "\(secret)"}
        - expect: {value: {notes: "something else"}}
      """)
    let junit = workspace.path("report.xml")
    let text = await wellflowRun([path]) { $0.junitPath = junit }
    let json = await wellflowRun([path]) { $0.format = .json }
    #expect(text.code == 1)
    #expect(json.code == 1)
    let outputs = [
      text.outText, text.errText, json.outText, json.errText,
      try String(contentsOfFile: junit, encoding: .utf8),
    ]
    for output in outputs {
      #expect(!output.contains(secret), "typed text leaked: \(output)")
      #expect(!output.contains("something else"), "expected text leaked: \(output)")
    }
    #expect(
      text.err.first?.hasPrefix(
        "\(path):10:5: expect failed: value of notes is text field, 15 characters, expected text field, 14 characters"
      ) == true, "\(text.err)")
    #expect(text.errText.contains("notes: text field = text field, 15 characters"))
    #expect(json.outText.contains("expect {value: {notes: text field, 15 characters}}"))
    #expect(json.outText.contains("expect {data: {mood.latest.notes: text field, 15 characters}}"))
  }

  @Test func aMismatchedFreeTextQueryShowsLengths() async throws {
    let path = workspace.write(
      "query.yaml",
      """
      name: notes query
      steps:
        - start: mood.log
        - enter: {notes: "private"}
        - tap: save
        - expect: {data: {mood.latest.notes: "public!!"}}
      """)
    let outcome = await wellflowRun([path])
    #expect(outcome.code == 1)
    #expect(
      outcome.err.first?.hasPrefix(
        "\(path):6:5: expect failed: mood.latest.notes is text field, 7 characters, expected text field, 8 characters"
      ) == true, "\(outcome.err)")
    #expect(!outcome.errText.contains("private"))
  }
}
