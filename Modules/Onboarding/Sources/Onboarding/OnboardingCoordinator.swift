import FlowKit

/// A page of the onboarding.
public enum OnboardingStep: String, Sendable, CaseIterable {
  case welcome, features, skill, finale

  public var screenID: String { "onboarding.\(rawValue)" }
}

/// The onboarding's variants: which pages, in which order.
public enum OnboardingVariant: String, Sendable, CaseIterable {
  case standard
  case short

  public var steps: [OnboardingStep] {
    switch self {
    case .standard: [.welcome, .features, .skill, .finale]
    case .short: [.welcome, .skill, .finale]
    }
  }
}

/// Where onboarding keeps its result in the user's settings.
public enum OnboardingKeys {
  public static let completed = "onboarding.completed"
  public static let skill = "onboarding.skill"
}

/// Welcomes a new user, asks for their skill level and remembers that onboarding is
/// done. Output: the chosen skill.
public final class OnboardingCoordinator: FlowCoordinator<SkillLevel> {
  public let steps: [OnboardingStep]
  private let store: any KeyValueStore
  private var index = 0
  private var skill: SkillLevel?
  private var saveError: String?

  /// Why `steps` cannot make an onboarding, nil when they can: the skill is its output
  /// and the finale's button is what completes it.
  nonisolated public static func problem(with steps: [OnboardingStep]) -> String? {
    let missing = [OnboardingStep.skill, .finale].filter { !steps.contains($0) }.map(\.rawValue)
    if !missing.isEmpty {
      return "onboarding needs the skill and finale steps; \(missing.joined(separator: " and ")) "
        + (missing.count == 1 ? "is" : "are") + " missing"
    }
    if steps.last != .finale { return "onboarding must end on the finale step" }
    return nil
  }

  public init(steps: [OnboardingStep], store: any KeyValueStore) {
    precondition(Self.problem(with: steps) == nil, Self.problem(with: steps) ?? "")
    self.steps = steps
    self.store = store
  }

  public convenience init(variant: OnboardingVariant = .standard, store: any KeyValueStore) {
    self.init(steps: variant.steps, store: store)
  }

  public var step: OnboardingStep { steps[index] }

  public override var screen: Screen {
    let progress = StepProgress(index: index + 1, count: steps.count)
    switch step {
    case .welcome:
      return Screen(
        id: step.screenID, title: "Welcome to Wellflow",
        message: "A minute a day to notice how you feel, name it and see it change.",
        progress: progress, elements: [.button("continue", "Continue")], canGoBack: index > 0)
    case .features:
      return Screen(
        id: step.screenID, title: "What you can do here",
        message: "Check in with your mood, keep a feelings journal and follow your streak over the weeks.",
        progress: progress, elements: [.button("continue", "Continue")], canGoBack: index > 0)
    case .skill:
      let options = SkillLevel.allCases.map {
        ChoiceOption(id: $0.rawValue, label: $0.optionLabel)
      }
      return Screen(
        id: step.screenID, title: "How familiar are you with checking in?",
        message: saveError ?? "There's no wrong answer; it only shapes the tips you see.",
        progress: progress,
        elements: [
          .singleChoice("skill", "Your experience", options: options, selected: skill?.rawValue),
          .button("continue", "Continue", enabled: skill != nil),
        ], canGoBack: index > 0)
    case .finale:
      let level = skill ?? .beginner
      return Screen(
        id: step.screenID, title: "\(level.emoji) \(level.finaleTitle)",
        message: saveError ?? level.finaleSubtitle,
        progress: progress, elements: [.button("continue", "Let's Go!")], canGoBack: index > 0)
    }
  }

  public override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .select("skill", let chosen):
      skill = chosen.first.flatMap(SkillLevel.init(rawValue:))
    case .tap("continue"):
      if index + 1 < steps.count {
        index += 1
      } else {
        finish()
      }
    case .back:
      index -= 1
    default:
      break
    }
  }

  private func finish() {
    guard let skill else { return }
    do {
      try store.set(skill.rawValue, forKey: OnboardingKeys.skill)
      try store.set(true, forKey: OnboardingKeys.completed)
      complete(skill)
    } catch {
      saveError = "Your choice could not be saved (\(error)). Try again."
    }
  }
}
