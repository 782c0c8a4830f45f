import Foundation

/// The median wall time of `runs` calls of `body`, in seconds.
func measureMedian(runs: Int, _ body: () throws -> Void) rethrows -> Double {
  var samples: [Double] = []
  for _ in 0..<runs {
    let start = ContinuousClock.now
    try body()
    samples.append(seconds(ContinuousClock.now - start))
  }
  return median(samples)
}

/// The median wall time of `runs` awaited calls of `body`, in seconds.
func measureMedianAsync(runs: Int, _ body: () async throws -> Void) async rethrows -> Double {
  var samples: [Double] = []
  for _ in 0..<runs {
    let start = ContinuousClock.now
    try await body()
    samples.append(seconds(ContinuousClock.now - start))
  }
  return median(samples)
}

private func seconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

private func median(_ samples: [Double]) -> Double {
  let sorted = samples.sorted()
  guard !sorted.isEmpty else { return 0 }
  let middle = sorted.count / 2
  return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
