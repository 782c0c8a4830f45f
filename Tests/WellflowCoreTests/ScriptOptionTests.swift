import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore
import WellflowExplorer
import WellflowScript

/// Option values of choices whose options are declared are checked before any step runs.
@MainActor
@Suite("Script option values")
struct ScriptOptionTests {
  let workspace = Workspace()

  /// The problems of a script made of `steps` (from line 3, column 3).
  private func problems(steps: String) throws -> [String] {
    workspace.write("s.yaml", "name: options\nsteps:\n" + steps + "\n")
    return try ScriptTestSupport.problems("s.yaml", in: workspace)
  }

  @Test func aMistypedEmotionIsRefusedWithASuggestion() throws {
    #expect(
      try problems(steps: "  - start: checkin\n  - select: {emotion: anxous}") == [
        "s.yaml:4:23: unknown option 'anxous' of emotion (did you mean 'anxious'?)"
      ])
  }

  @Test func eachItemOfAListIsChecked() throws {
    #expect(
      try problems(steps: "  - select: {labels: [calm, prowd, zzzzzzzz]}") == [
        "s.yaml:3:29: unknown option 'prowd' of labels (did you mean 'proud'?)",
        "s.yaml:3:36: unknown option 'zzzzzzzz' of labels (options: amazed, amused, angry, anxious, ashamed, brave, calm, content, disappointed, discouraged, disgusted, embarrassed, … (38 in all))",
      ])
  }

  @Test func withoutACloseOptionTheOptionsAreListed() throws {
    #expect(
      try problems(steps: "  - select: {skill: expert}") == [
        "s.yaml:3:21: unknown option 'expert' of skill (options: beginner, intermediate, experienced)"
      ])
  }

  @Test func expectedValuesOfChoicesAreCheckedToo() throws {
    #expect(
      try problems(
        steps: """
            - expect: {value: {emotion: hapy}}
            - if: {value: {associations: [work, famly]}}
              then: [back]
            - expect: {value: {evaluation: null, range: 7d}}
          """) == [
          "s.yaml:3:31: unknown option 'hapy' of emotion (did you mean 'happy'?)",
          "s.yaml:4:39: unknown option 'famly' of associations (did you mean 'family'?)",
        ])
  }

  @Test func validOptionsAndOptionsThatAreDataPass() throws {
    #expect(
      try problems(
        steps: """
            - select: {emotion: anxious}
            - select: {labels: [calm, proud]}
            - select: {range: 30d}
            - select: {entry: 2026-03-01T20:00}
            - expect: {value: {entry: 2026-03-01T20:00-2}}
          """) == [])
  }

  @Test func variablesAreCheckedAfterTheyAreReplaced() throws {
    workspace.write(
      "s.yaml", "name: options\nenv: {MOOD: anxous}\nsteps:\n  - select: {emotion: \"${MOOD}\"}\n")
    #expect(
      try ScriptTestSupport.problems("s.yaml", in: workspace) == [
        "s.yaml:4:23: unknown option 'anxous' of emotion (did you mean 'anxious'?)"
      ])
  }

  /// A runtime failure no more: `wellflow run` exits 2 and runs no step.
  @Test func runRefusesTheScriptBeforeAnyStep() async throws {
    let path = workspace.write(
      "s.yaml", "name: options\nsteps:\n  - start: checkin\n  - select: {emotion: anxous}\n")
    let outcome = await wellflowRun([path])
    #expect(outcome.code == 2)
    #expect(
      workspace.relative(outcome.err) == [
        "s.yaml:4:23: unknown option 'anxous' of emotion (did you mean 'anxious'?)",
        "1 problem found; no script ran",
      ])
  }

  /// The declarations scripts are checked against match what the screens show: an
  /// option shown but not declared is a violation of the exploration.
  @Test func anUndeclaredOptionOnAScreenIsAViolation() async throws {
    var registry = FlowRegistry()
    try registry.register(
      FlowDefinition(
        id: "pick", summary: "one choice", variants: ["standard"],
        screens: [
          ScreenDeclaration("pick.main", elements: ["colour", "done"], options: ["colour": ["red"]])
        ],
        make: { _ in PickCoordinator() }))
    let exploration = try await FlowExplorer(
      registry: registry, options: FlowExplorer.Options(flow: "pick", depth: 1)
    ).run()
    #expect(
      exploration.violations.map(\.message) == ["pick.main: option 'blue' of 'colour' is not declared"])
  }

  @Test func theAppsDeclaredOptionsAreTheOnesItsScreensShow() async throws {
    let registry = try WellflowApp.makeRegistry()
    // Every flow the app registers, read from its registry.
    for flow in registry.flows.map(\.id) {
      let exploration = try await FlowExplorer(
        registry: registry, options: FlowExplorer.Options(flow: flow, depth: 6, maxStates: 150)
      ).run()
      #expect(!exploration.violations.contains { $0.message.contains("option") }, "\(exploration.violations)")
    }
  }
}

/// One screen with a choice of red or blue, the second undeclared.
private final class PickCoordinator: FlowCoordinator<Void> {
  override var screen: Screen {
    Screen(
      id: "pick.main", title: "Pick",
      elements: [
        .singleChoice(
          "colour", "Colour", options: [.init(id: "red", label: "Red"), .init(id: "blue", label: "Blue")],
          selected: nil),
        .button("done", "Done"),
      ])
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    if action == .tap("done") { complete(()) }
  }
}
