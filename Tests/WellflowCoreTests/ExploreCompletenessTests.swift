import FlowKit
import Foundation
import Testing
import WellflowCore
import WellflowScript

@MainActor
@Suite("wellflow explore: states, option classes, completeness")
struct ExploreCompletenessTests {
  func explore(
    _ flow: String, variant: String? = nil, depth: Int = FlowExplorer.defaultDepth,
    registry: FlowRegistry? = nil
  ) async throws -> Exploration {
    let registry = try registry ?? WellflowApp.makeRegistry()
    return try await FlowExplorer(
      registry: registry, options: FlowExplorer.Options(flow: flow, variant: variant, depth: depth)
    ).run()
  }

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

/// Small flows whose exploration is known exactly.
enum ShapesFeature: FlowFeature {
  static func registry() throws -> FlowRegistry {
    var registry = FlowRegistry()
    try registry.register(ShapesFeature.self)
    return registry
  }

  static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try registry.register(
      FlowDefinition(
        id: "shapes.dial", summary: "a value of 0…3 moved up and down", variants: ["standard"],
        screens: [ScreenDeclaration("dial.main", elements: ["value", "up", "down", "done"])],
        make: { _ in DialCoordinator() }))
    try registry.register(
      FlowDefinition(
        id: "shapes.hidden", summary: "declares a screen it never shows", variants: ["standard"],
        screens: [
          ScreenDeclaration("hidden.start", elements: ["finish"]),
          ScreenDeclaration("hidden.secret", elements: ["finish"]),
        ],
        make: { _ in HiddenCoordinator() }))
    try registry.register(
      FlowDefinition(
        id: "shapes.endless", summary: "can only be closed", variants: ["standard"],
        screens: [
          ScreenDeclaration("endless.first", elements: ["next"]),
          ScreenDeclaration("endless.second", elements: []),
        ],
        make: { _ in EndlessCoordinator() }))
    try registry.register(
      FlowDefinition(
        id: "shapes.plan", summary: "two plans alike, one leading elsewhere", variants: ["standard"],
        screens: [
          ScreenDeclaration("plan.choose", elements: ["plan", "continue"]),
          ScreenDeclaration("plan.free", elements: ["finish"]),
          ScreenDeclaration("plan.paid", elements: ["finish"]),
        ],
        make: { _ in PlanCoordinator() }))
  }
}

final class DialCoordinator: FlowCoordinator<Int> {
  private var value = 0

  override var screen: Screen {
    Screen(
      id: "dial.main", title: "Dial",
      elements: [
        .info("value", "Value", value: .number(Double(value))), .button("up", "Up", enabled: value < 3),
        .button("down", "Down", enabled: value > 0), .button("done", "Done"),
      ])
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .tap("up"): value += 1
    case .tap("down"): value -= 1
    case .tap("done"): complete(value)
    default: break
    }
  }
}

final class HiddenCoordinator: FlowCoordinator<Void> {
  override var screen: Screen {
    Screen(id: "hidden.start", title: "Start", elements: [.button("finish", "Finish")])
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    if action == .tap("finish") { complete(()) }
  }
}

final class EndlessCoordinator: FlowCoordinator<Void> {
  private var second = false

  override var screen: Screen {
    second
      ? Screen(id: "endless.second", title: "Second", canGoBack: true, canClose: true)
      : Screen(id: "endless.first", title: "First", elements: [.button("next", "Next")], canClose: true)
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .tap("next"): second = true
    case .back: second = false
    case .close: cancel()
    default: break
    }
  }
}

/// Plans a and b lead to the free screen, c to the paid one; the choosing screen looks
/// the same whichever is chosen.
final class PlanCoordinator: FlowCoordinator<String> {
  private var plan: String?
  private var page = "plan.choose"

  override var screen: Screen {
    switch page {
    case "plan.choose":
      Screen(
        id: page, title: "Choose a plan",
        elements: [
          .singleChoice(
            "plan", "Plan", options: ["a", "b", "c"].map { ChoiceOption(id: $0, label: "Plan \($0)") },
            selected: plan),
          .button("continue", "Continue", enabled: plan != nil),
        ])
    default:
      Screen(id: page, title: "Plan \(plan ?? "")", elements: [.button("finish", "Finish")])
    }
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .select("plan", let ids): plan = ids.first
    case .tap("continue"): page = plan == "c" ? "plan.paid" : "plan.free"
    case .tap("finish"): complete(plan ?? "")
    default: break
    }
  }
}
