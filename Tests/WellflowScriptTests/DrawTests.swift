import Foundation
import Testing
import YAMLTree

@testable import WellflowScript

/// A population's draws are its identity: a seed must draw what it drew before, or every
/// committed population, report and experiment figure changes. The draw is FNV-1a of
/// "user\0NAME:LINE:COLUMN\0OCCURRENCE[\0STREAM]" mixed with the seed, NAME the file's
/// last path component; this is that text, spelled the way it was first written.
@MainActor
@Suite struct DrawTests {
  nonisolated static func reference(
    seed: UInt64, user: String, step: SourcePosition, occurrence: Int, stream: String
  )
    -> Double
  {
    var state: UInt64 = 0xCBF2_9CE4_8422_2325
    let suffix = stream.isEmpty ? "" : "\u{0}\(stream)"
    let name = (step.file as NSString).lastPathComponent
    for byte in "\(user)\u{0}\(name):\(step.line):\(step.column)\u{0}\(occurrence)\(suffix)".utf8 {
      state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
    var z = state ^ (seed &+ 0x9E37_79B9_7F4A_7C15)
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    z ^= z >> 31
    return Double(z >> 11) / Double(UInt64(1) << 53)
  }

  @Test(arguments: [
    ("Apps/Wellflow/Scripts/experiment-checkin.yaml", "user-7", 12, 5, 0, ""),
    ("experiment-checkin.yaml", "user-7", 12, 5, 0, ""),
    ("/abs/dir/sub/run.yaml", "u", 1, 1, 3, "think"),
    ("", "", 0, 0, 0, "x"),
    ("a/b/ünïcode.yaml", "üser", 123_456, 78, 9_999, "think"),
  ])
  func aDrawIsTheHashOfItsText(
    _ file: String, _ user: String, _ line: Int, _ column: Int, _ occurrence: Int, _ stream: String
  ) {
    let step = SourcePosition(file: file, line: line, column: column)
    for seed: UInt64 in [0, 1, 42, .max] {
      #expect(
        ScriptRunner.draw(seed: seed, user: user, step: step, occurrence: occurrence, stream: stream)
          == Self.reference(seed: seed, user: user, step: step, occurrence: occurrence, stream: stream))
    }
  }
}
