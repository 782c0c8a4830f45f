import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowExplorer
import WellflowScript

@MainActor
@Suite("Exploration: states, option classes, completeness")
struct ExplorationCompletenessTests {
  @Test func theFullCheckInIsExploredWholeByDefault() async throws {
    let exploration = try await explore("checkin")
    #expect(exploration.violations.isEmpty, "\(exploration.violations)")
    #expect(exploration.problems.isEmpty, "\(exploration.problems)")
    #expect(
      exploration.declaredScreens == [
        "checkin.pet", "checkin.sensing", "checkin.naming", "checkin.shaping", "checkin.attributing",
        "checkin.evaluating", "checkin.acting",
      ])
    #expect(exploration.unreachedScreens.isEmpty)
    #expect(exploration.completed > 0)
    #expect(exploration.exhausted, "every state the check-in can show is within the default depth")
    #expect(
      exploration.shortestCompletion?.map(\.command) == [
        "tap begin", "tap continue", "select emotion calm", "tap continue", "tap continue", "tap continue",
        "select evaluation accept", "tap continue", "tap complete",
      ])
  }

  @Test func theQuickCheckInIsExploredWholeByDefault() async throws {
    let exploration = try await explore("checkin", variant: "quick")
    #expect(exploration.violations.isEmpty, "\(exploration.violations)")
    #expect(exploration.problems.isEmpty, "\(exploration.problems)")
    #expect(exploration.declaredScreens == ["checkin.sensing", "checkin.naming", "checkin.acting"])
    #expect(exploration.completed > 0)
    #expect(exploration.exhausted)
    #expect(exploration.shortestCompletion?.count == 4)
  }

  /// The 38 emotions differ only in the chosen value: one class, one edge, no 38 self-loops.
  @Test func theEmotionsAreOneClass() async throws {
    let exploration = try await explore("checkin", variant: "quick")
    let emotions = exploration.graph.edges.filter { $0.action.hasPrefix("select emotion") }
    #expect(
      emotions == [
        FlowGraph.Edge(
          from: "checkin.naming", action: "select emotion calm (+37 alike)", to: "checkin.naming")
      ])
    let labels = exploration.graph.edges.filter { $0.action.hasPrefix("select labels") }
    #expect(labels.map(\.action) == ["select labels", "select labels calm (+37 alike)"])
  }

  /// Up, down and done on a dial of 0…3: sequences of any length reach five states,
  /// each expanded once, so each of its actions is one edge.
  @Test func aStateReachedManyWaysIsExpandedOnce() async throws {
    let exploration = try await explore("shapes.dial", registry: ShapesFeature.registry())
    #expect(exploration.violations.isEmpty, "\(exploration.violations)")
    #expect(exploration.states == 5, "the dial at 0, 1, 2 and 3, and completed")
    #expect(exploration.edges == 10, "0: up, done; 1 and 2: up, down, done; 3: down, done")
    #expect(exploration.exhausted)
    #expect(exploration.deepest == 3)
    #expect(exploration.completed == 4, "done from each value")
  }

  @Test func aDeclaredScreenNoStateShowsIsAProblem() async throws {
    let exploration = try await explore("shapes.hidden", registry: ShapesFeature.registry())
    #expect(exploration.violations.isEmpty)
    #expect(exploration.unreachedScreens == ["hidden.secret"])
    #expect(
      exploration.problems == [
        ExploreViolation(
          kind: .unreachedScreen,
          message:
            "hidden.secret, declared by shapes.hidden, was not reached in any state it can reach (all 2 explored)",
          steps: [])
      ])
  }

  @Test func aFlowThatNeverCompletesIsAProblem() async throws {
    let exploration = try await explore("shapes.endless", registry: ShapesFeature.registry())
    #expect(exploration.violations.isEmpty)
    #expect(exploration.cancelled > 0)
    #expect(
      exploration.problems == [
        ExploreViolation(
          kind: .noCompletion,
          message: "shapes.endless did not complete in any state it can reach (all 3 explored)", steps: [])
      ])
  }

  @Test func aStateLimitStopsTheExplorationAndIsReported() async throws {
    let exploration = try await FlowExplorer(
      registry: try WellflowApp.makeRegistry(),
      options: FlowExplorer.Options(flow: "checkin", maxStates: 10)
    ).run()
    #expect(exploration.stoppedEarly)
    #expect(exploration.states == 10)
    #expect(exploration.limit == "the limit of 10 states was reached")
    #expect(
      exploration.problems.last
        == ExploreViolation(
          kind: .noCompletion,
          message:
            "checkin did not complete before the exploration stopped (the limit of 10 states was reached)",
          steps: []))
  }

  @Test func advancingTheClockReadsAsAScriptStep() {
    #expect(ExploreStep.advance(seconds: 90).scriptStep == "- advance: 90s")
    #expect(ExploreStep.advance(seconds: 90).command == "advance 90s")
    #expect(ExploreStep.advance(seconds: 0.35).scriptStep == "- advance: 0.35s")
    #expect(ExploreStep.tap("continue").scriptStep == "- tap: continue")
  }
}
