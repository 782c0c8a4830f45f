import FlowKit
import FlowKitTesting
import Foundation
import Onboarding
import Testing

@MainActor
@Suite("Onboarding coordinator")
struct OnboardingCoordinatorTests {
  let store = InMemoryKeyValueStore()

  /// The coordinator, started and driven by FlowKitTesting's driver, which records its
  /// endings and holds it only weakly.
  private func started(_ variant: OnboardingVariant = .standard) -> FlowDriver<
    SkillLevel, OnboardingCoordinator
  > {
    FlowDriver { _ in OnboardingCoordinator(variant: variant, store: store) }
  }

  private func describe(_ screen: Screen) -> String {
    "\(screen.id) \(screen.progress?.description ?? "-")"
  }

  @Test func standardVariantScreensAndProgress() async throws {
    let onboarding = started()
    var seen = [describe(onboarding.screen)]
    try await onboarding.send(.tap("continue"))
    seen.append(describe(onboarding.screen))
    try await onboarding.send(.tap("continue"))
    seen.append(describe(onboarding.screen))
    try await onboarding.send(.select("skill", ["beginner"]))
    try await onboarding.send(.tap("continue"))
    seen.append(describe(onboarding.screen))
    #expect(
      seen == [
        "onboarding.welcome 1 of 4", "onboarding.features 2 of 4", "onboarding.skill 3 of 4",
        "onboarding.finale 4 of 4",
      ])
    onboarding.cancel()
  }

  @Test func shortVariantScreensAndProgress() async throws {
    let onboarding = started(.short)
    var seen = [describe(onboarding.screen)]
    try await onboarding.send(.tap("continue"))
    seen.append(describe(onboarding.screen))
    try await onboarding.send(.select("skill", ["experienced"]))
    try await onboarding.send(.tap("continue"))
    seen.append(describe(onboarding.screen))
    #expect(seen == ["onboarding.welcome 1 of 3", "onboarding.skill 2 of 3", "onboarding.finale 3 of 3"])
    onboarding.cancel()
  }

  @Test func elementIdsPerScreen() async throws {
    let onboarding = started()
    var elements: [String: [String]] = [:]
    for _ in 0..<3 {
      elements[onboarding.screen.id] = onboarding.screen.elements.map(\.id)
      if onboarding.screen.id == "onboarding.skill" {
        try onboarding.running.send(.select("skill", ["beginner"]))
      }
      try await onboarding.send(.tap("continue"))
    }
    elements[onboarding.screen.id] = onboarding.screen.elements.map(\.id)
    #expect(
      elements == [
        "onboarding.welcome": ["continue"], "onboarding.features": ["continue"],
        "onboarding.skill": ["skill", "continue"], "onboarding.finale": ["continue"],
      ])
    let finaleButton = try #require(onboarding.screen.element("continue"))
    #expect(finaleButton.label == "Let's Go!")
    onboarding.cancel()
  }

  @Test func skillChoiceOffersTheThreeLevels() async throws {
    let onboarding = started(.short)
    try await onboarding.send(.tap("continue"))
    let skill = try #require(onboarding.screen.element("skill"))
    guard case .choice(let options, let multiple) = skill.kind else {
      Issue.record("skill is a \(skill.kind.name)")
      return
    }
    #expect(!multiple)
    #expect(options.map(\.id) == ["beginner", "intermediate", "experienced"])
    #expect(skill.value == ElementValue.none)
    onboarding.cancel()
  }

  @Test func continueIsDisabledUntilASkillIsChosen() async throws {
    let onboarding = started(.short)
    try await onboarding.send(.tap("continue"))
    #expect(onboarding.screen.element("continue")?.isEnabled == false)
    #expect(throws: ActionError(screen: "onboarding.skill", element: "continue", problem: .disabled)) {
      try onboarding.running.send(.tap("continue"))
    }
    #expect(onboarding.screen.id == "onboarding.skill")
    try await onboarding.send(.select("skill", ["intermediate"]))
    #expect(onboarding.screen.element("continue")?.isEnabled == true)
    #expect(onboarding.screen.element("skill")?.value == .text("intermediate"))
    try await onboarding.send(.tap("continue"))
    #expect(onboarding.screen.id == "onboarding.finale")
    onboarding.cancel()
  }

  @Test func backKeepsTheChosenSkill() async throws {
    let onboarding = started()
    try await onboarding.send(.tap("continue"))
    try await onboarding.send(.tap("continue"))
    try await onboarding.send(.select("skill", ["experienced"]))
    try await onboarding.send(.back)
    #expect(onboarding.screen.id == "onboarding.features")
    try await onboarding.send(.tap("continue"))
    #expect(onboarding.screen.element("skill")?.value == .text("experienced"))
    #expect(onboarding.screen.element("continue")?.isEnabled == true)
    try await onboarding.send(.tap("continue"))
    try await onboarding.send(.back)
    #expect(onboarding.screen.id == "onboarding.skill")
    #expect(onboarding.screen.element("skill")?.value == .text("experienced"))
    onboarding.cancel()
  }

  @Test func backWorksOnStepsTwoToFour() async throws {
    let onboarding = started()
    var backable: [String: Bool] = [onboarding.screen.id: onboarding.screen.canGoBack]
    try await onboarding.send(.tap("continue"))
    backable[onboarding.screen.id] = onboarding.screen.canGoBack
    try await onboarding.send(.tap("continue"))
    backable[onboarding.screen.id] = onboarding.screen.canGoBack
    try await onboarding.send(.select("skill", ["beginner"]))
    try await onboarding.send(.tap("continue"))
    backable[onboarding.screen.id] = onboarding.screen.canGoBack
    #expect(
      backable == [
        "onboarding.welcome": false, "onboarding.features": true, "onboarding.skill": true,
        "onboarding.finale": true,
      ])
    try await onboarding.send(.back)
    try await onboarding.send(.back)
    try await onboarding.send(.back)
    #expect(onboarding.screen.id == "onboarding.welcome")
    onboarding.cancel()
  }

  @Test func noBackOnTheFirstStep() async {
    let onboarding = started()
    #expect(throws: ActionError(screen: "onboarding.welcome", problem: .backUnavailable)) {
      try onboarding.running.send(.back)
    }
    #expect(onboarding.screen.id == "onboarding.welcome")
    onboarding.cancel()
  }

  @Test func closeIsRefusedOnEveryStep() async throws {
    let onboarding = started()
    for step in ["onboarding.welcome", "onboarding.features", "onboarding.skill", "onboarding.finale"] {
      #expect(onboarding.screen.id == step)
      #expect(throws: ActionError(screen: step, problem: .closeUnavailable)) {
        try onboarding.running.send(.close)
      }
      if step == "onboarding.skill" { try onboarding.running.send(.select("skill", ["beginner"])) }
      if step != "onboarding.finale" { try onboarding.running.send(.tap("continue")) }
    }
    #expect(onboarding.isRunning)
    #expect(onboarding.endings.isEmpty)
    onboarding.cancel()
  }

  @Test func everySkillHasItsOwnTextEmojiAndFinale() async throws {
    var options: [String] = []
    var finales: [String] = []
    var subtitles: [String] = []
    for level in SkillLevel.allCases {
      let onboarding = started(.short)
      try await onboarding.send(.tap("continue"))
      let skill = try #require(onboarding.screen.element("skill"))
      guard case .choice(let choices, _) = skill.kind else {
        Issue.record("skill is a \(skill.kind.name)")
        continue
      }
      let option = try #require(choices.first { $0.id == level.rawValue })
      #expect(option.label.contains(level.emoji))
      #expect(option.label.contains(level.optionText))
      try await onboarding.send(.select("skill", [level.rawValue]))
      try await onboarding.send(.tap("continue"))
      #expect(onboarding.screen.title.contains(level.finaleTitle))
      #expect(onboarding.screen.title.contains(level.emoji))
      #expect(onboarding.screen.message == level.finaleSubtitle)
      options.append(option.label)
      finales.append(onboarding.screen.title)
      subtitles.append(onboarding.screen.message ?? "")
      onboarding.cancel()
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

  @Test func completionStoresTheResultAndOutputsTheSkill() async throws {
    let onboarding = started()
    try await onboarding.run("tap continue", "tap continue", "select skill intermediate", "tap continue")
    #expect(try store.bool(forKey: OnboardingKeys.completed) == false, "nothing is stored before the end")
    try await onboarding.run("tap continue")
    #expect(onboarding.output == .intermediate)
    #expect(onboarding.endings.count == 1)
    #expect(store.string(forKey: "onboarding.completed") == "true")
    #expect(store.string(forKey: "onboarding.skill") == "intermediate")
    #expect(onboarding.flow == nil)
    try onboarding.expectReleased()
  }

  @Test func aChangedChoiceIsTheOneStored() async throws {
    let onboarding = started(.short)
    try await onboarding.send(.tap("continue"))
    try await onboarding.send(.select("skill", ["beginner"]))
    try await onboarding.send(.tap("continue"))
    try await onboarding.send(.back)
    try await onboarding.send(.select("skill", ["experienced"]))
    try await onboarding.send(.tap("continue"))
    try await onboarding.send(.tap("continue"))
    #expect(onboarding.output == .experienced)
    #expect(store.string(forKey: "onboarding.skill") == "experienced")
  }

  @Test func aCancelledOnboardingStoresNothing() async throws {
    let onboarding = started(.short)
    try await onboarding.send(.tap("continue"))
    try await onboarding.send(.select("skill", ["beginner"]))
    onboarding.cancel()
    #expect(store.string(forKey: "onboarding.completed") == nil)
    #expect(store.string(forKey: "onboarding.skill") == nil)
  }
}

@MainActor
@Suite("Onboarding feature")
struct OnboardingFeatureTests {
  let environment = TestEnvironment(now: Date(timeIntervalSince1970: 0), userID: "alice")
  var store: InMemoryKeyValueStore { environment.store }

  private func host() throws -> TestHost {
    try TestHost([OnboardingFeature.self], environment: environment)
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
        ScreenDeclaration(
          "onboarding.skill", elements: ["skill", "continue"],
          options: ["skill": ["beginner", "intermediate", "experienced"]]),
        ScreenDeclaration("onboarding.finale", elements: ["continue"]),
      ])
    #expect(registry.queries.map(\.id) == ["onboarding.completed", "onboarding.skill"])
    #expect(registry.launchRules.map(\.request.flow) == ["onboarding"])
  }

  @Test func launchPresentsOnboardingUntilCompleted() async throws {
    let host = try host()
    try await host.launch()
    #expect(host.top?.flow == "onboarding")
    #expect(host.top?.variant == "standard")
    #expect(host.top?.trigger == .launch)
    #expect(host.screen?.id == "onboarding.welcome")
    try await host.run(
      "tap continue", "tap continue", "select skill beginner", "tap continue", "tap continue")
    await host.settle()
    #expect(host.isIdle, "completed onboarding: no rule applies any more")
    #expect(host.latestEndings["onboarding"]?.output as? SkillLevel == .beginner)

    host.terminate()
    try await host.launch()
    #expect(host.isIdle)
  }

  @Test func launchAfterACompletedOnboardingPresentsNothing() async throws {
    try store.set(true, forKey: OnboardingKeys.completed)
    let host = try host()
    try await host.launch()
    #expect(host.isIdle)
  }

  @Test func theShortVariantThroughTheHost() async throws {
    let host = try host()
    try await host.present("onboarding", variant: "short")
    try await host.send(.tap("continue"))
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

  @Test func presentOnboardingCallsBackOnceWithTheSkill() async throws {
    let host = try host()
    var skills: [SkillLevel?] = []
    try presentOnboarding(from: host.host, variant: "short") { skills.append($0) }
    #expect(host.top?.variant == "short")
    #expect(host.top?.trigger == .manual)
    try await host.run("tap continue", "select skill experienced", "tap continue", "tap continue")
    #expect(skills == [.experienced])
    #expect(host.isIdle)
  }

  @Test func presentOnboardingCanBeAwaited() async throws {
    let host = try host()
    let onboarding = try await host.begin { host in try await presentOnboarding(from: host) }
    #expect(host.screen?.id == "onboarding.welcome")
    try await host.run(
      """
      tap continue
      tap continue
      select skill beginner
      tap continue
      tap continue
      """)
    #expect(try await onboarding.value == .beginner)
    #expect(store.string(forKey: OnboardingKeys.skill) == "beginner")
  }

  @Test func anAwaitedOnboardingAnswersNilWhenTheAppQuits() async throws {
    let host = try host()
    let onboarding = try await host.begin { host in try await presentOnboarding(from: host, variant: "short")
    }
    try await host.send(.tap("continue"))
    host.terminate()
    #expect(try await onboarding.value == nil)
    #expect(host.latestEndings["onboarding"]?.reason == .terminated)
    try host.expectReleased()
  }

  @Test func anAwaitedOnboardingThrowsWhenItIsNotRegistered() async throws {
    let host = try FlowHost(registry: FlowRegistry(), environment: environment.hostEnvironment)
    await #expect(throws: HostError.unknownFlow("onboarding", registered: [])) {
      try await presentOnboarding(from: host)
    }
    #expect(host.isIdle)
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
