import StrictJSON

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
  /// With sticky bucketing, the attribute hashed when `hashAttribute` has no value.
  public var fallbackAttribute: String?
  /// Keeps this experiment out of sticky bucketing.
  public var disableStickyBucketing: Bool?
  /// Sticky assignments are kept per bucket version (default 0); raising it re-buckets.
  public var bucketVersion: Int?
  /// Users with a sticky assignment from an older version are left out (default 0).
  public var minBucketVersion: Int?
  public var phase: String?
  /// Set by a contextual bandit rule: the leaf and weights bucketing uses.
  public var contextualBandit: ContextualBanditAssignment?

  public init(
    key: String, variations: [JSONValue], weights: [Double]? = nil, coverage: Double? = nil,
    condition: JSONValue? = nil, parentConditions: [ParentCondition]? = nil, active: Bool = true,
    force: Int? = nil, hashAttribute: String? = nil, hashVersion: Int? = nil, seed: String? = nil,
    namespace: Namespace? = nil, filters: [Filter]? = nil, ranges: [BucketRange]? = nil,
    meta: [VariationMeta]? = nil, name: String? = nil, fallbackAttribute: String? = nil,
    disableStickyBucketing: Bool? = nil, bucketVersion: Int? = nil, minBucketVersion: Int? = nil,
    phase: String? = nil
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
    self.fallbackAttribute = fallbackAttribute
    self.disableStickyBucketing = disableStickyBucketing
    self.bucketVersion = bucketVersion
    self.minBucketVersion = minBucketVersion
    self.phase = phase
  }

  private enum CodingKeys: String, CodingKey {
    case key, variations, weights, coverage, condition, parentConditions, active, force
    case hashAttribute, hashVersion, seed, namespace, filters, ranges, meta, name
    case fallbackAttribute, disableStickyBucketing, bucketVersion, minBucketVersion, phase, contextualBandit
  }

  /// Only the fields that are set (`active` when false), as GrowthBook's SDKs report an
  /// experiment.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(key, forKey: .key)
    try c.encode(variations, forKey: .variations)
    try c.encodeIfPresent(weights, forKey: .weights)
    try c.encodeIfPresent(coverage, forKey: .coverage)
    try c.encodeIfPresent(condition, forKey: .condition)
    try c.encodeIfPresent(parentConditions, forKey: .parentConditions)
    if !active { try c.encode(active, forKey: .active) }
    try c.encodeIfPresent(force, forKey: .force)
    try c.encodeIfPresent(hashAttribute, forKey: .hashAttribute)
    try c.encodeIfPresent(hashVersion, forKey: .hashVersion)
    try c.encodeIfPresent(seed, forKey: .seed)
    try c.encodeIfPresent(namespace, forKey: .namespace)
    try c.encodeIfPresent(filters, forKey: .filters)
    try c.encodeIfPresent(ranges, forKey: .ranges)
    try c.encodeIfPresent(meta, forKey: .meta)
    try c.encodeIfPresent(name, forKey: .name)
    try c.encodeIfPresent(fallbackAttribute, forKey: .fallbackAttribute)
    try c.encodeIfPresent(disableStickyBucketing, forKey: .disableStickyBucketing)
    try c.encodeIfPresent(bucketVersion, forKey: .bucketVersion)
    try c.encodeIfPresent(minBucketVersion, forKey: .minBucketVersion)
    try c.encodeIfPresent(phase, forKey: .phase)
    try c.encodeIfPresent(contextualBandit, forKey: .contextualBandit)
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
    fallbackAttribute = try c.decodeIfPresent(String.self, forKey: .fallbackAttribute)
    disableStickyBucketing = try c.decodeIfPresent(Bool.self, forKey: .disableStickyBucketing)
    bucketVersion = try c.decodeIfPresent(Int.self, forKey: .bucketVersion)
    minBucketVersion = try c.decodeIfPresent(Int.self, forKey: .minBucketVersion)
    phase = try c.decodeIfPresent(String.self, forKey: .phase)
    contextualBandit = try c.decodeIfPresent(ContextualBanditAssignment.self, forKey: .contextualBandit)
  }
}

/// A prerequisite: the feature `id`'s current value, as `{"value": …}`, must satisfy
/// `condition`.
public struct ParentCondition: Sendable, Equatable, Codable {
  public var id: String
  public var condition: JSONValue
  /// A failing gate turns the whole feature off (value null), not just the rule.
  public var gate: Bool?

  public init(id: String, condition: JSONValue, gate: Bool? = nil) {
    self.id = id
    self.condition = condition
    self.gate = gate
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
  /// A feature rule whose chosen variation passes through goes on to the next rule.
  public var passthrough: Bool?

  public init(key: String? = nil, name: String? = nil, passthrough: Bool? = nil) {
    self.key = key
    self.name = name
    self.passthrough = passthrough
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
  public var forcedVariations: [String: Int] {
    get { more?.forcedVariations ?? [:] }
    set { unique().forcedVariations = newValue }
  }
  /// The current URL; `?key=N` in its query string forces variation N.
  public var url: String? {
    get { more?.url }
    set { unique().url = newValue }
  }
  /// Member lists for `$inGroup` / `$notInGroup`.
  public var savedGroups: [String: [JSONValue]] {
    get { more?.savedGroups ?? [:] }
    set { unique().savedGroups = newValue }
  }
  /// The features of a GrowthBook payload: what `evalFeature` and prerequisites read.
  public var features: [String: Feature] {
    get { more?.features ?? [:] }
    set { unique().features = newValue }
  }
  /// Contextual bandit definitions by id, as the payload carries them.
  public var contextualBandits: [String: JSONValue] {
    get { more?.contextualBandits ?? [:] }
    set { unique().contextualBandits = newValue }
  }
  /// Sticky bucketing: nil turns it off; otherwise the user's stored assignment documents by
  /// `attribute||value`, read before hashing and updated with every new assignment (the
  /// caller saves the documents that `changedStickyBuckets` names).
  public var stickyBucketAssignmentDocs: [String: StickyBucketDocument]? {
    get { more?.stickyBucketAssignmentDocs }
    set { unique().stickyBucketAssignmentDocs = newValue }
  }
  /// The keys of the documents this context changed, in order, for the caller to persist.
  public var changedStickyBuckets: [String] {
    get { more?.changedStickyBuckets ?? [] }
    set { unique().changedStickyBuckets = newValue }
  }

  /// The members a plain assignment leaves empty, behind one reference: none until one is
  /// set, shared by copies of the context until one of them changes it. So making and
  /// dropping a context for one user costs little.
  private var more: More?

  public init(
    attributes: [String: JSONValue] = [:], enabled: Bool = true, qaMode: Bool = false,
    forcedVariations: [String: Int] = [:], url: String? = nil,
    savedGroups: [String: [JSONValue]] = [:], features: [String: Feature] = [:],
    contextualBandits: [String: JSONValue] = [:],
    stickyBucketAssignmentDocs: [String: StickyBucketDocument]? = nil
  ) {
    self.attributes = attributes
    self.enabled = enabled
    self.qaMode = qaMode
    more = nil
    if !forcedVariations.isEmpty { self.forcedVariations = forcedVariations }
    if url != nil { self.url = url }
    if !savedGroups.isEmpty { self.savedGroups = savedGroups }
    if !features.isEmpty { self.features = features }
    if !contextualBandits.isEmpty { self.contextualBandits = contextualBandits }
    if stickyBucketAssignmentDocs != nil { self.stickyBucketAssignmentDocs = stickyBucketAssignmentDocs }
  }

  /// Only attributes (what an assignment of a plain experiment reads), built without
  /// touching the other members.
  init(attributes: [String: JSONValue]) {
    self.attributes = attributes
    enabled = true
    qaMode = false
    more = nil
  }

  public static func == (a: ExperimentContext, b: ExperimentContext) -> Bool {
    a.attributes == b.attributes && a.enabled == b.enabled && a.qaMode == b.qaMode
      && (a.more === b.more || (a.more ?? More()).same(as: b.more ?? More()))
  }

  /// The members to change: a copy of them when another context shares them, new ones
  /// when the context had none.
  private mutating func unique() -> More {
    if isKnownUniquelyReferenced(&more), let more { return more }
    let own = more?.copy() ?? More()
    more = own
    return own
  }

  /// Mutable, but only ever changed through `unique()`: a shared instance is never
  /// written, so passing contexts between threads is safe.
  private final class More: @unchecked Sendable {
    var forcedVariations: [String: Int] = [:]
    var url: String?
    var savedGroups: [String: [JSONValue]] = [:]
    var features: [String: Feature] = [:]
    var contextualBandits: [String: JSONValue] = [:]
    var stickyBucketAssignmentDocs: [String: StickyBucketDocument]?
    var changedStickyBuckets: [String] = []

    func copy() -> More {
      let copy = More()
      copy.forcedVariations = forcedVariations
      copy.url = url
      copy.savedGroups = savedGroups
      copy.features = features
      copy.contextualBandits = contextualBandits
      copy.stickyBucketAssignmentDocs = stickyBucketAssignmentDocs
      copy.changedStickyBuckets = changedStickyBuckets
      return copy
    }

    func same(as other: More) -> Bool {
      forcedVariations == other.forcedVariations && url == other.url && savedGroups == other.savedGroups
        && features == other.features && contextualBandits == other.contextualBandits
        && stickyBucketAssignmentDocs == other.stickyBucketAssignmentDocs
        && changedStickyBuckets == other.changedStickyBuckets
    }
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
  /// The hashed attribute's value as the user has it (text or number); "" when missing or
  /// falsy.
  public var hashValue: JSONValue
  /// The user's hash in [0, 1) when hashing chose the variation.
  public var bucket: Double?
  /// The feature whose rule ran the experiment.
  public var featureId: String?
  /// Whether a stored sticky assignment chose the variation.
  public var stickyBucketUsed: Bool = false
  /// The chosen variation's meta says to go on to the feature's next rule.
  public var passthrough: Bool?
  public var leafId: Int?
  public var variationWeights: [Double]?
  public var banditVersion: Int?
}
