import Foundation
import Testing

@testable import WellflowReports

@Suite("Transcript times")
struct TranscriptTimeTests {
  /// The hand-made format prints what `%.1f ms` prints, rounding included.
  @Test(
    arguments: [
      0.0, 0.000_04, 0.000_05, 0.000_149, 0.001, 0.012_34, 0.999_96, 1.5, 12_345.678_9, 86_400.0 * 365,
    ] as [Double])
  func millisecondsMatchPrintf(seconds: Double) {
    #expect(TranscriptFormatter.milliseconds(seconds) == String(format: "%.1f ms", seconds * 1000))
  }

  @Test func outOfRangeFallsBackToPrintf() {
    #expect(TranscriptFormatter.milliseconds(.infinity) == "inf ms")
    #expect(TranscriptFormatter.milliseconds(1e300) == String(format: "%.1f ms", 1e300 * 1000))
  }
}
