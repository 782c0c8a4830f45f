/// A check-in variant: a name and the steps it shows, in order.
public struct CheckInVariant: Sendable {
  public var name: String
  public var steps: [any CheckInStep]

  public init(name: String, steps: [any CheckInStep]) {
    self.name = name
    self.steps = steps
  }

  /// Builds a variant from step names (a config entry such as `steps: [sensing, acting]`);
  /// nil names the first unknown step.
  public init?(name: String, stepNames: [String], library: [any CheckInStep] = CheckInVariant.builtInSteps) {
    var steps: [any CheckInStep] = []
    for stepName in stepNames {
      guard let step = library.first(where: { $0.name == stepName }) else { return nil }
      steps.append(step)
    }
    self.init(name: name, steps: steps)
  }

  /// Every step this module ships, in the order of the full check-in.
  public static let builtInSteps: [any CheckInStep] = [
    PetStep(), SensingStep(), NamingStep(), ShapingStep(), AttributingStep(), EvaluatingStep(), ActingStep(),
  ]

  /// Seven screens: the Pet (until begun once), then six counted steps.
  public static let full = CheckInVariant(name: "full", steps: builtInSteps)

  public static let quick = CheckInVariant(name: "quick", steps: [SensingStep(), NamingStep(), ActingStep()])

  /// The variants this module registers; the first is the default.
  public static let shipped: [CheckInVariant] = [.full, .quick]
}
