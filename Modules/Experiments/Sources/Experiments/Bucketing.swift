/// A half-open slice `[start, end)` of the hash space; encoded as `[start, end]` like
/// GrowthBook's feature payloads.
public struct BucketRange: Sendable, Equatable, Codable {
  public var start: Double
  public var end: Double

  public init(_ start: Double, _ end: Double) {
    self.start = start
    self.end = end
  }

  /// Whether the hash `n` falls in this range (start inclusive, end exclusive).
  public func contains(_ n: Double) -> Bool { n >= start && n < end }

  public init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    start = try container.decode(Double.self)
    end = try container.decode(Double.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    try container.encode(start)
    try container.encode(end)
  }
}

/// A GrowthBook namespace: experiments sharing an id use disjoint slices of users.
/// Encoded as `[id, start, end]`.
public struct Namespace: Sendable, Equatable, Codable {
  public var id: String
  public var range: BucketRange

  public init(id: String, start: Double, end: Double) {
    self.id = id
    self.range = BucketRange(start, end)
  }

  public init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    id = try container.decode(String.self)
    range = BucketRange(try container.decode(Double.self), try container.decode(Double.self))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    try container.encode(id)
    try container.encode(range.start)
    try container.encode(range.end)
  }
}

/// GrowthBook's assignment algorithm (JS SDK, spec 0.8.0), as free functions.
public enum GrowthBook {
  /// `hash(seed, value, version)`: the user's position in [0, 1); nil for an unknown version.
  public static func hash(seed: String, value: String, version: Int) -> Double? {
    // Folds both strings in place rather than through `SeededHash`, which allocates.
    switch version {
    case 2:
      let inner = FNV.fold(FNV.fold(FNV.offsetBasis, string: seed), string: value)
      return Double(FNV.foldDecimal(FNV.offsetBasis, inner) % 10_000) / 10_000
    case 1:
      return Double(FNV.fold(FNV.fold(FNV.offsetBasis, string: value), string: seed) % 1000) / 1000
    default:
      return nil
    }
  }

  /// `n` equal weights summing to 1; empty for `n <= 0`.
  public static func equalWeights(_ n: Int) -> [Double] {
    n <= 0 ? [] : Array(repeating: 1 / Double(n), count: n)
  }

  /// One range per variation: variation i covers `coverage × weights[i]` starting at the
  /// sum of the earlier weights. Coverage is clamped to 0…1; weights of the wrong count or
  /// not summing to 1 (±0.01) fall back to equal weights, as the JS SDK does.
  public static func bucketRanges(
    numVariations: Int, coverage: Double = 1, weights: [Double]? = nil
  ) -> [BucketRange] {
    let coverage = min(max(coverage, 0), 1)
    let equal = equalWeights(numVariations)
    var weights = weights ?? equal
    if weights.count != numVariations { weights = equal }
    let total = weights.reduce(0, +)
    if total < 0.99 || total > 1.01 { weights = equal }
    var cumulative = 0.0
    return weights.map { weight in
      let start = cumulative
      cumulative += weight
      return BucketRange(start, start + coverage * weight)
    }
  }

  /// The index of the first range holding `n`; nil (the JS SDK's -1) when none does.
  public static func chooseVariation(_ n: Double, ranges: [BucketRange]) -> Int? {
    ranges.firstIndex { $0.contains(n) }
  }

  /// Whether the user with `hashValue` falls in `namespace` (a version 1 hash seeded
  /// with `"__" + id`).
  public static func inNamespace(_ hashValue: String, _ namespace: Namespace) -> Bool {
    let n = SeededHash(seed: "__" + namespace.id).hashVersion1(hashValue)
    return namespace.range.contains(n)
  }

  /// A variation forced by `key=N` in the query string of `url`, if N is a valid index.
  public static func queryStringOverride(key: String, url: String, numVariations: Int) -> Int? {
    let pieces = url.split(separator: "?", maxSplits: 2, omittingEmptySubsequences: false)
    guard pieces.count > 1, !pieces[1].isEmpty else { return nil }
    let search = pieces[1].prefix(while: { $0 != "#" })
    for pair in search.split(separator: "&", omittingEmptySubsequences: false) {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard parts[0] == key else { continue }
      // Only the first occurrence counts, as in the JS SDK.
      guard parts.count > 1, let index = JavaScript.parseInt(parts[1]) else { return nil }
      return index >= 0 && index < numVariations ? index : nil
    }
    return nil
  }
}
