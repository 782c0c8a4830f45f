import CheckInFlow
import FlowKit
import FlowKitTesting
import Foundation
import MoodTracking
import Testing

/// Whether the breaths were taken: `BreathingStep`'s own data in the draft.
enum Breathed: CheckInDataKey {
  typealias Value = Bool
}

/// A step this module's tests add from outside: a breathing pause with a toggle kept
/// in the draft as its own typed data.
struct BreathingStep: CheckInStep {
  let name = "breathing"
  let screenID = "checkin.breathing"
  let elementIDs = ["breathed", "continue"]

  func page(for draft: CheckInDraft) -> CheckInPage {
    let breathed = draft[Breathed.self] == true
    return CheckInPage(
      title: "Three slow breaths",
      elements: [.toggle("breathed", "I took them", isOn: breathed), .continueButton(enabled: breathed)])
  }

  func handle(_ action: UserAction, draft: inout CheckInDraft) -> CheckInStepOutcome {
    switch action {
    case .toggle("breathed", let isOn):
      draft[Breathed.self] = isOn
      return .stay
    case .tap("continue"): return .next
    default: return .stay
    }
  }
}

@MainActor
struct CheckInVariantTests {
  @Test func theShippedVariantsAreFullByDefaultAndQuick() throws {
    let registry = try World().registry()
    let flow = try #require(registry.flow("checkin"))
    #expect(flow.variants == ["full", "quick"])
    #expect(flow.defaultVariant == "full")
    #expect(
      flow.screens.map(\.id) == [
        "checkin.pet", "checkin.sensing", "checkin.naming", "checkin.shaping", "checkin.attributing",
        "checkin.evaluating", "checkin.acting",
      ])
    let exit = AlertDeclaration("checkin.confirmExit", buttons: ["exit", "stay"])
    #expect(flow.screens.first?.alerts == [], "close on the Pet never asks")
    #expect(flow.screens.dropFirst().allSatisfy { $0.alerts.contains(exit) })
    #expect(flow.screens.last?.alerts.contains(AlertDeclaration("checkin.error", buttons: ["ok"])) == true)
  }

  @Test func aThirdVariantWithANewStepIsARegistration() async throws {
    let world = World()
    let mindful = CheckInVariant(name: "mindful", steps: [BreathingStep(), SensingStep(), ActingStep()])
    let host = try world.host { registry in try CheckInFeature.registerVariant(mindful, in: &registry) }
    let flow = try #require(host.registry.flow("checkin"))
    #expect(flow.variants == ["full", "quick", "mindful"])
    #expect(flow.screens.map(\.id).contains("checkin.breathing"))

    try await host.present(FlowRequest(flow: "checkin", variant: "mindful"))
    #expect(host.screen?.id == "checkin.breathing")
    #expect(host.screen?.progress == StepProgress(index: 1, count: 3))
    #expect(host.screen?.element("continue")?.isEnabled == false)
    try await host.send(.toggle("breathed", true))
    try await host.send(.tap("continue"))
    try await host.send(.set("score", 6))
    try await host.send(.back)
    #expect(host.screen?.element("breathed")?.value == .bool(true), "the step's data is kept through back")
    try await host.send(.tap("continue"))
    #expect(host.screen?.element("score")?.value == .number(6))
    try await host.send(.tap("continue"))
    #expect(host.screen?.id == "checkin.acting")
    try await host.send(.tap("complete"))
    await host.settle()
    #expect(host.latestEndings["checkin"]?.outcome == .completed)
    let data = try #require(host.latestEndings["checkin"]?.output as? MoodCheckInData)
    #expect(data.variant == "mindful")
    #expect(data.emotion == nil)
    #expect(data.labels == [.content, .peaceful], "without Naming, the score's default labels")

    try await host.present(FlowRequest(flow: "checkin", variant: "quick"))
    #expect(host.screen?.id == "checkin.sensing", "the shipped variants are unchanged")
    try await host.present(FlowRequest(flow: "checkin"))
    #expect(host.screen?.id == "checkin.pet")
  }

  @Test func aVariantCanBeAConfigListOfStepNames() async throws {
    let mini = try #require(CheckInVariant(name: "mini", stepNames: ["sensing", "acting"]))
    #expect(mini.steps.map(\.screenID) == ["checkin.sensing", "checkin.acting"])
    #expect(CheckInVariant(name: "odd", stepNames: ["sensing", "dancing"]) == nil)
    let world = World()
    let host = try world.host { registry in try CheckInFeature.registerVariant(mini, in: &registry) }
    try await host.present(FlowRequest(flow: "checkin", variant: "mini", trigger: .launch))
    try await host.send(.tap("continue"))
    try await host.send(.tap("journal"))
    await host.settle()
    #expect(host.top?.flow == "journal")
    #expect(world.entries().map(\.kind) == [.dailyMood])
  }

  @Test func aVariantWhoseLastStepContinuesSavesLikeComplete() async throws {
    let world = World()
    let harness = Harness(world, variant: CheckInVariant(name: "sense", steps: [SensingStep()]))
    try await harness.send(.tap("continue"))
    #expect(harness.data?.variant == "sense")
    #expect(world.entries().count == 1)
  }

  @Test func aVariantNameCannotBeRegisteredTwice() throws {
    var registry = try World().registry()
    #expect(throws: RegistryError.duplicateVariant(flow: "checkin", variant: "quick")) {
      try CheckInFeature.registerVariant(.quick, in: &registry)
    }
  }
}
