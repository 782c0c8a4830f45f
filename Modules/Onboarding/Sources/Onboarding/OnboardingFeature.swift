import FlowKit

/// Registers the `onboarding` flow, its queries and the launch rule
/// "not completed → onboarding", which is asked before every other rule.
public enum OnboardingFeature: FlowFeature {
  public static let flowID = "onboarding"
  public static let launchPriority = 200

  public static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try registry.register(
      FlowDefinition(
        id: flowID, summary: "Welcome, skill level and a finale; runs once per user",
        variants: OnboardingVariant.allCases.map(\.rawValue),
        screens: [
          ScreenDeclaration("onboarding.welcome", elements: ["continue"]),
          ScreenDeclaration("onboarding.features", elements: ["continue"]),
          ScreenDeclaration("onboarding.skill", elements: ["skill", "continue"]),
          ScreenDeclaration("onboarding.finale", elements: ["continue"]),
        ],
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
