/// A GrowthBook experiment definition. Field names and defaults follow GrowthBook's
/// `Experiment` type, so a definition decodes from the same JSON.
public struct Experiment: Sendable, Equatable, Codable {
  /// The experiment key; also the hash seed unless `seed` is set.
  public var key: String
  /// One value per variation; index 0 is the control.
  public var variations: [JSONValue]
  public var weights: [Double]?
  /// Share of eligible users included, 0…1 (default 1).
  public var coverage: Double?
  /// Targeting condition on the context's attributes.
  public var condition: JSONValue?
  /// Prerequisite feature flags that must hold for the user to be included.
  public var parentConditions: [ParentCondition]?
  /// An inactive experiment includes nobody unless forced.
  public var active: Bool
  /// Assigns every included user this variation, without hashing (for QA).
  public var force: Int?
  /// The attribute whose value is hashed (default `id`).
  public var hashAttribute: String?
  /// 1 (default, GrowthBook's original) or 2.
  public var hashVersion: Int?
  public var seed: String?
  public var namespace: Namespace?
  /// Hash-based pre-filters; when present they replace `namespace`.
  public var filters: [Filter]?
  /// Explicit ranges per variation; when present they replace `weights` and `coverage`.
  public var ranges: [BucketRange]?
  /// Per-variation key and name reported in results.
  public var meta: [VariationMeta]?
  public var name: String?

  public init(
    key: String, variations: [JSONValue], weights: [Double]? = nil, coverage: Double? = nil,
    condition: JSONValue? = nil, parentConditions: [ParentCondition]? = nil, active: Bool = true,
    force: Int? = nil, hashAttribute: String? = nil, hashVersion: Int? = nil, seed: String? = nil,
    namespace: Namespace? = nil, filters: [Filter]? = nil, ranges: [BucketRange]? = nil,
    meta: [VariationMeta]? = nil, name: String? = nil
  ) {
    self.key = key
    self.variations = variations
    self.weights = weights
    self.coverage = coverage
    self.condition = condition
    self.parentConditions = parentConditions
    self.active = active
    self.force = force
    self.hashAttribute = hashAttribute
    self.hashVersion = hashVersion
    self.seed = seed
    self.namespace = namespace
    self.filters = filters
    self.ranges = ranges
    self.meta = meta
    self.name = name
  }

  private enum CodingKeys: String, CodingKey {
    case key, variations, weights, coverage, condition, parentConditions, active, force
    case hashAttribute, hashVersion, seed, namespace, filters, ranges, meta, name
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    key = try c.decode(String.self, forKey: .key)
    variations = try c.decode([JSONValue].self, forKey: .variations)
    weights = try c.decodeIfPresent([Double].self, forKey: .weights)
    coverage = try c.decodeIfPresent(Double.self, forKey: .coverage)
    condition = try c.decodeIfPresent(JSONValue.self, forKey: .condition)
    parentConditions = try c.decodeIfPresent([ParentCondition].self, forKey: .parentConditions)
    active = try c.decodeIfPresent(Bool.self, forKey: .active) ?? true
    force = try c.decodeIfPresent(Int.self, forKey: .force)
    hashAttribute = try c.decodeIfPresent(String.self, forKey: .hashAttribute)
    hashVersion = try c.decodeIfPresent(Int.self, forKey: .hashVersion)
    seed = try c.decodeIfPresent(String.self, forKey: .seed)
    namespace = try c.decodeIfPresent(Namespace.self, forKey: .namespace)
    filters = try c.decodeIfPresent([Filter].self, forKey: .filters)
    ranges = try c.decodeIfPresent([BucketRange].self, forKey: .ranges)
    meta = try c.decodeIfPresent([VariationMeta].self, forKey: .meta)
    name = try c.decodeIfPresent(String.self, forKey: .name)
  }
}

/// A prerequisite: the feature `id`'s current value, as `{"value": …}`, must satisfy
/// `condition`.
public struct ParentCondition: Sendable, Equatable, Codable {
  public var id: String
  public var condition: JSONValue

  public init(id: String, condition: JSONValue) {
    self.id = id
    self.condition = condition
  }
}

/// Includes only users whose hash of `attribute` under `seed` falls in one of `ranges`.
public struct Filter: Sendable, Equatable, Codable {
  public var seed: String
  public var ranges: [BucketRange]
  /// Default `id`.
  public var attribute: String?
  /// Default 2.
  public var hashVersion: Int?

  public init(seed: String, ranges: [BucketRange], attribute: String? = nil, hashVersion: Int? = nil) {
    self.seed = seed
    self.ranges = ranges
    self.attribute = attribute
    self.hashVersion = hashVersion
  }
}

/// How a variation is named in results.
public struct VariationMeta: Sendable, Equatable, Codable {
  public var key: String?
  public var name: String?

  public init(key: String? = nil, name: String? = nil) {
    self.key = key
    self.name = name
  }
}

/// What an assignment knows about the user and the session.
public struct ExperimentContext: Sendable, Equatable {
  public var attributes: [String: JSONValue]
  /// When false nobody is in any experiment.
  public var enabled: Bool
  /// QA mode includes nobody unless a variation is forced.
  public var qaMode: Bool
  /// Variation index per experiment key, ahead of hashing (Wellflow's `experiments:`).
  public var forcedVariations: [String: Int]
  /// The current URL; `?key=N` in its query string forces variation N.
  public var url: String?
  /// Member lists for `$inGroup` / `$notInGroup`.
  public var savedGroups: [String: [JSONValue]]
  /// Current values of feature flags, read by `parentConditions`. Wellflow evaluates no
  /// feature rules itself: the host supplies the values.
  public var featureValues: [String: JSONValue]

  public init(
    attributes: [String: JSONValue] = [:], enabled: Bool = true, qaMode: Bool = false,
    forcedVariations: [String: Int] = [:], url: String? = nil,
    savedGroups: [String: [JSONValue]] = [:], featureValues: [String: JSONValue] = [:]
  ) {
    self.attributes = attributes
    self.enabled = enabled
    self.qaMode = qaMode
    self.forcedVariations = forcedVariations
    self.url = url
    self.savedGroups = savedGroups
    self.featureValues = featureValues
  }
}

/// The outcome of running an experiment for one user.
public struct ExperimentResult: Sendable, Equatable, Codable {
  /// Whether the user is in the experiment. When false, `value` is the control's and
  /// no exposure should be recorded.
  public var inExperiment: Bool
  /// The variation index (0 when not in the experiment).
  public var variationId: Int
  public var value: JSONValue
  /// The variation's key: its meta key, else its index as text.
  public var key: String
  public var name: String?
  /// Whether hashing chose the variation (false when forced or excluded).
  public var hashUsed: Bool
  public var hashAttribute: String
  /// The hashed attribute's value as text; empty when the attribute is missing or falsy.
  public var hashValue: String
  /// The user's hash in [0, 1) when hashing chose the variation.
  public var bucket: Double?
}

extension GrowthBook {
  /// Runs `experiment` for the user in `context`, step by step as GrowthBook's JS SDK
  /// `runExperiment` does (sticky bucketing, URL targeting and tracking callbacks aside).
  public static func run(_ experiment: Experiment, in context: ExperimentContext) -> ExperimentResult {
    ExperimentRun(experiment: experiment, context: context).result()
  }
}

private struct ExperimentRun {
  let experiment: Experiment
  let context: ExperimentContext

  func result() -> ExperimentResult {
    let count = experiment.variations.count
    guard count >= 2, context.enabled else { return excluded() }
    if let url = context.url,
      let forced = GrowthBook.queryStringOverride(key: experiment.key, url: url, numVariations: count)
    {
      return make(variation: forced, hashUsed: false)
    }
    if let forced = context.forcedVariations[experiment.key] {
      return make(variation: forced, hashUsed: false)
    }
    guard experiment.active else { return excluded() }
    let (_, hashValue) = Self.hashAttribute(experiment.hashAttribute, in: context.attributes)
    guard let hashValue else { return excluded() }
    if let filters = experiment.filters {
      if isFilteredOut(filters) { return excluded() }
    } else if let namespace = experiment.namespace, !GrowthBook.inNamespace(hashValue, namespace) {
      return excluded()
    }
    if let condition = experiment.condition,
      !GrowthBook.evalCondition(.object(context.attributes), condition, savedGroups: context.savedGroups)
    {
      return excluded()
    }
    for parent in experiment.parentConditions ?? [] {
      let value = context.featureValues[parent.id] ?? .null
      if !GrowthBook.evalCondition(["value": value], parent.condition) { return excluded() }
    }
    let seed = experiment.seed.flatMap { $0.isEmpty ? nil : $0 } ?? experiment.key
    // JS `hashVersion || 1`: a missing or zero version means 1.
    let version = experiment.hashVersion.flatMap { $0 == 0 ? nil : $0 } ?? 1
    guard let n = GrowthBook.hash(seed: seed, value: hashValue, version: version) else {
      return excluded()
    }
    let ranges =
      experiment.ranges
      ?? GrowthBook.bucketRanges(
        numVariations: count, coverage: experiment.coverage ?? 1, weights: experiment.weights)
    guard let assigned = GrowthBook.chooseVariation(n, ranges: ranges) else { return excluded() }
    if let forced = experiment.force { return make(variation: forced, hashUsed: false) }
    if context.qaMode { return excluded() }
    return make(variation: assigned, hashUsed: true, bucket: n)
  }

  /// The attribute to hash and its value as text; the value is nil when missing or
  /// falsy (JS `!hashValue`), since such users cannot be bucketed.
  static func hashAttribute(_ name: String?, in attributes: [String: JSONValue]) -> (String, String?) {
    let name = name ?? "id"
    // A literal key wins over a dotted path, as in the JS SDK.
    let value = attributes[name] ?? JSONValue.object(attributes).value(atPath: name)
    guard value.isTruthy else { return (name, nil) }
    return (name, value.jsString)
  }

  private func isFilteredOut(_ filters: [Filter]) -> Bool {
    filters.contains { filter in
      guard let hashValue = Self.hashAttribute(filter.attribute, in: context.attributes).1 else {
        return true
      }
      let version = filter.hashVersion.flatMap { $0 == 0 ? nil : $0 } ?? 2
      guard let n = GrowthBook.hash(seed: filter.seed, value: hashValue, version: version) else {
        return true
      }
      return !filter.ranges.contains { $0.contains(n) }
    }
  }

  private func excluded() -> ExperimentResult { make(variation: -1, hashUsed: false) }

  private func make(variation: Int, hashUsed: Bool, bucket: Double? = nil) -> ExperimentResult {
    let valid = variation >= 0 && variation < experiment.variations.count
    let index = valid ? variation : 0
    let (attribute, hashValue) = Self.hashAttribute(experiment.hashAttribute, in: context.attributes)
    let meta = experiment.meta.flatMap { index < $0.count ? $0[index] : nil }
    return ExperimentResult(
      inExperiment: valid,
      variationId: index,
      value: experiment.variations.indices.contains(index) ? experiment.variations[index] : .null,
      key: meta?.key.flatMap { $0.isEmpty ? nil : $0 } ?? String(index),
      name: meta?.name,
      hashUsed: hashUsed,
      hashAttribute: attribute,
      hashValue: hashValue ?? "",
      bucket: bucket
    )
  }
}
