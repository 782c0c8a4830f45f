import Foundation

/// Median seconds of `runs` timed runs of `body` (after one warm-up run).
func measureMedian(runs: Int, _ body: () throws -> Void) rethrows -> Double {
  try body()
  var samples: [Double] = []
  for _ in 0..<runs {
    let start = ContinuousClock.now
    try body()
    samples.append(seconds(ContinuousClock.now - start))
  }
  return median(samples)
}

/// The async variant of `measureMedian`.
@MainActor
func measureMedianAsync(runs: Int, _ body: () async throws -> Void) async rethrows -> Double {
  try await body()
  var samples: [Double] = []
  for _ in 0..<runs {
    let start = ContinuousClock.now
    try await body()
    samples.append(seconds(ContinuousClock.now - start))
  }
  return median(samples)
}

func seconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

func median(_ samples: [Double]) -> Double {
  let sorted = samples.sorted()
  guard !sorted.isEmpty else { return .nan }
  return sorted.count % 2 == 1
    ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// "12,345" for a console table.
func grouped(_ value: Double) -> String {
  let formatter = NumberFormatter()
  formatter.numberStyle = .decimal
  formatter.maximumFractionDigits = 0
  return formatter.string(from: NSNumber(value: value)) ?? String(Int(value))
}

/// Seconds one run of `body` takes (setup work that must run once, such as a fill).
func timeOnce(_ body: () throws -> Void) rethrows -> Double {
  let start = ContinuousClock.now
  try body()
  return seconds(ContinuousClock.now - start)
}
