import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore

@MainActor
@Suite("wellflow explore and graph: option classes, depth and completeness reported")
struct ExploreCompletenessTests {
  /// Options whose screens look the same but whose `continue` leads elsewhere are not
  /// alike: plan c is explored on its own and reaches the paid screen; its select is
  /// drawn with the others (`+1 more`), since it also stays on the choosing screen.
  @Test func optionsTheFlowTellsApartAreClassesOfTheirOwn() async throws {
    let out = Locked<[String]>([])
    let code = await GraphCommand.execute(
      GraphConfiguration(flow: "shapes.plan"), registry: try ShapesFeature.registry(),
      console: Console(out: { text in out.withLock { $0.append(text) } }, err: { _ in }))
    #expect(code == 0)
    #expect(
      out.current.joined(separator: "\n") == """
        flowchart TD
          n0["plan.choose"]
          n1["plan.free"]
          n2["plan.paid"]
          n3(["completed"])
          n0 -->|"select plan a (+1 alike, +1 more)"| n0
          n0 -->|"tap continue"| n1
          n0 -->|"tap continue"| n2
          n1 -->|"tap finish"| n3
          n2 -->|"tap finish"| n3
        """)
  }

  @Test func anExplorationCutShortByItsDepthSaysWhatItMissedAndExitsOne() async throws {
    let out = Locked<[String]>([])
    var configuration = ExploreConfiguration(flow: "checkin")
    configuration.depth = 3
    let code = await ExploreCommand.execute(
      configuration, console: Console(out: { text in out.withLock { $0.append(text) } }, err: { _ in }))
    #expect(code == 1)
    let text = out.current.joined(separator: "\n")
    #expect(text.contains("(more states lie beyond depth 3)"), "\(text)")
    #expect(
      text.hasSuffix(
        """
          screens reached: 3 of 7 declared; not reached: checkin.shaping, checkin.attributing, checkin.evaluating, checkin.acting
        no violations
        5 problems (a greater --depth explores further):
        screen never reached: checkin.shaping, declared by checkin, was not reached within depth 3
        screen never reached: checkin.attributing, declared by checkin, was not reached within depth 3
        screen never reached: checkin.evaluating, declared by checkin, was not reached within depth 3
        screen never reached: checkin.acting, declared by checkin, was not reached within depth 3
        no completed ending: checkin did not complete within depth 3
        """), "\(text)")
  }

  @Test func anIncompleteGraphIsPrintedAndExitsOne() async throws {
    let err = Locked<[String]>([])
    var configuration = GraphConfiguration(flow: "onboarding")
    configuration.depth = 2
    let code = await GraphCommand.execute(
      configuration, console: Console(out: { _ in }, err: { text in err.withLock { $0.append(text) } }))
    #expect(code == 1)
    #expect(
      err.current == [
        "error: the graph is incomplete (more states lie beyond depth 2):",
        "  screen never reached: onboarding.finale, declared by onboarding, was not reached within depth 2",
        "  no completed ending: onboarding did not complete within depth 2",
      ])
  }
}
