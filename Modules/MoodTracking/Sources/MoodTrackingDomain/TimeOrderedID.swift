import Foundation

/// UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Ids made
/// later sort later, so SQLite appends index entries instead of scattering them over
/// the whole B-tree, and a table of years of moods stays cheap to insert into.
public enum TimeOrderedID {
  static let maxMilliseconds = Double((1 << 48) - 1)

  public static func make(at date: Date) -> UUID {
    var generator = SystemRandomNumberGenerator()
    return make(at: date, using: &generator)
  }

  public static func make<Random: RandomNumberGenerator>(at date: Date, using random: inout Random) -> UUID {
    // 48 bits of milliseconds reach the year 10889; dates outside 1970…then (or NaN) are
    // clamped rather than trapped on: ids stay unique through their random bits.
    let raw = (date.timeIntervalSince1970 * 1_000).rounded(.down)
    let milliseconds = raw > 0 ? UInt64(min(raw, Self.maxMilliseconds)) : 0
    let high = random.next() as UInt64
    let low = random.next() as UInt64
    var bytes = [UInt8](repeating: 0, count: 16)
    for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
    bytes[6] = 0x70 | UInt8(truncatingIfNeeded: high & 0x0F)
    bytes[7] = UInt8(truncatingIfNeeded: high >> 8)
    bytes[8] = 0x80 | UInt8(truncatingIfNeeded: low & 0x3F)
    for index in 9..<16 { bytes[index] = UInt8(truncatingIfNeeded: low >> (8 * (index - 8))) }
    return UUID(
      uuid: (
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
        bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
      ))
  }
}
