/// GrowthBook's deterministic hashing of a user into [0, 1), with a seed folded in ahead
/// of time so that hashing many users for one experiment allocates nothing.
///
/// Hashes are FNV-1a 32-bit over UTF-16 code units, as in GrowthBook's JS SDK:
/// version 1 is `fnv(value + seed) % 1000 / 1000`, version 2 is
/// `fnv(String(fnv(seed + value))) % 10000 / 10000`.
public struct SeededHash: Sendable {
  /// The seed (usually the experiment key).
  public let seed: String
  private let seedUnits: [UInt16]
  private let stateAfterSeed: UInt32

  public init(seed: String) {
    self.seed = seed
    seedUnits = Array(seed.utf16)
    stateAfterSeed = FNV.fold(FNV.offsetBasis, units: seedUnits)
  }

  /// The user's position in [0, 1) for hash `version` (1 or 2); nil for any other version.
  public func hash(_ value: String, version: Int) -> Double? {
    switch version {
    case 2: return hashVersion2(value)
    case 1: return hashVersion1(value)
    default: return nil
    }
  }

  /// Version 2 hash: `fnv(String(fnv(seed + value))) % 10000 / 10000`.
  public func hashVersion2(_ value: String) -> Double {
    let inner = FNV.fold(stateAfterSeed, string: value)
    return Double(FNV.foldDecimal(FNV.offsetBasis, inner) % 10_000) / 10_000
  }

  /// Version 1 hash: `fnv(value + seed) % 1000 / 1000` (biased; kept for compatibility).
  public func hashVersion1(_ value: String) -> Double {
    let state = FNV.fold(FNV.fold(FNV.offsetBasis, string: value), units: seedUnits)
    return Double(state % 1000) / 1000
  }
}

enum FNV {
  static let offsetBasis: UInt32 = 0x811C_9DC5
  static let prime: UInt32 = 0x0100_0193

  @inline(__always)
  static func step(_ state: UInt32, _ unit: UInt16) -> UInt32 {
    (state ^ UInt32(unit)) &* prime
  }

  static func fold(_ state: UInt32, units: [UInt16]) -> UInt32 {
    units.withUnsafeBufferPointer { units in
      var state = state
      for unit in units { state = step(state, unit) }
      return state
    }
  }

  /// Folds the UTF-16 code units of `string`. ASCII text (user ids, keys) has the same
  /// code units in UTF-8, so its contiguous UTF-8 bytes are read directly.
  @inline(__always)
  static func fold(_ state: UInt32, string: String) -> UInt32 {
    var text = string
    let ascii = text.withUTF8 { bytes -> UInt32? in
      var state = state
      for byte in bytes {
        if byte >= 0x80 { return nil }
        state = step(state, UInt16(byte))
      }
      return state
    }
    if let ascii { return ascii }
    var result = state
    for unit in string.utf16 { result = step(result, unit) }
    return result
  }

  /// Folds the decimal digits of `number`, as `String(number)` would spell them.
  @inline(__always)
  static func foldDecimal(_ state: UInt32, _ number: UInt32) -> UInt32 {
    var divisor: UInt32 = 1
    while number / divisor >= 10 { divisor &*= 10 }
    var rest = number
    var state = state
    while divisor > 0 {
      let digit = rest / divisor
      state = step(state, UInt16(48 + digit))
      rest -= digit &* divisor
      divisor /= 10
    }
    return state
  }
}
