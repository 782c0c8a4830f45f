import Foundation
import MoodTracking
import Testing

@Suite("Time-ordered entry ids")
struct TimeOrderedIDTests {
  struct Counter: RandomNumberGenerator {
    var state: UInt64 = 0
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      return state
    }
  }

  @Test func idsMadeLaterSortLaterAsTextAndCarryVersion7() {
    var random = Counter()
    let start = Date(timeIntervalSince1970: 1_772_438_400)
    // Two milliseconds apart: within one millisecond the order is the random part's.
    let ids = (0..<1_000).map {
      TimeOrderedID.make(at: start.addingTimeInterval(Double($0) * 0.002), using: &random)
    }
    let texts = ids.map(\.uuidString)
    #expect(zip(texts, texts.dropFirst()).allSatisfy { $0 < $1 }, "SQLite compares the text form")
    #expect(Set(texts).count == ids.count)
    for text in texts {
      let characters = Array(text)
      #expect(characters[14] == "7", "version nibble")
      #expect("89AB".contains(characters[19]), "RFC 9562 variant")
    }
  }

  @Test func theFirstSixBytesAreTheUnixMilliseconds() {
    var random = Counter()
    let id = TimeOrderedID.make(at: Date(timeIntervalSince1970: 1_772_438_400.123), using: &random)
    #expect(id.uuidString.prefix(13) == "019CAD8F-AC7B")
    #expect(UInt64(0x019C_AD8F_AC7B) == 1_772_438_400_123)
  }

  @Test func datesOutsideTheFortyEightBitRangeAreClampedNotTrappedOn() {
    var random = Counter()
    let cases: [(TimeInterval, String)] = [
      (1e300, "FFFFFFFF-FFFF"), (.infinity, "FFFFFFFF-FFFF"), (1e15, "FFFFFFFF-FFFF"),
      (-1e300, "00000000-0000"), (-.infinity, "00000000-0000"), (.nan, "00000000-0000"),
      (-62_135_596_800, "00000000-0000"),  // 0001-01-01
    ]
    for (seconds, prefix) in cases {
      let id = TimeOrderedID.make(at: Date(timeIntervalSince1970: seconds), using: &random)
      #expect(id.uuidString.prefix(13) == prefix, "\(seconds)")
      #expect(Array(id.uuidString)[14] == "7")
    }
  }
}
