import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import YAMLTree

@testable import WellflowCore
@testable import WellflowReports
@testable import WellflowScript

/// A run's memory is bounded by what its outputs need: no output keeps every run or
/// every step of a run (issue 28), and the HTML report draws a bounded number of runs
/// (issue 29).
@MainActor
@Suite("wellflow run memory and report bounds")
struct RunMemoryTests {
  let workspace = Workspace()

  private func passingScript() -> String {
    workspace.write(
      "passes.yaml",
      """
      name: passes
      steps:
        - start: {flow: onboarding, variant: short}
        - tap: continue
      """)
  }

  /// Runs `wellflow run` and gives what it held after each script run.
  private func run(_ paths: [String], _ configure: (inout RunConfiguration) -> Void) async
    -> (code: Int32, out: [String], memory: [RunCommand.RunMemory])
  {
    var configuration = RunConfiguration(paths: paths)
    configure(&configuration)
    let out = Locked<[String]>([])
    var memory: [RunCommand.RunMemory] = []
    let code = await RunCommand.execute(
      configuration, console: Console(out: { text in out.withLock { $0.append(text) } }, err: { _ in }),
      afterEachRun: { memory.append($0) })
    return (code, out.current, memory)
  }

  @Test func aQuietRunOfManyUsersHoldsNoRunAndNoStep() async throws {
    let script = passingScript()
    let outcome = await run([script]) {
      $0.quiet = true
      $0.users = 120
    }
    #expect(outcome.code == 0)
    #expect(outcome.memory.count == 120)
    #expect(outcome.memory.allSatisfy { $0.heldRuns == 0 && $0.heldSteps == 0 && $0.heldRows == 0 })
    #expect(outcome.out.count == 1)
    #expect(outcome.out[0].hasPrefix("120 script runs: 120 passed, 0 failed ("))
  }

  @Test func reportsHoldOnlyTheRunsTheHTMLReportDraws() async throws {
    let script = passingScript()
    let junit = workspace.path("junit.xml")
    let html = workspace.path("report.html")
    let outcome = await run([script]) {
      $0.users = 120
      $0.format = .json
      $0.junitPath = junit
      $0.htmlPath = html
    }
    #expect(outcome.code == 0)
    #expect(outcome.memory.map(\.heldRuns).max() == RunHTMLReport.passingRunsWithScreens)
    #expect(outcome.memory.allSatisfy { $0.heldSteps <= 2 * RunHTMLReport.passingRunsWithScreens })
    #expect(outcome.memory.last?.heldRows == 70)
    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(outcome.out.joined(separator: "\n").utf8)) as? [String: Any]
    )
    #expect((document["scripts"] as? [[String: Any]])?.count == 120)
    #expect(document["passed"] as? Int == 120)
    let xml = try String(contentsOfFile: junit, encoding: .utf8)
    #expect(xml.components(separatedBy: "<testcase ").count - 1 == 120)
    #expect(xml.contains(#"<testsuites name="wellflow" tests="120" failures="0""#))
  }

  /// The transcript comes as the run goes, in pieces of whole lines, and reads as it did.
  @Test func theTranscriptOfAManyStepRunIsPrintedInPiecesThatReadAsOne() async throws {
    let script = workspace.write(
      "many.yaml",
      """
      name: many steps
      steps:
        - start: {flow: onboarding, variant: short}
        - repeat:
            times: 3000
            steps:
              - advance: 1s
      """)
    let outcome = await run([script]) { _ in }
    #expect(outcome.code == 0)
    #expect(outcome.out.count > 2)
    #expect(outcome.out.dropLast().allSatisfy { !$0.hasSuffix("\n") && !$0.hasPrefix("\n") })
    let lines = outcome.out.dropLast().joined(separator: "\n").split(
      separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.first?.hasPrefix("▶ many steps — \(script) (") == true)
    #expect(lines.count == 3004)
    #expect(lines.last?.hasPrefix("  passed: 3002 steps in ") == true)
    #expect(lines.dropFirst().dropLast().allSatisfy { $0.hasPrefix("  ") && $0.contains("✓") })
  }

  /// Without `keepsSteps` every step reaches `onStep` and the runner holds none; with it,
  /// the result takes them and the runner keeps none once the run ends.
  @Test func aRunnerThatKeepsNoStepsHoldsNone() async throws {
    workspace.write(
      "repeat.yaml",
      """
      name: repeats
      steps:
        - start: lab
        - repeat:
            times: 2000
            steps:
              - advance: 1s
      """)
    let registry = try LabFeature.registry()
    let script = try ScriptLoader.load(
      path: workspace.path("repeat.yaml"), vocabulary: ScriptVocabulary(registry: registry)
    ).get()
    let runner = ScriptRunner(registry: registry, options: ScriptRunner.Options(keepsSteps: false))
    var seen = 0
    var mostHeld = 0
    runner.onStep = { _ in
      seen += 1
      mostHeld = max(mostHeld, runner.retainedSteps)
    }
    let result = await runner.run(script)
    #expect(result.passed)
    #expect(seen == 2002)
    #expect(mostHeld == 0)
    #expect(result.steps.isEmpty)

    runner.options.keepsSteps = true
    let kept = await runner.run(script)
    #expect(kept.steps.count == 2002)
    #expect(runner.retainedSteps == 0)
  }

  /// The JSON document and the JUnit report built a run at a time, through a spool that
  /// goes to a file after a few bytes, are the documents built from every run at once.
  @Test func spooledJSONAndJUnitAreTheWholeDocuments() throws {
    let results = (1...7).map { sampleResult($0, failing: $0 == 4) }
    let encoder = TranscriptFormatter.encoder()
    for limit in [64, 1 << 20] {
      let json = Spool(memoryLimit: limit)
      let junit = Spool(memoryLimit: limit)
      for (index, result) in results.enumerated() {
        try json.append(TranscriptFormatter.jsonScript(result, first: index == 0, encoder: encoder))
        try junit.append(JUnitReport.testcase(result))
      }
      #expect(json.isInMemory == (limit > 64))
      var printed: [String] = []
      try SpooledReport.print(
        head: TranscriptFormatter.jsonHead(passed: 6, failed: 1, seconds: 1.25), body: json,
        tail: TranscriptFormatter.jsonTail, to: { printed.append($0) })
      #expect(printed.joined(separator: "\n") == TranscriptFormatter.json(results, seconds: 1.25))
      #expect((printed.count > 1) == (limit == 64))
      let file = workspace.path("junit-\(limit).xml")
      try SpooledReport.write(
        head: JUnitReport.head(tests: 7, failures: 1, seconds: 1.25), body: junit, tail: JUnitReport.tail,
        to: file, as: "the JUnit report")
      #expect(try String(contentsOfFile: file, encoding: .utf8) == JUnitReport.xml(results, seconds: 1.25))
    }
  }
}
