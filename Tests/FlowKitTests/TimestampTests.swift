import FlowKit
import FlowKitTesting
import Foundation
import Testing

@Suite("Timestamps")
struct TimestampTests {
  static let foundation = Date.ISO8601FormatStyle(includingFractionalSeconds: false)

  /// Every kind of day: leap days, year ends, centuries, 1970 itself, and the seconds
  /// just before and after midnight, fractions included.
  @Test func printsWhatFoundationPrints() throws {
    var dates: [Date] = try [
      "1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "2000-02-29T12:00:00Z", "2100-03-01T00:00:00Z",
      "2024-12-31T23:59:59Z", "2026-03-02T07:00:04Z", "1900-02-28T23:59:59Z", "9999-12-31T23:59:59Z",
      "0001-01-01T00:00:00Z",
    ].map { try Date($0, strategy: Self.foundation) }
    var generator = SplitMix64(seed: 1)
    for _ in 0..<20_000 {
      dates.append(
        Date(timeIntervalSince1970: Double.random(in: -2_208_988_800...7_258_118_400, using: &generator)))
    }
    for date in dates + dates.map({ $0.addingTimeInterval(0.999) }) {
      #expect(
        Timestamp.string(from: date) == date.formatted(Self.foundation), "\(date.timeIntervalSince1970)")
    }
  }

  @Test func outOfRangeDatesFallBackToFoundation() {
    let far = Date(timeIntervalSince1970: 253_402_300_800)
    #expect(Timestamp.string(from: far) == far.formatted(Self.foundation))
    #expect(Timestamp.string(from: .distantPast) == Date.distantPast.formatted(Self.foundation))
  }
}
