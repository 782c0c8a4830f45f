import FlowKit
import ScriptTestSupport
import Testing
import WellflowCore

@MainActor
@Suite("wellflow graph")
struct GraphTests {
  func graph(_ configuration: GraphConfiguration, registry: FlowRegistry? = nil) async -> (Int32, String) {
    let out = Locked<[String]>([])
    let code = await GraphCommand.execute(
      configuration, registry: registry,
      console: Console(out: { text in out.withLock { $0.append(text) } }, err: { _ in }))
    return (code, out.current.joined(separator: "\n"))
  }

  @Test func onboardingAsMermaid() async {
    let (code, text) = await graph(GraphConfiguration(flow: "onboarding"))
    #expect(code == 0)
    #expect(
      text == """
        flowchart TD
          n0["onboarding.welcome"]
          n1["onboarding.features"]
          n2["onboarding.skill"]
          n3["onboarding.finale"]
          n4(["completed"])
          n0 -->|"tap continue"| n1
          n1 -->|"tap continue"| n2
          n1 -->|"back"| n0
          n2 -->|"select skill beginner (+2 alike)"| n2
          n2 -->|"back"| n1
          n2 -->|"tap continue"| n3
          n3 -->|"tap continue"| n4
          n3 -->|"back"| n2
        """)
  }

  @Test func aFlowWithATimerHasTheClockAsAnAction() async {
    // mood.history reloads at the user's midnight: advancing to it is one more step.
    let (code, text) = await graph(GraphConfiguration(flow: "mood.history"))
    #expect(code == 0)
    #expect(text.contains("n0 -->|\"advance 54000s\"| n0"), "\(text)")
  }

  @Test func theShortOnboardingAsDot() async {
    var configuration = GraphConfiguration(flow: "onboarding")
    configuration.variant = "short"
    configuration.format = .dot
    let (code, text) = await graph(configuration)
    #expect(code == 0)
    #expect(
      text == """
        digraph "onboarding" {
          rankdir=TB;
          node [shape=box];
          "onboarding.welcome";
          "onboarding.skill";
          "onboarding.finale";
          "completed" [shape=doublecircle];
          "onboarding.welcome" -> "onboarding.skill" [label="tap continue"];
          "onboarding.skill" -> "onboarding.skill" [label="select skill beginner (+2 alike)"];
          "onboarding.skill" -> "onboarding.welcome" [label="back"];
          "onboarding.skill" -> "onboarding.finale" [label="tap continue"];
          "onboarding.finale" -> "completed" [label="tap continue"];
          "onboarding.finale" -> "onboarding.skill" [label="back"];
        }
        """)
  }

  @Test func alertsAreNodesOfTheirOwnAndEndingsComeLast() async throws {
    let (code, text) = await graph(GraphConfiguration(flow: "lab"), registry: try LabFeature.registry())
    #expect(code == 0)
    #expect(
      text == """
        flowchart TD
          n0["lab.form"]
          n1{{"lab.form + lab.confirm"}}
          n2["lab.done"]
          n3(["completed"])
          n4(["cancelled"])
          n0 -->|"enter note a few word"| n0
          n0 -->|"enter note #quot;#quot;"| n0
          n0 -->|"set level 1"| n0
          n0 -->|"set level 5"| n0
          n0 -->|"set level 10"| n0
          n0 -->|"toggle flag true"| n0
          n0 -->|"toggle flag false"| n0
          n0 -->|"select tags"| n0
          n0 -->|"select tags a (+2 alike)"| n0
          n0 -->|"close"| n4
          n0 -->|"tap ask"| n1
          n1 -->|"tap proceed"| n2
          n1 -->|"tap stay"| n0
          n2 -->|"tap finish"| n3
          n2 -->|"back"| n0
        """)
  }

  @Test func theSameFlowAlwaysPrintsTheSameGraph() async {
    let configuration = GraphConfiguration(flow: "journal")
    let first = await graph(configuration)
    let second = await graph(configuration)
    #expect(first.0 == 0)
    #expect(first.1 == second.1)
    #expect(first.1.contains("-->|\"select entry 1 (+1 alike, +118 more)\"|"), "\(first.1)")
  }
}
