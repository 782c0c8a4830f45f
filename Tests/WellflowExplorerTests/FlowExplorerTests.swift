import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowExplorer
import WellflowScript

/// The explorer itself, on the app's flows and on flows that break the contract on
/// purpose (`wellflow explore`'s report and exit codes: `ExploreTests`).
@MainActor
@Suite("Flow explorer")
struct FlowExplorerTests {
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
