import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore
import WellflowExplorer
import WellflowScript

@MainActor
@Suite("wellflow explore")
struct ExploreTests {
  @Test func theReportPrintsPasteableScriptStepsAndExitsOne() async throws {
    let out = Locked<[String]>([])
    let code = await ExploreCommand.execute(
      ExploreConfiguration(flow: "broken.twice"), registry: try BrokenFeature.registry(),
      console: Console(out: { text in out.withLock { $0.append(text) } }, err: { _ in }))
    #expect(code == 1)
    let text = out.current.joined(separator: "\n")
    #expect(
      text.hasSuffix(
        """
        1 violation:

        ended more than once: broken.twice ended 2 times (completed, completed)
          reproduce with these script steps:
            - start: {flow: broken.twice, variant: standard}
            - tap: next
            - tap: finish
        """), "\(text)")
  }

  @Test func theShortestCompletionRunsAsAScript() async throws {
    let exploration = try await explore("journal", depth: 5)
    let steps = try #require(exploration.shortestCompletion)
    let workspace = Workspace()
    let script =
      ["name: journal from explore", "steps:"]
      + ExploreCommand.script(flow: "journal", variant: "standard", steps: steps).map { "  " + $0 }
      + ["  - expect: {flow: journal, outcome: completed, data: {journal.latest.primary: 1}}"]
    workspace.write("s.yaml", script.joined(separator: "\n"))
    let result = try await runScript("s.yaml", in: workspace, registry: WellflowApp.makeRegistry())
    #expect(result.failure == nil, "\(result.failure?.headline ?? "")")
  }

  @Test func jsonReportsCountsAndViolations() async throws {
    let out = Locked<[String]>([])
    var configuration = ExploreConfiguration(flow: "broken.twice")
    configuration.format = .json
    let code = await ExploreCommand.execute(
      configuration, registry: try BrokenFeature.registry(),
      console: Console(out: { text in out.withLock { $0.append(text) } }, err: { _ in }))
    #expect(code == 1)
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(out.current.joined().utf8)) as? [String: Any])
    #expect(json["flow"] as? String == "broken.twice")
    let violations = try #require(json["violations"] as? [[String: Any]])
    #expect(violations.first?["kind"] as? String == "ended more than once")
    #expect(
      violations.first?["steps"] as? [String] == [
        "- start: {flow: broken.twice, variant: standard}", "- tap: next", "- tap: finish",
      ])
  }

  @Test func unknownFlowsAndVariantsAreUsageErrors() async throws {
    let err = Locked<[String]>([])
    let console = Console(out: { _ in }, err: { text in err.withLock { $0.append(text) } })
    #expect(await ExploreCommand.execute(ExploreConfiguration(flow: "onboardin"), console: console) == 2)
    var configuration = ExploreConfiguration(flow: "onboarding")
    configuration.variant = "long"
    #expect(await ExploreCommand.execute(configuration, console: console) == 2)
    #expect(err.current.count == 2)
    #expect(
      err.current.first?.hasPrefix("error: no flow named 'onboardin' is registered (registered: onboarding, ")
        == true)
    #expect(err.current.last == "error: flow 'onboarding' has no variant 'long' (variants: standard, short)")
  }
}
