import StrictJSON

/// A feature of a GrowthBook SDK payload (`{"features": {key: feature}}`): a default
/// value and rules tried in order.
public struct Feature: Sendable, Equatable, Codable {
  public var defaultValue: JSONValue
  public var rules: [FeatureRule]

  public init(defaultValue: JSONValue = .null, rules: [FeatureRule] = []) {
    self.defaultValue = defaultValue
    self.rules = rules
  }

  private enum CodingKeys: String, CodingKey { case defaultValue, rules }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    defaultValue = try c.decodeIfPresent(JSONValue.self, forKey: .defaultValue) ?? .null
    rules = try c.decodeIfPresent([FeatureRule].self, forKey: .rules) ?? []
  }
}

/// One rule of a feature: a forced value (optionally for a rollout share of users) or an
/// experiment whose variations are the feature's possible values.
public struct FeatureRule: Sendable, Equatable, Codable {
  public var id: String?
  public var condition: JSONValue?
  public var parentConditions: [ParentCondition]?
  /// The value a force rule gives; nil for an experiment rule. A forced `null` is `.null`.
  public var force: JSONValue?
  public var coverage: Double?
  public var range: BucketRange?
  public var hashAttribute: String?
  public var fallbackAttribute: String?
  public var hashVersion: Int?
  public var seed: String?
  public var filters: [Filter]?
  public var variations: [JSONValue]?
  public var contextualVariations: [JSONValue]?
  public var contextualBanditRef: String?
  public var key: String?
  public var weights: [Double]?
  public var namespace: Namespace?
  public var meta: [VariationMeta]?
  public var ranges: [BucketRange]?
  public var name: String?
  public var phase: String?
  public var disableStickyBucketing: Bool?
  public var bucketVersion: Int?
  public var minBucketVersion: Int?

  public init(force: JSONValue? = nil, variations: [JSONValue]? = nil, condition: JSONValue? = nil) {
    self.force = force
    self.variations = variations
    self.condition = condition
  }

  private enum CodingKeys: String, CodingKey {
    case id, condition, parentConditions, force, coverage, range, hashAttribute, fallbackAttribute
    case hashVersion, seed, filters, variations, contextualVariations, contextualBanditRef, key, weights
    case namespace, meta, ranges, name, phase, disableStickyBucketing, bucketVersion, minBucketVersion
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    id = try c.decodeIfPresent(String.self, forKey: .id)
    condition = try c.decodeIfPresent(JSONValue.self, forKey: .condition)
    parentConditions = try c.decodeIfPresent([ParentCondition].self, forKey: .parentConditions)
    // `"force" in rule`, as the JS SDK asks: a forced null is still a force rule.
    force = c.contains(.force) ? try c.decode(JSONValue.self, forKey: .force) : Optional<JSONValue>.none
    coverage = try c.decodeIfPresent(Double.self, forKey: .coverage)
    range = try c.decodeIfPresent(BucketRange.self, forKey: .range)
    hashAttribute = try c.decodeIfPresent(String.self, forKey: .hashAttribute)
    fallbackAttribute = try c.decodeIfPresent(String.self, forKey: .fallbackAttribute)
    hashVersion = try c.decodeIfPresent(Int.self, forKey: .hashVersion)
    seed = try c.decodeIfPresent(String.self, forKey: .seed)
    filters = try c.decodeIfPresent([Filter].self, forKey: .filters)
    variations = try c.decodeIfPresent([JSONValue].self, forKey: .variations)
    contextualVariations = try c.decodeIfPresent([JSONValue].self, forKey: .contextualVariations)
    contextualBanditRef = try c.decodeIfPresent(String.self, forKey: .contextualBanditRef)
    key = try c.decodeIfPresent(String.self, forKey: .key)
    weights = try c.decodeIfPresent([Double].self, forKey: .weights)
    namespace = try c.decodeIfPresent(Namespace.self, forKey: .namespace)
    meta = try c.decodeIfPresent([VariationMeta].self, forKey: .meta)
    ranges = try c.decodeIfPresent([BucketRange].self, forKey: .ranges)
    name = try c.decodeIfPresent(String.self, forKey: .name)
    phase = try c.decodeIfPresent(String.self, forKey: .phase)
    disableStickyBucketing = try c.decodeIfPresent(Bool.self, forKey: .disableStickyBucketing)
    bucketVersion = try c.decodeIfPresent(Int.self, forKey: .bucketVersion)
    minBucketVersion = try c.decodeIfPresent(Int.self, forKey: .minBucketVersion)
  }
}

/// A feature's value for one user, and where it came from.
public struct FeatureResult: Sendable, Equatable {
  public enum Source: String, Sendable {
    case unknownFeature, defaultValue, force, experiment, prerequisite, cyclicPrerequisite
    /// A prerequisite more than `GrowthBook.maxPrerequisiteDepth` features away: not
    /// evaluated, and the value is null, as for a cycle.
    case prerequisiteTooDeep
    /// Prerequisites that fan out to more than `GrowthBook.maxPrerequisiteVisits`
    /// evaluations (a diamond of 64 levels is 2^64): the value is null, as for a cycle.
    case prerequisitesTooMany
  }

  public var value: JSONValue
  public var source: Source
  /// The rule's id ("" when it has none or no rule decided).
  public var ruleId: String
  /// The experiment that decided the value, when one did.
  public var experiment: Experiment?
  public var experimentResult: ExperimentResult?

  /// JS truthiness of the value: `on` and `off` as GrowthBook reports them.
  public var on: Bool { value.isTruthy }
  public var off: Bool { !on }
}

/// A user's sticky assignments under one attribute value: `experimentKey__bucketVersion`
/// to the variation's key.
public struct StickyBucketDocument: Sendable, Equatable, Codable {
  public var attributeName: String
  public var attributeValue: String
  public var assignments: [String: String]

  public init(attributeName: String, attributeValue: String, assignments: [String: String]) {
    self.attributeName = attributeName
    self.attributeValue = attributeValue
    self.assignments = assignments
  }

  /// `attribute||value`, the document's key.
  public var key: String { attributeName + "||" + attributeValue }
}

/// The contextual bandit leaf an experiment was bucketed with.
public struct ContextualBanditAssignment: Sendable, Equatable, Codable {
  public var leafId: Int
  public var variationWeights: [Double]
  public var banditVersion: Int?

  public init(leafId: Int, variationWeights: [Double], banditVersion: Int? = nil) {
    self.leafId = leafId
    self.variationWeights = variationWeights
    self.banditVersion = banditVersion
  }
}

extension GrowthBook {
  /// The leaf id reported when a contextual bandit rule falls back to its marginal weights.
  public static let contextualBanditFallbackLeaf = -1

  /// How many prerequisites deep a feature is evaluated: each level is a nested call, and
  /// a payload's chain of thousands would overflow the stack.
  public static let maxPrerequisiteDepth = 64

  /// How many prerequisite evaluations one feature's evaluation makes at most: each
  /// feature may name several, and a shared one is evaluated again on every path to it.
  public static let maxPrerequisiteVisits = 10_000

  /// The longest chain of prerequisites among `features`, as `[feature, its prerequisite,
  /// …]`, and its length in links (the first feature by name among equals; empty and 0 when
  /// no feature has prerequisites). A missing feature ends a chain and a cycle is followed
  /// once around, as evaluation does. Computed without recursion, for a payload's check
  /// before any evaluation.
  public static func longestPrerequisiteChain(_ features: [String: Feature]) -> (
    chain: [String], links: Int
  ) {
    // The next feature on each one's longest chain, and that chain's length in links.
    var next: [String: String] = [:]
    let length: [String: Int] = foldPrerequisites(features, distinct: true) { id, parents in
      var best = 0
      for parent in parents where 1 + (parent.value ?? 0) > best {
        best = 1 + (parent.value ?? 0)
        next[id] = parent.id
      }
      return best
    }
    let deepest = length.filter { $0.value > 0 }.min { ($1.value, $0.key) < ($0.value, $1.key) }
    guard let start = deepest?.key, let links = deepest?.value else { return ([], 0) }
    var chain = [start]
    var seen: Set<String> = [start]
    while chain.count <= links, let parent = next[chain[chain.count - 1]] {
      chain.append(parent)
      guard seen.insert(parent).inserted else { break }
    }
    return (chain, links)
  }

  /// How many prerequisite evaluations evaluating each feature makes when every rule is
  /// reached (an upper bound: a failed prerequisite skips the rest of its rule), counted
  /// without recursion and without evaluating. A cycle is followed once around, as
  /// evaluation does; counts are capped just past `maxPrerequisiteVisits`.
  public static func prerequisiteVisits(_ features: [String: Feature]) -> [String: Int] {
    let cap = maxPrerequisiteVisits + 1
    return foldPrerequisites(features, distinct: false) { _, parents -> Int in
      parents.reduce(0) { total, parent in min(cap, total + 1 + (parent.value ?? 0)) }
    }
  }

  /// A value for every feature, computed after its prerequisites' values (depth first,
  /// without recursion, features in name order): `combine` gets the feature's
  /// prerequisites (each once when `distinct`) with their values, nil for a missing
  /// feature or one on the current path (a cycle, which evaluation stops at).
  static func foldPrerequisites<Value>(
    _ features: [String: Feature], distinct: Bool,
    _ combine: (_ id: String, _ parents: [(id: String, value: Value?)]) -> Value
  ) -> [String: Value] {
    func parents(_ id: String) -> [String] {
      let all = (features[id]?.rules ?? []).flatMap { $0.parentConditions ?? [] }.map(\.id)
      guard distinct else { return all }
      var seen: Set<String> = []
      return all.filter { seen.insert($0).inserted }
    }
    var values: [String: Value] = [:]
    var onPath: Set<String> = []
    for root in features.keys.sorted() where values[root] == nil {
      var path: [(id: String, parents: [String], index: Int)] = [(root, parents(root), 0)]
      onPath.insert(root)
      while let top = path.last {
        if top.index < top.parents.count {
          let parent = top.parents[top.index]
          path[path.count - 1].index += 1
          if values[parent] == nil, !onPath.contains(parent), features[parent] != nil {
            onPath.insert(parent)
            path.append((parent, parents(parent), 0))
          }
          continue
        }
        values[top.id] = combine(
          top.id, top.parents.map { ($0, onPath.contains($0) ? nil : values[$0]) })
        onPath.remove(top.id)
        path.removeLast()
      }
    }
    return values
  }

  /// Runs `experiment` for the user in `context`, step by step as GrowthBook's SDKs do
  /// (tracking callbacks aside). Sticky assignments made are lost; use the `inout` form
  /// to keep them.
  public static func run(_ experiment: Experiment, in context: ExperimentContext) -> ExperimentResult {
    run(CompiledExperiment(experiment), in: context)
  }

  /// Runs `experiment`, recording a new sticky assignment in `context` when sticky
  /// bucketing is on.
  public static func run(
    _ experiment: Experiment, in context: inout ExperimentContext, featureId: String? = nil
  )
    -> ExperimentResult
  {
    run(CompiledExperiment(experiment), in: &context, featureId: featureId)
  }

  /// Runs an experiment prepared once for many users: the same steps as above, without
  /// preparing it again per call. Sticky assignments made are lost.
  public static func run(_ experiment: CompiledExperiment, in context: ExperimentContext) -> ExperimentResult
  {
    var evaluation = Evaluation(context: context)
    return evaluation.run(experiment, featureId: nil)
  }

  /// Runs a prepared experiment, recording a new sticky assignment in `context` when
  /// sticky bucketing is on.
  public static func run(
    _ experiment: CompiledExperiment, in context: inout ExperimentContext, featureId: String? = nil
  ) -> ExperimentResult {
    var evaluation = Evaluation(context: context)
    let result = evaluation.run(experiment, featureId: featureId)
    context = evaluation.context
    return result
  }

  /// The value of feature `key` for the user in `context`, through its rules (force,
  /// rollout, experiment, conditions, prerequisites), as GrowthBook's SDKs evaluate it.
  public static func evalFeature(_ key: String, in context: inout ExperimentContext) -> FeatureResult {
    var evaluation = Evaluation(context: context)
    let result = evaluation.feature(key)
    context = evaluation.context
    return result
  }
}

/// One evaluation: the context (sticky documents change as users are bucketed) and the
/// features being evaluated, to stop cyclic prerequisites. Experiments run in
/// `ExperimentRun.swift`.
struct Evaluation {
  var context: ExperimentContext
  var stack: Set<String> = []
  /// How many prerequisites deep the feature being evaluated is.
  var depth = 0
  /// Prerequisite evaluations so far (`GrowthBook.maxPrerequisiteVisits` at most).
  var visits = 0

  var stickyBucketing: Bool { context.stickyBucketAssignmentDocs != nil }

  // MARK: features

  mutating func feature(_ id: String) -> FeatureResult {
    guard let feature = context.features[id] else {
      return FeatureResult(value: .null, source: .unknownFeature, ruleId: "")
    }
    if stack.contains(id) { return FeatureResult(value: .null, source: .cyclicPrerequisite, ruleId: "") }
    stack.insert(id)
    let outer = stack
    defer { stack = outer.subtracting([id]) }
    ruleLoop: for rule in feature.rules {
      stack = outer
      if let parents = rule.parentConditions {
        switch prerequisites(parents) {
        case .pass: break
        case .fail: continue ruleLoop
        case .gate: return FeatureResult(value: .null, source: .prerequisite, ruleId: "")
        case .cyclic: return FeatureResult(value: .null, source: .cyclicPrerequisite, ruleId: "")
        case .tooDeep: return FeatureResult(value: .null, source: .prerequisiteTooDeep, ruleId: "")
        case .tooMany: return FeatureResult(value: .null, source: .prerequisitesTooMany, ruleId: "")
        }
      }
      if let condition = rule.condition, !conditionPasses(condition) { continue }
      if let filters = rule.filters, isFilteredOut(filters) { continue }
      if let force = rule.force {
        let fallback = stickyBucketing && rule.disableStickyBucketing != true ? rule.fallbackAttribute : nil
        guard
          isIncludedInRollout(
            seed: rule.seed ?? id, hashAttribute: rule.hashAttribute, fallbackAttribute: fallback,
            range: rule.range, coverage: rule.coverage, hashVersion: rule.hashVersion)
        else { continue }
        return FeatureResult(value: force, source: .force, ruleId: rule.id ?? "")
      }
      guard let variations = rule.contextualVariations ?? rule.variations else { continue }
      var experiment = Experiment(
        key: rule.key ?? id, variations: variations, weights: rule.weights, coverage: rule.coverage,
        condition: rule.condition, hashAttribute: rule.hashAttribute, hashVersion: rule.hashVersion,
        seed: rule.seed,
        namespace: rule.namespace, filters: rule.filters, ranges: rule.ranges, meta: rule.meta,
        name: rule.name,
        fallbackAttribute: rule.fallbackAttribute, disableStickyBucketing: rule.disableStickyBucketing,
        bucketVersion: rule.bucketVersion, minBucketVersion: rule.minBucketVersion, phase: rule.phase)
      if let reference = rule.contextualBanditRef { applyContextualBandit(reference, to: &experiment) }
      var result = run(CompiledExperiment(experiment), featureId: id)
      if experiment.contextualBandit != nil, !(result.hashUsed && result.inExperiment) {
        experiment.contextualBandit = nil
      }
      guard result.inExperiment, result.passthrough != true else { continue }
      result.passthrough = nil
      return FeatureResult(
        value: result.value, source: .experiment, ruleId: rule.id ?? "", experiment: experiment,
        experimentResult: result)
    }
    return FeatureResult(value: feature.defaultValue, source: .defaultValue, ruleId: "")
  }

  enum PrerequisiteOutcome { case pass, fail, gate, cyclic, tooDeep, tooMany }

  mutating func prerequisites(_ parents: [ParentCondition]) -> PrerequisiteOutcome {
    guard depth < GrowthBook.maxPrerequisiteDepth else { return .tooDeep }
    depth += 1
    defer { depth -= 1 }
    let outer = stack
    for parent in parents {
      stack = outer
      visits += 1
      guard visits <= GrowthBook.maxPrerequisiteVisits else { return .tooMany }
      let parentResult = feature(parent.id)
      if parentResult.source == .cyclicPrerequisite { return .cyclic }
      if parentResult.source == .prerequisiteTooDeep { return .tooDeep }
      if parentResult.source == .prerequisitesTooMany { return .tooMany }
      if !GrowthBook.evalCondition(
        ["value": parentResult.value], parent.condition, savedGroups: context.savedGroups)
      {
        return parent.gate == true ? .gate : .fail
      }
    }
    stack = outer
    return .pass
  }

  func conditionPasses(_ condition: JSONValue) -> Bool {
    GrowthBook.evalCondition(.object(context.attributes), condition, savedGroups: context.savedGroups)
  }

  func isIncludedInRollout(
    seed: String, hashAttribute: String?, fallbackAttribute: String?, range: BucketRange?, coverage: Double?,
    hashVersion: Int?
  ) -> Bool {
    if range == nil, coverage == nil { return true }
    if range == nil, coverage == 0 { return false }
    guard let value = hashValue(hashAttribute, fallback: fallbackAttribute).text,
      let n = GrowthBook.hash(seed: seed, value: value, version: nonZero(hashVersion) ?? 1)
    else { return false }
    if let range { return range.contains(n) }
    // Closed, unlike a bucket range: GrowthBook's SDKs include a user whose hash equals the
    // coverage.
    if let coverage { return n <= coverage }
    return true
  }

  mutating func applyContextualBandit(_ reference: String, to experiment: inout Experiment) {
    guard let definition = context.contextualBandits[reference] else { return }
    let members = definition.objectValue ?? [:]
    var leaf: [String: JSONValue]?
    if case .array(let contexts)? = members["contexts"] {
      leaf = contexts.lazy.compactMap(\.objectValue).first { conditionPasses($0["condition"] ?? [:]) }
    }
    var weights = leaf?["weights"].flatMap { Self.validWeights($0, count: experiment.variations.count) }
    var leafId = leaf?["leafId"].flatMap(Self.integer)
    if weights == nil || leafId == nil {
      weights = nil
      leafId = nil
    }
    var assignment: ContextualBanditAssignment
    if let weights, let leafId {
      experiment.weights = weights
      assignment = ContextualBanditAssignment(leafId: leafId, variationWeights: weights)
    } else {
      assignment = ContextualBanditAssignment(
        leafId: GrowthBook.contextualBanditFallbackLeaf,
        variationWeights: Self.normalizedWeights(experiment.weights, count: experiment.variations.count))
    }
    assignment.banditVersion = members["banditVersion"].flatMap(Self.integer)
    experiment.contextualBandit = assignment
  }

  static func integer(_ value: JSONValue) -> Int? {
    guard case .number(let number) = value, number.rounded() == number else { return nil }
    return Int(exactly: number)
  }

  /// Finite, non-negative, one per variation, summing to 1 (±0.01).
  static func validWeights(_ value: JSONValue, count: Int) -> [Double]? {
    guard case .array(let items) = value, items.count == count else { return nil }
    var weights: [Double] = []
    for item in items {
      guard case .number(let weight) = item, weight.isFinite, weight >= 0 else { return nil }
      weights.append(weight)
    }
    let sum = weights.reduce(0, +)
    return (0.99...1.01).contains(sum) ? weights : nil
  }

  static func normalizedWeights(_ weights: [Double]?, count: Int) -> [Double] {
    if let weights, let valid = validWeights(.array(weights.map(JSONValue.number)), count: count) {
      return valid
    }
    return GrowthBook.equalWeights(count)
  }
}

extension JSONValue {
  var objectValue: [String: JSONValue]? {
    if case .object(let members) = self { return members }
    return nil
  }
}
