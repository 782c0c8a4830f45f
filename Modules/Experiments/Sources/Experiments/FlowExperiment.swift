import StrictJSON

/// An experiment on a flow as an experiment file's `experiments:` declares it: each variation
/// names a variant of `flow`; the first is the control.
public struct FlowExperiment: Sendable, Equatable {
  // Every change rebuilds the compiled form, so `assign` parses and builds nothing.
  public var key: String { didSet { recompile() } }
  public var flow: String
  public var variations: [String] { didSet { recompile() } }
  /// Equal by default.
  public var weights: [Double]? { didSet { recompile() } }
  /// Share of eligible users included, 0…1 (default 1).
  public var coverage: Double? { didSet { recompile() } }
  /// GrowthBook's default when omitted is 1, so the same experiment keeps its users when
  /// it moves to GrowthBook; 2 is the newer, better-distributed hash.
  public var hashVersion: Int? { didSet { recompile() } }
  /// GrowthBook condition on the user's attributes (`id`, `skill`, `daysSinceFirstLaunch`).
  public var condition: JSONValue? { didSet { recompile() } }
  /// Default `id` (the user id).
  public var hashAttribute: String? { didSet { recompile() } }
  /// Default the key.
  public var seed: String? { didSet { recompile() } }
  public var namespace: Namespace? { didSet { recompile() } }

  /// `growthBook` prepared for assignment: condition parsed, hash seeded, ranges built.
  private var compiled: CompiledExperiment

  public static let hashVersions = [1, 2]
  /// How far the weights may sum from 1.
  public static let weightTolerance = 0.001

  public init(
    key: String, flow: String, variations: [String], weights: [Double]? = nil, coverage: Double? = nil,
    hashVersion: Int? = nil, condition: JSONValue? = nil, hashAttribute: String? = nil, seed: String? = nil,
    namespace: Namespace? = nil
  ) {
    self.key = key
    self.flow = flow
    self.variations = variations
    self.weights = weights
    self.coverage = coverage
    self.hashVersion = hashVersion
    self.condition = condition
    self.hashAttribute = hashAttribute
    self.seed = seed
    self.namespace = namespace
    compiled = Self.compile(
      key: key, variations: variations, weights: weights, coverage: coverage, hashVersion: hashVersion,
      condition: condition, hashAttribute: hashAttribute, seed: seed, namespace: namespace)
  }

  private mutating func recompile() {
    compiled = Self.compile(
      key: key, variations: variations, weights: weights, coverage: coverage, hashVersion: hashVersion,
      condition: condition, hashAttribute: hashAttribute, seed: seed, namespace: namespace)
  }

  /// The same experiment in GrowthBook's model (variation values are the variant names),
  /// prepared for assignment.
  private static func compile(
    key: String, variations: [String], weights: [Double]?, coverage: Double?, hashVersion: Int?,
    condition: JSONValue?, hashAttribute: String?, seed: String?, namespace: Namespace?
  ) -> CompiledExperiment {
    CompiledExperiment(
      Experiment(
        key: key, variations: variations.map(JSONValue.string), weights: weights, coverage: coverage,
        condition: condition, hashAttribute: hashAttribute, hashVersion: hashVersion, seed: seed,
        namespace: namespace))
  }

  public static func == (a: FlowExperiment, b: FlowExperiment) -> Bool {
    a.key == b.key && a.flow == b.flow && a.variations == b.variations && a.weights == b.weights
      && a.coverage == b.coverage && a.hashVersion == b.hashVersion && a.condition == b.condition
      && a.hashAttribute == b.hashAttribute && a.seed == b.seed && a.namespace == b.namespace
  }

  /// The same experiment in GrowthBook's model: variation values are the variant names.
  public var growthBook: Experiment { compiled.experiment }

  /// A problem with one field of the definition.
  public struct Problem: Sendable, Equatable, CustomStringConvertible {
    /// The field (`weights`, `coverage`, …); `condition` problems carry their path too.
    public var field: String
    public var conditionPath: [ConditionPathElement]
    public var message: String

    public init(field: String, conditionPath: [ConditionPathElement] = [], message: String) {
      self.field = field
      self.conditionPath = conditionPath
      self.message = message
    }

    public var description: String { message }
  }

  /// What is wrong with the definition on its own (the flow and its variants are checked
  /// by whoever knows the registered flows). Empty when it can run.
  public func problems() -> [Problem] {
    var problems: [Problem] = []
    func report(_ field: String, _ message: String) {
      problems.append(Problem(field: field, message: message))
    }
    if variations.count < 2 {
      report("variations", "an experiment needs at least two variations, got \(variations.count)")
    }
    var seen = Set<String>()
    for variation in variations where !seen.insert(variation).inserted {
      report("variations", "variation '\(variation)' is listed twice")
    }
    if let weights {
      if weights.count != variations.count {
        report("weights", "weights has \(weights.count) values for \(variations.count) variations")
      } else if let negative = weights.first(where: { $0 < 0 }) {
        report("weights", "weights must not be negative, got \(format(negative))")
      } else {
        let sum = weights.reduce(0, +)
        if abs(sum - 1) > Self.weightTolerance {
          report("weights", "weights must sum to 1 (±\(format(Self.weightTolerance))), got \(format(sum))")
        }
      }
    }
    if let coverage, !(0...1).contains(coverage) {
      report("coverage", "coverage must be between 0 and 1, got \(format(coverage))")
    }
    if let hashVersion, !Self.hashVersions.contains(hashVersion) {
      report("hashVersion", "unknown hashVersion \(hashVersion) (GrowthBook has 1, the default, and 2)")
    }
    if let namespace {
      let range = namespace.range
      if !(0 <= range.start && range.start <= range.end && range.end <= 1) {
        report(
          "namespace",
          "namespace range must satisfy 0 ≤ start ≤ end ≤ 1, got \(format(range.start))…\(format(range.end))")
      }
    }
    if let condition {
      for problem in GrowthBook.conditionProblems(condition) {
        problems.append(Problem(field: "condition", conditionPath: problem.path, message: problem.message))
      }
    }
    return problems
  }

  /// The variation a user sees: `GrowthBook.run` on `growthBook`, prepared once (the
  /// condition compiled, the hash seeded, the ranges built). `forced` (a variation name,
  /// from a script's `experiments:`) wins over hashing and targeting.
  public func assign(attributes: [String: JSONValue], forced: String? = nil) -> FlowAssignment {
    var evaluation = Evaluation(context: ExperimentContext(attributes: attributes))
    if let forced, let index = variations.firstIndex(of: forced) {
      evaluation.context.forcedVariations = [key: index]
    }
    // What `GrowthBook.run` decides, without the parts of its result nobody reads here.
    let decision = evaluation.decide(
      compiled, hashText: evaluation.hashText(compiled.hashAttribute), sticky: false)
    let inExperiment = decision.variation >= 0 && decision.variation < variations.count
    let id = inExperiment ? decision.variation : 0
    return FlowAssignment(
      experiment: key, flow: flow, variation: variations.isEmpty ? "" : variations[id], variationId: id,
      inExperiment: inExperiment, hashUsed: decision.hashUsed)
  }

  private func format(_ number: Double) -> String { JSONValue.number(number).jsString }
}

/// One user's assignment to a flow experiment.
public struct FlowAssignment: Sendable, Equatable {
  public var experiment: String
  public var flow: String
  /// The variation's name: the flow variant to present (the control when not included).
  public var variation: String
  public var variationId: Int
  /// False when coverage, the condition or the namespace leave the user out: they see
  /// the flow's default variant and no exposure is recorded.
  public var inExperiment: Bool
  /// True when hashing chose the variation, false when it was forced.
  public var hashUsed: Bool

  public init(
    experiment: String, flow: String, variation: String, variationId: Int, inExperiment: Bool, hashUsed: Bool
  ) {
    self.experiment = experiment
    self.flow = flow
    self.variation = variation
    self.variationId = variationId
    self.inExperiment = inExperiment
    self.hashUsed = hashUsed
  }
}
