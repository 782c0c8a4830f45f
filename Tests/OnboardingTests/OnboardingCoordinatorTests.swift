import FlowKit
import Foundation
import Onboarding
import Testing

@MainActor
final class OnboardingEndings {
  var results: [FlowResult<SkillLevel>] = []
  var outputs: [SkillLevel] {
    results.compactMap { if case .completed(let skill) = $0 { skill } else { nil } }
  }
}

@MainActor
@Suite("Onboarding coordinator")
struct OnboardingCoordinatorTests {
  let store = InMemoryKeyValueStore()
  let endings = OnboardingEndings()

  private func started(_ variant: OnboardingVariant = .standard) -> OnboardingCoordinator {
    let coordinator = OnboardingCoordinator(variant: variant, store: store)
    let endings = self.endings
    coordinator.start { endings.results.append($0) }
    return coordinator
  }

  private func describe(_ screen: Screen) -> String {
    "\(screen.id) \(screen.progress?.description ?? "-")"
  }

  @Test func standardVariantScreensAndProgress() throws {
    let coordinator = started()
    var seen = [describe(coordinator.screen)]
    try coordinator.send(.tap("continue"))
    seen.append(describe(coordinator.screen))
    try coordinator.send(.tap("continue"))
    seen.append(describe(coordinator.screen))
    try coordinator.send(.select("skill", ["beginner"]))
    try coordinator.send(.tap("continue"))
    seen.append(describe(coordinator.screen))
    #expect(
      seen == [
        "onboarding.welcome 1 of 4", "onboarding.features 2 of 4", "onboarding.skill 3 of 4",
        "onboarding.finale 4 of 4",
      ])
    coordinator.cancel()
  }

  @Test func shortVariantScreensAndProgress() throws {
    let coordinator = started(.short)
    var seen = [describe(coordinator.screen)]
    try coordinator.send(.tap("continue"))
    seen.append(describe(coordinator.screen))
    try coordinator.send(.select("skill", ["experienced"]))
    try coordinator.send(.tap("continue"))
    seen.append(describe(coordinator.screen))
    #expect(seen == ["onboarding.welcome 1 of 3", "onboarding.skill 2 of 3", "onboarding.finale 3 of 3"])
    coordinator.cancel()
  }

  @Test func elementIdsPerScreen() throws {
    let coordinator = started()
    var elements: [String: [String]] = [:]
    for _ in 0..<3 {
      elements[coordinator.screen.id] = coordinator.screen.elements.map(\.id)
      if coordinator.screen.id == "onboarding.skill" { try coordinator.send(.select("skill", ["beginner"])) }
      try coordinator.send(.tap("continue"))
    }
    elements[coordinator.screen.id] = coordinator.screen.elements.map(\.id)
    #expect(
      elements == [
        "onboarding.welcome": ["continue"], "onboarding.features": ["continue"],
        "onboarding.skill": ["skill", "continue"], "onboarding.finale": ["continue"],
      ])
    let finaleButton = try #require(coordinator.screen.element("continue"))
    #expect(finaleButton.label == "Let's Go!")
    coordinator.cancel()
  }

  @Test func skillChoiceOffersTheThreeLevels() throws {
    let coordinator = started(.short)
    try coordinator.send(.tap("continue"))
    let skill = try #require(coordinator.screen.element("skill"))
    guard case .choice(let options, let multiple) = skill.kind else {
      Issue.record("skill is a \(skill.kind.name)")
      return
    }
    #expect(!multiple)
    #expect(options.map(\.id) == ["beginner", "intermediate", "experienced"])
    #expect(skill.value == ElementValue.none)
    coordinator.cancel()
  }

  @Test func continueIsDisabledUntilASkillIsChosen() throws {
    let coordinator = started(.short)
    try coordinator.send(.tap("continue"))
    #expect(coordinator.screen.element("continue")?.isEnabled == false)
    #expect(throws: ActionError(screen: "onboarding.skill", element: "continue", problem: .disabled)) {
      try coordinator.send(.tap("continue"))
    }
    #expect(coordinator.screen.id == "onboarding.skill")
    try coordinator.send(.select("skill", ["intermediate"]))
    #expect(coordinator.screen.element("continue")?.isEnabled == true)
    #expect(coordinator.screen.element("skill")?.value == .text("intermediate"))
    try coordinator.send(.tap("continue"))
    #expect(coordinator.screen.id == "onboarding.finale")
    coordinator.cancel()
  }

  @Test func backKeepsTheChosenSkill() throws {
    let coordinator = started()
    try coordinator.send(.tap("continue"))
    try coordinator.send(.tap("continue"))
    try coordinator.send(.select("skill", ["experienced"]))
    try coordinator.send(.back)
    #expect(coordinator.screen.id == "onboarding.features")
    try coordinator.send(.tap("continue"))
    #expect(coordinator.screen.element("skill")?.value == .text("experienced"))
    #expect(coordinator.screen.element("continue")?.isEnabled == true)
    try coordinator.send(.tap("continue"))
    try coordinator.send(.back)
    #expect(coordinator.screen.id == "onboarding.skill")
    #expect(coordinator.screen.element("skill")?.value == .text("experienced"))
    coordinator.cancel()
  }

  @Test func backWorksOnStepsTwoToFour() throws {
    let coordinator = started()
    var backable: [String: Bool] = [coordinator.screen.id: coordinator.screen.canGoBack]
    try coordinator.send(.tap("continue"))
    backable[coordinator.screen.id] = coordinator.screen.canGoBack
    try coordinator.send(.tap("continue"))
    backable[coordinator.screen.id] = coordinator.screen.canGoBack
    try coordinator.send(.select("skill", ["beginner"]))
    try coordinator.send(.tap("continue"))
    backable[coordinator.screen.id] = coordinator.screen.canGoBack
    #expect(
      backable == [
        "onboarding.welcome": false, "onboarding.features": true, "onboarding.skill": true,
        "onboarding.finale": true,
      ])
    try coordinator.send(.back)
    try coordinator.send(.back)
    try coordinator.send(.back)
    #expect(coordinator.screen.id == "onboarding.welcome")
    coordinator.cancel()
  }

  @Test func noBackOnTheFirstStep() {
    let coordinator = started()
    #expect(throws: ActionError(screen: "onboarding.welcome", problem: .backUnavailable)) {
      try coordinator.send(.back)
    }
    #expect(coordinator.screen.id == "onboarding.welcome")
    coordinator.cancel()
  }

  @Test func closeIsRefusedOnEveryStep() throws {
    let coordinator = started()
    for step in ["onboarding.welcome", "onboarding.features", "onboarding.skill", "onboarding.finale"] {
      #expect(coordinator.screen.id == step)
      #expect(throws: ActionError(screen: step, problem: .closeUnavailable)) { try coordinator.send(.close) }
      if step == "onboarding.skill" { try coordinator.send(.select("skill", ["beginner"])) }
      if step != "onboarding.finale" { try coordinator.send(.tap("continue")) }
    }
    #expect(coordinator.isRunning)
    #expect(endings.results.isEmpty)
    coordinator.cancel()
  }

  @Test func everySkillHasItsOwnTextEmojiAndFinale() throws {
    var options: [String] = []
    var finales: [String] = []
    var subtitles: [String] = []
    for level in SkillLevel.allCases {
      let coordinator = started(.short)
      try coordinator.send(.tap("continue"))
      let skill = try #require(coordinator.screen.element("skill"))
      guard case .choice(let choices, _) = skill.kind else {
        Issue.record("skill is a \(skill.kind.name)")
        continue
      }
      let option = try #require(choices.first { $0.id == level.rawValue })
      #expect(option.label.contains(level.emoji))
      #expect(option.label.contains(level.optionText))
      try coordinator.send(.select("skill", [level.rawValue]))
      try coordinator.send(.tap("continue"))
      #expect(coordinator.screen.title.contains(level.finaleTitle))
      #expect(coordinator.screen.title.contains(level.emoji))
      #expect(coordinator.screen.message == level.finaleSubtitle)
      options.append(option.label)
      finales.append(coordinator.screen.title)
      subtitles.append(coordinator.screen.message ?? "")
      coordinator.cancel()
    }
    let levels = SkillLevel.allCases
    for texts in [
      options, finales, subtitles, levels.map(\.emoji), levels.map(\.optionText), levels.map(\.finaleTitle),
    ] {
      #expect(texts.count == 3)
      #expect(Set(texts).count == 3, "\(texts) are not all distinct")
      #expect(texts.allSatisfy { !$0.isEmpty })
    }
  }

  @Test func completionStoresTheResultAndOutputsTheSkill() throws {
    weak var weakCoordinator: OnboardingCoordinator?
    do {
      let coordinator = started()
      weakCoordinator = coordinator
      try coordinator.send(.tap("continue"))
      try coordinator.send(.tap("continue"))
      try coordinator.send(.select("skill", ["intermediate"]))
      try coordinator.send(.tap("continue"))
      #expect(try store.bool(forKey: OnboardingKeys.completed) == false, "nothing is stored before the end")
      try coordinator.send(.tap("continue"))
    }
    #expect(endings.outputs == [.intermediate])
    #expect(endings.results.count == 1)
    #expect(store.string(forKey: "onboarding.completed") == "true")
    #expect(store.string(forKey: "onboarding.skill") == "intermediate")
    #expect(weakCoordinator == nil)
  }

  @Test func aChangedChoiceIsTheOneStored() throws {
    let coordinator = started(.short)
    try coordinator.send(.tap("continue"))
    try coordinator.send(.select("skill", ["beginner"]))
    try coordinator.send(.tap("continue"))
    try coordinator.send(.back)
    try coordinator.send(.select("skill", ["experienced"]))
    try coordinator.send(.tap("continue"))
    try coordinator.send(.tap("continue"))
    #expect(endings.outputs == [.experienced])
    #expect(store.string(forKey: "onboarding.skill") == "experienced")
  }

  @Test func aCancelledOnboardingStoresNothing() throws {
    let coordinator = started(.short)
    try coordinator.send(.tap("continue"))
    try coordinator.send(.select("skill", ["beginner"]))
    coordinator.cancel()
    #expect(store.string(forKey: "onboarding.completed") == nil)
    #expect(store.string(forKey: "onboarding.skill") == nil)
  }
}

@MainActor
@Suite("Onboarding feature")
struct OnboardingFeatureTests {
  let store = InMemoryKeyValueStore()

  private func host() throws -> FlowHost {
    var registry = FlowRegistry()
    try registry.register(OnboardingFeature.self)
    return try FlowHost(
      registry: registry,
      environment: HostEnvironment(
        userID: "alice",
        clock: ManualClock(now: Date(timeIntervalSince1970: 0), timeZone: TimeZone(identifier: "UTC")!),
        keyValueStore: store))
  }

  @Test func registersTheFlowWithBothVariantsAndItsScreens() throws {
    var registry = FlowRegistry()
    try registry.register(OnboardingFeature.self)
    let flow = try #require(registry.flow("onboarding"))
    #expect(flow.variants == ["standard", "short"])
    #expect(flow.defaultVariant == "standard")
    #expect(
      flow.screens == [
        ScreenDeclaration("onboarding.welcome", elements: ["continue"]),
        ScreenDeclaration("onboarding.features", elements: ["continue"]),
        ScreenDeclaration("onboarding.skill", elements: ["skill", "continue"]),
        ScreenDeclaration("onboarding.finale", elements: ["continue"]),
      ])
    #expect(registry.queries.map(\.id) == ["onboarding.completed", "onboarding.skill"])
    #expect(registry.launchRules.map(\.request.flow) == ["onboarding"])
  }

  @Test func launchPresentsOnboardingUntilCompleted() async throws {
    let host = try host()
    await host.launch()
    #expect(host.top?.flow == "onboarding")
    #expect(host.top?.variant == "standard")
    #expect(host.top?.trigger == .launch)
    #expect(host.screen?.id == "onboarding.welcome")
    try host.send(.tap("continue"))
    try host.send(.tap("continue"))
    try host.send(.select("skill", ["beginner"]))
    try host.send(.tap("continue"))
    try host.send(.tap("continue"))
    await host.settle()
    #expect(host.isIdle, "completed onboarding: no rule applies any more")
    #expect(host.latestEndings["onboarding"]?.output as? SkillLevel == .beginner)

    host.terminate()
    await host.launch()
    #expect(host.isIdle)
  }

  @Test func launchAfterACompletedOnboardingPresentsNothing() async throws {
    try store.set(true, forKey: OnboardingKeys.completed)
    let host = try host()
    await host.launch()
    #expect(host.isIdle)
  }

  @Test func theShortVariantThroughTheHost() throws {
    let host = try host()
    try host.present(FlowRequest(flow: "onboarding", variant: "short"))
    try host.send(.tap("continue"))
    #expect(host.screen?.id == "onboarding.skill")
    #expect(host.screen?.progress == StepProgress(index: 2, count: 3))
    host.terminate()
  }

  @Test func queriesAnswerFlagAndSkill() async throws {
    let host = try host()
    #expect(try await host.query("onboarding.completed") == .bool(false))
    #expect(try await host.query("onboarding.skill") == QueryValue.none)
    try store.set(true, forKey: OnboardingKeys.completed)
    store.set("experienced", forKey: OnboardingKeys.skill)
    #expect(try await host.query("onboarding.completed") == .bool(true))
    #expect(try await host.query("onboarding.skill") == .text("experienced"))
  }
}

@MainActor
@Suite("Onboarding variants made of steps")
struct OnboardingStepVariantTests {
  @Test func anyOrderedSubsetWithSkillAndFinaleMakesAVariant() throws {
    var registry = FlowRegistry()
    try registry.register(OnboardingFeature.self)
    try registry.registerVariant("brief", of: "onboarding", steps: ["skill", "finale"])
    let flow = try #require(registry.flow("onboarding"))
    #expect(flow.variants == ["standard", "short", "brief"])
    #expect(flow.stepVariants?.steps == ["welcome", "features", "skill", "finale"])
    #expect(flow.variantSteps["short"] == ["welcome", "skill", "finale"])
  }

  @Test func theSkillAndTheFinaleAreRequiredWithAClearReason() throws {
    var registry = FlowRegistry()
    try registry.register(OnboardingFeature.self)
    #expect(
      throws: RegistryError.invalidVariantSteps(
        flow: "onboarding", variant: "v",
        problem: "onboarding needs the skill and finale steps; skill is missing")
    ) { try registry.registerVariant("v", of: "onboarding", steps: ["welcome", "finale"]) }
    #expect(
      throws: RegistryError.invalidVariantSteps(
        flow: "onboarding", variant: "v",
        problem: "onboarding needs the skill and finale steps; skill and finale are missing")
    ) { try registry.registerVariant("v", of: "onboarding", steps: ["welcome"]) }
    #expect(OnboardingCoordinator.problem(with: [.skill, .finale]) == nil)
    #expect(
      OnboardingCoordinator.problem(with: [.welcome, .skill])
        == "onboarding needs the skill and finale steps; finale is missing")
  }
}
