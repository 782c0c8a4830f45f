import FlowKit
import Foundation
import MoodTrackingDomain

/// Where the check-in keeps its settings in the user's key-value store.
public enum CheckInKeys {
  /// Set once the person tapped `begin` on the Pet.
  public static let petSeen = "checkin.petSeen"
  /// Completed check-ins.
  public static let count = "checkin.count"
  /// Onboarding's flag, read by key: the check-in does not import Onboarding.
  public static let onboardingCompleted = "onboarding.completed"

  public static func count(in store: any KeyValueStore) throws -> Int {
    Int(try store.string(forKey: count) ?? "") ?? 0
  }

  static func incrementCount(in store: any KeyValueStore) throws {
    try store.set(String(try Self.count(in: store) + 1), forKey: count)
  }
}

/// Registers the `checkin` flow with its shipped variants, its queries and the daily
/// check-in launch rule. The app provides the mood ports (`MoodRepositoryKey`,
/// `StateOfMindStoreKey`).
public enum CheckInFeature: FlowFeature {
  /// Its screens' text in English and German, shipped with the module.
  public static var stringTables: Bundle? { .module }

  public static let flowID = MoodCheckInCoordinator.flowID
  /// Below onboarding's 200: a new user is onboarded before the first check-in.
  public static let launchPriority = 100
  public static let launchRuleID = "checkin.daily"
  public static var requiredServices: [any ServiceKey.Type] {
    [MoodRepositoryKey.self, StateOfMindStoreKey.self]
  }

  public static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try register(in: &registry, variants: CheckInVariant.shipped)
  }

  /// Registers the flow with `variants`; the first is the default.
  public static func register(in registry: inout FlowRegistry, variants: [CheckInVariant])
    throws(RegistryError)
  {
    registry.require(requiredServices, by: _typeName(Self.self, qualified: false))
    try registry.register(
      FlowDefinition(
        id: flowID, summary: "Notice, name and shape a feeling; saved as a mood",
        variants: variants.map(\.name), screens: screens(for: variants.flatMap(\.steps)),
        stepVariants: stepVariants,
        variantSteps: Dictionary(uniqueKeysWithValues: variants.map { ($0.name, $0.steps.map(\.name)) }),
        make: { context in
          let variant = variants.first { $0.name == context.variant } ?? variants[0]
          return MoodCheckInCoordinator(context: context, variant: variant)
        }))
    try registry.register(
      QueryDefinition(
        CheckInKeys.petSeen, type: .bool, summary: "whether the person began a check-in from the Pet once"
      ) { environment in
        .bool(try environment.keyValueStore.bool(forKey: CheckInKeys.petSeen))
      })
    try registry.register(
      QueryDefinition(CheckInKeys.count, type: .number, summary: "check-ins the person completed") {
        environment in
        .number(Double(try CheckInKeys.count(in: environment.keyValueStore)))
      })
    try registry.register(
      LaunchRule(
        id: launchRuleID, priority: launchPriority, request: FlowRequest(flow: flowID, trigger: .launch)
      ) { environment in
        guard try environment.keyValueStore.bool(forKey: CheckInKeys.onboardingCompleted) else {
          return false
        }
        return try await environment.moodHistory.todaysDailyMood() == nil
      })
  }

  /// Variants declared without code (an experiment file's `variants:`): an ordered
  /// subset of the built-in steps that asks for the score.
  public static let stepVariants = StepVariants(
    steps: CheckInVariant.builtInSteps.map(\.name),
    check: { names in
      names.contains(SensingStep().name) ? nil : "a check-in needs the sensing step, which asks for the score"
    },
    make: { context, names in
      let variant = CheckInVariant(name: context.variant, stepNames: names) ?? .full
      return MoodCheckInCoordinator(context: context, variant: variant)
    })

  /// Adds a variant to the registered check-in: new steps or a new order, with no edit
  /// to the steps or variants that exist.
  public static func registerVariant(_ variant: CheckInVariant, in registry: inout FlowRegistry)
    throws(RegistryError)
  {
    try registry.registerVariant(variant.name, of: flowID, screens: screens(for: variant.steps)) { context in
      MoodCheckInCoordinator(context: context, variant: variant)
    }
  }

  /// One declaration per screen; every screen but an intro can raise the exit confirmation.
  public static func screens(for steps: [any CheckInStep]) -> [ScreenDeclaration] {
    var seen = Set<String>()
    return steps.compactMap { step in
      guard seen.insert(step.screenID).inserted else { return nil }
      let exit = AlertDeclaration(MoodCheckInCoordinator.confirmExitAlertID, buttons: ["exit", "stay"])
      return ScreenDeclaration(
        step.screenID, elements: step.elementIDs, alerts: (step.isIntro ? [] : [exit]) + step.alerts,
        textFields: step.textFieldIDs, options: step.optionIDs)
    }
  }
}
