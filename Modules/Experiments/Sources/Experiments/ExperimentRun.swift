import StrictJSON

/// An experiment prepared once for many runs: the seed folded into its hash, the bucket
/// ranges built, the condition compiled and the variation keys spelled. Immutable, so one
/// can be shared by any number of runs. `GrowthBook.run(_ experiment: Experiment, …)`
/// prepares one per call; `FlowExperiment` keeps one for all its assignments.
public final class CompiledExperiment: Sendable {
  /// The definition as given, with a contextual bandit's weights normalized.
  public let experiment: Experiment
  let count: Int
  /// `hashAttribute`, `id` by default.
  let hashAttribute: String
  let hash: SeededHash
  /// Nil for an unknown hash version: nobody can be hashed.
  let hashVersion: Int?
  /// The explicit ranges, else those of the weights and coverage.
  let ranges: [BucketRange]
  let condition: CompiledCondition?
  /// Per variation (at least one): its meta key, else its index as text.
  let keys: [String]

  public init(_ definition: Experiment) {
    var experiment = definition
    let count = experiment.variations.count
    if experiment.contextualBandit != nil, experiment.ranges != nil {
      experiment.contextualBandit = nil
    } else if var bandit = experiment.contextualBandit, let weights = experiment.weights {
      bandit.variationWeights = Evaluation.normalizedWeights(weights, count: count)
      experiment.contextualBandit = bandit
    }
    self.experiment = experiment
    self.count = count
    hashAttribute = experiment.hashAttribute ?? "id"
    hash = SeededHash(seed: experiment.seed.flatMap { $0.isEmpty ? nil : $0 } ?? experiment.key)
    // JS `hashVersion || 1`: a missing or zero version means 1.
    let version = experiment.hashVersion.flatMap { $0 == 0 ? nil : $0 } ?? 1
    hashVersion = version == 1 || version == 2 ? version : nil
    ranges =
      experiment.ranges
      ?? GrowthBook.bucketRanges(
        numVariations: count, coverage: experiment.coverage ?? 1, weights: experiment.weights)
    condition = experiment.condition.map(CompiledCondition.init)
    keys = (0..<max(count, 1)).map { index in
      let meta = experiment.meta.flatMap { index < $0.count ? $0[index] : nil }
      return meta?.key.flatMap { $0.isEmpty ? nil : $0 } ?? String(index)
    }
  }

  /// The user's position in [0, 1) for the experiment's seed and hash version.
  @inline(__always)
  func hash(_ value: String) -> Double? {
    switch hashVersion {
    case 1: hash.hashVersion1(value)
    case 2: hash.hashVersion2(value)
    default: nil
    }
  }

  /// The first range holding `n`, as `GrowthBook.chooseVariation`.
  @inline(__always)
  func chooseVariation(_ n: Double) -> Int? {
    for index in ranges.indices where ranges[index].contains(n) { return index }
    return nil
  }
}

/// The hashed attribute of a run: its name, its value as the user has it, and that value
/// as text (nil when missing or falsy).
struct HashedAttribute {
  var attribute: String
  var value: JSONValue
  var text: String?
}

/// What the algorithm decided for one user, before it is reported.
struct Decision {
  /// The variation index; -1 when the user is not in the experiment.
  var variation: Int
  var hashUsed = false
  var bucket: Double? = nil
  var stickyBucketUsed = false
}

extension Evaluation {
  /// GrowthBook's `run` (JS SDK, spec 0.8.0), reported as its SDKs report it, recording a
  /// new sticky assignment when sticky bucketing is on.
  mutating func run(_ compiled: CompiledExperiment, featureId: String?) -> ExperimentResult {
    let sticky = stickyBucketing && compiled.experiment.disableStickyBucketing != true
    let hashed = hashValue(
      compiled.hashAttribute, fallback: sticky ? compiled.experiment.fallbackAttribute : nil)
    let decision = decide(compiled, hashText: hashed.text, sticky: sticky)
    let result = result(compiled, decision, hashed: hashed, featureId: featureId)
    // Only a hashed (or stored) assignment is kept; a force or QA mode is not.
    if sticky, decision.hashUsed { persistSticky(compiled.experiment, result: result) }
    return result
  }

  /// The one assignment algorithm, used by `GrowthBook.run`, feature rules and
  /// `FlowExperiment.assign` alike: `hashText` is the text of the user's `hashValue` for
  /// the experiment (nil when they have none), `sticky` whether stored assignments are read.
  @inline(__always)
  mutating func decide(_ compiled: CompiledExperiment, hashText: String?, sticky: Bool) -> Decision {
    let excluded = Decision(variation: -1)
    let count = compiled.count
    guard count >= 2, context.enabled else { return excluded }
    if let url = context.url,
      let index = GrowthBook.queryStringOverride(key: compiled.experiment.key, url: url, numVariations: count)
    {
      return Decision(variation: index)
    }
    if !context.forcedVariations.isEmpty, let index = context.forcedVariations[compiled.experiment.key] {
      return Decision(variation: index)
    }
    guard compiled.experiment.active, let hashText else { return excluded }

    var assigned = -1
    var foundSticky = false
    var versionBlocked = false
    if sticky {
      (assigned, versionBlocked) = stickyVariation(compiled.experiment)
      foundSticky = assigned >= 0
    }
    if !foundSticky {
      if let filters = compiled.experiment.filters {
        if isFilteredOut(filters) { return excluded }
      } else if let namespace = compiled.experiment.namespace, !GrowthBook.inNamespace(hashText, namespace) {
        return excluded
      }
      if let condition = compiled.condition,
        !condition.matches(attributes: context.attributes, savedGroups: context.savedGroups)
      {
        return excluded
      }
      if let parents = compiled.experiment.parentConditions, prerequisites(parents) != .pass {
        return excluded
      }
    }
    guard let n = compiled.hash(hashText) else { return excluded }
    if !foundSticky { assigned = compiled.chooseVariation(n) ?? -1 }
    if versionBlocked { return Decision(variation: -1, stickyBucketUsed: true) }
    guard assigned >= 0 else { return excluded }
    if let force = compiled.experiment.force { return Decision(variation: force) }
    if context.qaMode { return excluded }
    return Decision(variation: assigned, hashUsed: true, bucket: n, stickyBucketUsed: foundSticky)
  }

  /// The hashed attribute and its value, trying the fallback attribute when the first has
  /// none.
  @inline(__always)
  func hashValue(_ name: String?, fallback: String?) -> HashedAttribute {
    let name = name ?? "id"
    let value = attribute(name)
    if value.isTruthy { return HashedAttribute(attribute: name, value: value, text: value.jsString) }
    if let fallback {
      let other = attribute(fallback)
      if other.isTruthy { return HashedAttribute(attribute: fallback, value: other, text: other.jsString) }
    }
    return HashedAttribute(attribute: name, value: "", text: nil)
  }

  /// The text of attribute `name` as hashed (nil when missing or falsy), without fallback.
  @inline(__always)
  func hashText(_ name: String) -> String? {
    let value = attribute(name)
    if case .string(let text) = value { return text.isEmpty ? nil : text }
    return value.isTruthy ? value.jsString : nil
  }

  /// The attribute `name`: a literal key wins over a dotted path, as in the JS SDK.
  @inline(__always)
  func attribute(_ name: String) -> JSONValue {
    if let value = JSONValue.member(name, of: context.attributes) { return value }
    // Without a dot the path is the key itself, already missing.
    guard name.utf8.contains(UInt8(ascii: ".")) else { return .null }
    return JSONValue.object(context.attributes).value(atPath: name)
  }

  func isFilteredOut(_ filters: [Filter]) -> Bool {
    filters.contains { filter in
      guard let value = hashValue(filter.attribute, fallback: nil).text,
        let n = GrowthBook.hash(seed: filter.seed, value: value, version: nonZero(filter.hashVersion) ?? 2)
      else { return true }
      return !filter.ranges.contains { $0.contains(n) }
    }
  }

  func nonZero(_ version: Int?) -> Int? { version.flatMap { $0 == 0 ? nil : $0 } }

  static func stickyKey(_ experimentKey: String, _ version: Int?) -> String {
    experimentKey + "__" + String(version ?? 0)
  }

  /// The stored assignments for the experiment's hash attribute, over those of its
  /// fallback attribute.
  func stickyAssignments(_ experiment: Experiment) -> [String: String] {
    let documents = context.stickyBucketAssignmentDocs ?? [:]
    var assignments: [String: String] = [:]
    if let fallback = experiment.fallbackAttribute {
      let found = hashValue(fallback, fallback: nil)
      if let text = found.text, let document = documents[found.attribute + "||" + text] {
        assignments.merge(document.assignments) { _, new in new }
      }
    }
    let primary = hashValue(experiment.hashAttribute, fallback: nil)
    if let document = documents[primary.attribute + "||" + (primary.text ?? "")] {
      assignments.merge(document.assignments) { _, new in new }
    }
    return assignments
  }

  /// The stored variation (-1 when none), and whether an older bucket version blocks the user.
  func stickyVariation(_ experiment: Experiment) -> (Int, Bool) {
    let assignments = stickyAssignments(experiment)
    let minimum = experiment.minBucketVersion ?? 0
    // The stored keys, not every version below the minimum: a payload's minBucketVersion
    // may be any integer, and counting up to it could take forever.
    let prefix = experiment.key + "__"
    if minimum > 0,
      assignments.keys.contains(where: { key in
        key.hasPrefix(prefix) && Int(key.dropFirst(prefix.count)).map { (0..<minimum).contains($0) } == true
      })
    {
      return (-1, true)
    }
    guard let key = assignments[Self.stickyKey(experiment.key, experiment.bucketVersion)], !key.isEmpty,
      let index = (experiment.meta ?? []).firstIndex(where: { $0.key == key })
    else { return (-1, false) }
    return (index, false)
  }

  mutating func persistSticky(_ experiment: Experiment, result: ExperimentResult) {
    guard let text = hashValue(experiment.hashAttribute, fallback: experiment.fallbackAttribute).text else {
      return
    }
    let attribute = result.hashAttribute
    let key = attribute + "||" + text
    var documents = context.stickyBucketAssignmentDocs ?? [:]
    let existing = documents[key]?.assignments ?? [:]
    var assignments = existing
    assignments[Self.stickyKey(experiment.key, experiment.bucketVersion)] = result.key
    guard assignments != existing else { return }
    documents[key] = StickyBucketDocument(
      attributeName: attribute, attributeValue: text, assignments: assignments)
    context.stickyBucketAssignmentDocs = documents
    if !context.changedStickyBuckets.contains(key) { context.changedStickyBuckets.append(key) }
  }

  func result(
    _ compiled: CompiledExperiment, _ decision: Decision, hashed: HashedAttribute, featureId: String?
  ) -> ExperimentResult {
    let valid = decision.variation >= 0 && decision.variation < compiled.count
    let index = valid ? decision.variation : 0
    let hashUsed = decision.hashUsed
    let meta = compiled.experiment.meta.flatMap { index < $0.count ? $0[index] : nil }
    var result = ExperimentResult(
      inExperiment: valid,
      variationId: index,
      value: index < compiled.count ? compiled.experiment.variations[index] : .null,
      key: compiled.keys[index],
      name: meta?.name,
      hashUsed: hashUsed,
      hashAttribute: hashed.attribute,
      hashValue: hashed.value,
      bucket: decision.bucket,
      featureId: featureId,
      stickyBucketUsed: decision.stickyBucketUsed,
      passthrough: meta?.passthrough
    )
    if hashUsed, valid, let bandit = compiled.experiment.contextualBandit {
      result.leafId = bandit.leafId
      result.variationWeights = bandit.variationWeights
      result.banditVersion = bandit.banditVersion
    }
    return result
  }
}
