import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore

@MainActor
@Suite("wellflow run --html and --quiet")
struct RunHTMLReportTests {
  let workspace = Workspace()

  /// A passing script named so that it runs first, and one that fails after typing.
  private func writeScripts() -> (passing: String, failing: String) {
    let passing = workspace.write(
      "a-passes.yaml",
      """
      name: passes
      steps:
        - start: {flow: onboarding, variant: short}
        - tap: continue
      """)
    let failing = workspace.write(
      "b-fails.yaml",
      """
      name: fails after typing
      steps:
        - start: mood.log
        - enter: {notes: "my private words"}
        - expect: {screen: mood.history}
      """)
    return (passing, failing)
  }

  @Test func theReportPutsFailuresFirstWithTheirPositionAndScreenAndTypedTextAsItsLength() async throws {
    let (_, failing) = writeScripts()
    let report = workspace.path("report.html")
    let outcome = await wellflowRun([workspace.path]) { $0.htmlPath = report }
    #expect(outcome.code == 1)
    let html = try String(contentsOfFile: report, encoding: .utf8)
    #expect(html.contains("data-failed=\"1\" data-passed=\"1\""))
    let failures = try #require(html.range(of: "<section id=\"failures\">"))
    let passed = try #require(html.range(of: "<section id=\"passed\">"))
    #expect(failures.lowerBound < passed.lowerBound)
    let failureMessage = "\(failing):5:5: expect failed: screen is mood.log, expected mood.history"
    let message = try #require(html.range(of: "<pre class=\"wr-message\">\(failureMessage)</pre>"))
    #expect(message.lowerBound > failures.lowerBound && message.upperBound < passed.lowerBound)
    // The screen it failed on, drawn, with the typed notes as their length only.
    #expect(
      html.contains(
        "<div class=\"wr-failure-screen\"><p>The screen when it failed:</p><div class=\"wf-phone\" inert data-screen=\"mood.log\">"
      ))
    #expect(html.contains("text field, 16 characters"))
    #expect(!html.contains("private"))
    // Each step: status, position, duration and the screen after it.
    #expect(
      html.contains("<span class=\"wr-status\">passed</span><code class=\"wr-pos\">\(failing):4:5</code>"))
    #expect(
      html.contains("<span class=\"wr-status\">failed</span><code class=\"wr-pos\">\(failing):5:5</code>"))
    #expect(html.contains(" ms</span>"))
    #expect(html.contains("data-screen=\"onboarding.skill\""))
    #expect(!html.contains("http://") && !html.contains("https://"))
  }

  @Test func quietPrintsOnlyTheFailuresAndTheSummary() async throws {
    let (_, failing) = writeScripts()
    let outcome = await wellflowRun([workspace.path]) { $0.quiet = true }
    #expect(outcome.code == 1)
    #expect(outcome.out.count == 1)
    #expect(outcome.outText.hasPrefix("2 script runs: 1 passed, 1 failed"))
    #expect(!outcome.outText.contains("▶"))
    #expect(outcome.errText.hasPrefix("\(failing):5:5: expect failed"))
  }

  @Test func stepDurationsAreInTheJSONButScreensAreNot() async throws {
    let (passing, _) = writeScripts()
    let outcome = await wellflowRun([passing]) { $0.format = .json }
    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(outcome.outText.utf8)) as? [String: Any])
    let scripts = try #require(document["scripts"] as? [[String: Any]])
    let steps = try #require(scripts.first?["steps"] as? [[String: Any]])
    #expect(steps.count == 2)
    #expect(steps.allSatisfy { ($0["durationSeconds"] as? Double).map { $0 >= 0 } == true })
    #expect(steps.allSatisfy { $0["screenAfter"] == nil })
  }
}
