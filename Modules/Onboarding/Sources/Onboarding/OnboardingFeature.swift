import FlowKit
import Foundation

/// Registers the `onboarding` flow, its queries and the launch rule
/// "not completed → onboarding", which is asked before every other rule.
public enum OnboardingFeature: FlowFeature {
  /// Its screens' text in English and German, shipped with the module.
  public static var stringTables: Bundle? { .module }

  public static let flowID = "onboarding"
  public static let launchPriority = 200

  /// Variants declared without code: any ordered subset of the steps that asks for the
  /// skill and ends on the finale.
  public static let stepVariants = StepVariants(
    steps: OnboardingStep.allCases.map(\.rawValue),
    check: { names in
      let steps = names.compactMap(OnboardingStep.init(rawValue:))
      return OnboardingCoordinator.problem(with: steps)
    },
    make: { context, names in
      OnboardingCoordinator(
        steps: names.compactMap(OnboardingStep.init(rawValue:)), store: context.environment.keyValueStore)
    })

  public static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    // Experiments may target the skill the user chose, once chosen.
    try registry.register(
      TargetingAttribute("skill") { environment in
        (try? environment.keyValueStore.string(forKey: OnboardingKeys.skill)).map(EventValue.string)
      })
    try registry.register(
      FlowDefinition(
        id: flowID, summary: "Welcome, skill level and a finale; runs once per user",
        variants: OnboardingVariant.allCases.map(\.rawValue),
        screens: [
          ScreenDeclaration("onboarding.welcome", elements: ["continue"]),
          ScreenDeclaration("onboarding.features", elements: ["continue"]),
          ScreenDeclaration(
            "onboarding.skill", elements: ["skill", "continue"],
            options: ["skill": SkillLevel.allCases.map(\.rawValue)]),
          ScreenDeclaration("onboarding.finale", elements: ["continue"]),
        ],
        stepVariants: stepVariants,
        variantSteps: Dictionary(
          uniqueKeysWithValues: OnboardingVariant.allCases.map { ($0.rawValue, $0.steps.map(\.rawValue)) }),
        make: { context in
          OnboardingCoordinator(
            variant: OnboardingVariant(rawValue: context.variant) ?? .standard,
            store: context.environment.keyValueStore)
        }))
    try registry.register(
      QueryDefinition("onboarding.completed", type: .bool, summary: "whether onboarding was completed") {
        env in
        .bool(try env.keyValueStore.bool(forKey: OnboardingKeys.completed))
      })
    try registry.register(
      QueryDefinition("onboarding.skill", type: .text, summary: "the skill chosen in onboarding") { env in
        try env.keyValueStore.string(forKey: OnboardingKeys.skill).map(QueryValue.text) ?? .none
      })
    try registry.register(
      LaunchRule(
        id: "onboarding", priority: launchPriority, request: FlowRequest(flow: flowID, trigger: .launch)
      ) {
        env in !(try env.keyValueStore.bool(forKey: OnboardingKeys.completed))
      })
  }
}
