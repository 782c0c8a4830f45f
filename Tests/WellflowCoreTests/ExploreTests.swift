import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore
import WellflowScript

@MainActor
@Suite("wellflow explore")
struct ExploreTests {
  func explore(
    _ flow: String, variant: String? = nil, depth: Int = FlowExplorer.defaultDepth,
    registry: FlowRegistry? = nil
  ) async throws -> Exploration {
    let registry = try registry ?? WellflowApp.makeRegistry()
    return try await FlowExplorer(
      registry: registry, options: FlowExplorer.Options(flow: flow, variant: variant, depth: depth)
    ).run()
  }

  @Test func onboardingToDepthSixHasNoViolationsAndCompletes() async throws {
    let exploration = try await explore("onboarding", depth: 6)
    #expect(exploration.violations.isEmpty, "\(exploration.violations)")
    #expect(exploration.completed > 0)
    #expect(exploration.cancelled == 0, "onboarding has no close")
    #expect(
      exploration.shortestCompletion == [
        .tap("continue"), .tap("continue"), .select("skill", ["beginner"]), .tap("continue"),
        .tap("continue"),
      ])
    #expect(exploration.refusalChecks > 0)
    #expect(
      exploration.states == 6,
      "welcome, features, skill (none, then one class of three skills), finale, completed")
    #expect(exploration.problems.isEmpty, "\(exploration.problems)")
  }

  @Test func theShortOnboardingCompletesInFourActions() async throws {
    let exploration = try await explore("onboarding", variant: "short", depth: 4)
    #expect(exploration.violations.isEmpty)
    #expect(exploration.shortestCompletion?.count == 4)
  }

  @Test func journalToDepthFiveHasNoViolationsAndReachesBothEndings() async throws {
    let exploration = try await explore("journal", depth: 5)
    #expect(exploration.violations.isEmpty, "\(exploration.violations)")
    #expect(
      exploration.shortestCancellation == [.close] || exploration.shortestCancellation == [.tap("close")])
    #expect(
      exploration.shortestCompletion == [
        .select("entry", ["1"]), .tap("confirm"), .tap("accept"), .tap("close"),
      ])
  }

  @Test func theCheckInIsExploredLikeAnyOtherRegisteredFlow() async throws {
    let full = try await explore("checkin", depth: 3)
    #expect(full.violations.isEmpty, "\(full.violations)")
    #expect(full.shortestCancellation?.count == 1, "close on the pet screen cancels at once")
    let quick = try await explore("checkin", variant: "quick", depth: 3)
    #expect(quick.violations.isEmpty, "\(quick.violations)")
  }

  @Test func everyInputKindIsTriedAndTheLabFlowKeepsTheContract() async throws {
    let exploration = try await explore("lab", depth: 4, registry: LabFeature.registry())
    #expect(exploration.violations.isEmpty, "\(exploration.violations)")
    #expect(exploration.completed > 0)
    #expect(exploration.cancelled > 0)
  }

  @Test func offeredActionsFollowWhatTheScreenShows() throws {
    let screen = LabCoordinator(store: InMemoryKeyValueStore()).screen
    #expect(
      FlowExplorer.offeredActions(on: screen) == [
        .enter("note", "a few word"), .enter("note", ""), .set("level", 1), .set("level", 5),
        .set("level", 10),
        .toggle("flag", true), .toggle("flag", false), .select("tags", []), .select("tags", ["a"]),
        .select("tags", ["b"]), .select("tags", ["c"]), .close,
      ])
    #expect(
      FlowExplorer.refusableActions(on: screen).map(\.0) == [
        .tap("explore.missing"), .tap("ask"), .back, .enter("note", String(repeating: "x", count: 11)),
        .set("level", 11), .select("tags", ["explore.missing"]),
      ])
  }

  @Test func underAnAlertOnlyItsButtonsAreOfferedAndTheRestMustBeRefused() {
    let screen = Screen(
      id: "s", title: "S", elements: [.button("go", "Go")],
      alert: Alert(id: "a", title: "A", message: "", buttons: [AlertButton(id: "ok", label: "OK")]),
      canGoBack: true, canClose: true)
    #expect(FlowExplorer.offeredActions(on: screen) == [.tap("ok")])
    #expect(
      FlowExplorer.refusableActions(on: screen).map(\.0) == [
        .tap("explore.missing"), .tap("go"), .back, .close,
      ])
  }

  @Test func aFlowThatEndsTwiceIsReportedWithItsShortestSequence() async throws {
    let exploration = try await explore("broken.twice", registry: BrokenFeature.registry())
    #expect(
      exploration.violations == [
        ExploreViolation(
          kind: .endedTwice, message: "broken.twice ended 2 times (completed, completed)",
          steps: [.tap("next"), .tap("finish")])
      ])
  }

  @Test func aCoordinatorKeptAliveAfterItsEndingIsReported() async throws {
    let exploration = try await explore("broken.leaky", registry: BrokenFeature.registry())
    #expect(exploration.violations.map(\.kind) == [.notReleased])
    #expect(exploration.violations.first?.steps == [.tap("finish")])
    #expect(
      exploration.violations.first?.message
        == "broken.leaky's coordinator (LeakyCoordinator) is still alive after the flow completed")
  }

  @Test func aRefusalThatChangesTheScreenAndARefusedAlertButtonAreReported() async throws {
    let exploration = try await explore("broken.sloppy", depth: 3, registry: BrokenFeature.registry())
    let byKind = Dictionary(grouping: exploration.violations, by: \.kind)
    #expect(Set(byKind.keys) == [.alertButtonRefused, .refusedActionChangedState])
    #expect(byKind[.refusedActionChangedState]?.first?.steps == [.tap("count")])
    #expect(
      byKind[.refusedActionChangedState]?.first?.message
        == "sloppy.main: `tap count` was refused (sloppy.main: not now) but 'counter' changed from 0 to 1")
    #expect(byKind[.alertButtonRefused]?.first?.steps == [.tap("ask"), .tap("ok")])
  }

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

  @Test func progressIsReportedDuringLongExplorations() async throws {
    var lines: [String] = []
    let explorer = FlowExplorer(
      registry: try WellflowApp.makeRegistry(),
      options: FlowExplorer.Options(flow: "journal", depth: 3, progressInterval: .zero),
      progress: { lines.append($0) })
    _ = try await explorer.run()
    #expect(
      lines.first?.hasPrefix("explore journal: depth 1 of 3, 1 sequences") == true, "\(lines.first ?? "")")
  }

  @Test func actionsReadAsScriptSteps() {
    #expect(UserAction.tap("continue").scriptStep == "- tap: continue")
    #expect(UserAction.select("labels", ["calm", "proud"]).scriptStep == "- select: {labels: [calm, proud]}")
    #expect(UserAction.select("labels", []).scriptStep == "- select: {labels: []}")
    #expect(UserAction.select("layer", ["1"]).scriptStep == "- select: {layer: 1}")
    #expect(UserAction.select("answer", ["yes"]).scriptStep == "- select: {answer: \"yes\"}")
    #expect(
      UserAction.enter("response", "say \"hi\"").scriptStep == "- enter: {response: \"say \\\"hi\\\"\"}")
    #expect(UserAction.set("score", 8).scriptStep == "- set: {score: 8}")
    #expect(UserAction.toggle("x", true).scriptStep == "- toggle: {x: true}")
    #expect(UserAction.back.scriptStep == "- back")
  }
}

/// Flows that break the contract on purpose, each in one way.
enum BrokenFeature: FlowFeature {
  static func registry() throws -> FlowRegistry {
    var registry = FlowRegistry()
    try registry.register(BrokenFeature.self)
    return registry
  }

  static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try registry.register(
      FlowDefinition(
        id: "broken.twice", summary: "reports its ending twice", variants: ["standard"],
        screens: [
          ScreenDeclaration("twice.start", elements: ["next"]),
          ScreenDeclaration("twice.end", elements: ["finish"]),
        ],
        make: { _ in TwiceFlow() }))
    try registry.register(
      FlowDefinition(
        id: "broken.leaky", summary: "keeps itself alive after it ended", variants: ["standard"],
        screens: [ScreenDeclaration("leaky.main", elements: ["finish"])],
        make: { _ in LeakyCoordinator() }))
    try registry.register(
      FlowDefinition(
        id: "broken.sloppy", summary: "changes its state on refused actions", variants: ["standard"],
        screens: [
          ScreenDeclaration(
            "sloppy.main", elements: ["counter", "count", "ask", "done"],
            alerts: [AlertDeclaration("sloppy.alert", buttons: ["ok"])])
        ],
        make: { _ in SloppyCoordinator() }))
  }
}

/// Implements the host's protocol by hand and calls the completion twice.
@MainActor
final class TwiceFlow: PresentableFlow {
  private var report: (@MainActor (FlowEnding) -> Void)?
  private var page = 0
  private(set) var isRunning = false

  var screen: Screen {
    page == 0
      ? Screen(id: "twice.start", title: "Start", elements: [.button("next", "Next")])
      : Screen(id: "twice.end", title: "End", elements: [.button("finish", "Finish")])
  }

  func send(_ action: UserAction) throws(ActionError) {
    try screen.validate(action)
    try perform(action)
  }

  func perform(_ action: UserAction) throws(ActionError) {
    switch action {
    case .tap("next"): page = 1
    case .tap("finish"):
      report?(FlowEnding(FlowResult<Int>.completed(1)))
      report?(FlowEnding(FlowResult<Int>.completed(2)))
      report = nil
      isRunning = false
    default: break
    }
  }

  func start(reportingTo report: @escaping @MainActor (FlowEnding) -> Void) {
    self.report = report
    isRunning = true
  }

  func cancel(_ reason: CancelReason) {
    report?(FlowEnding(FlowResult<Int>.cancelled(reason)))
    report = nil
    isRunning = false
  }
}

/// Holds a closure that captures itself: a retain cycle that outlives the ending.
final class LeakyCoordinator: FlowCoordinator<Void> {
  private var onFinish: (() -> Void)?

  override var screen: Screen {
    Screen(id: "leaky.main", title: "Leaky", elements: [.button("finish", "Finish")])
  }

  override func didStart() {
    onFinish = { self.complete(()) }
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    if action == .tap("finish") { onFinish?() }
  }
}

/// Counts a tap it then refuses, and refuses its own alert's button.
final class SloppyCoordinator: FlowCoordinator<Void> {
  private var count = 0
  private var asking = false

  override var screen: Screen {
    Screen(
      id: "sloppy.main", title: "Sloppy",
      elements: [
        .info("counter", "Count", value: .number(Double(count))), .button("count", "Count"),
        .button("ask", "Ask"), .button("done", "Done"),
      ],
      alert: asking
        ? Alert(
          id: "sloppy.alert", title: "Stuck", message: "", buttons: [AlertButton(id: "ok", label: "OK")])
        : nil)
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .tap("count"):
      count += 1
      throw ActionError(screen: "sloppy.main", element: "count", problem: .refused("not now"))
    case .tap("ask"): asking = true
    case .tap("ok"): throw ActionError(screen: "sloppy.main", element: "ok", problem: .refused("stuck"))
    case .tap("done"): complete(())
    default: break
    }
  }
}
