import Experiments
import Foundation

/// Assignments per second on one core: hash v2, bucket ranges, chooseVariation.
enum ExperimentsBenchmark {
  static func run(scale: Double) {
    let userCount = max(1_000, Int(1_000_000 * scale))
    let users = (1...userCount).map { "user-\($0)" }
    let seed = SeededHash(seed: "checkin-length")
    let weights = [0.5, 0.5]
    let experiment = Experiment(
      key: "checkin-length", variations: ["full", "quick"], weights: weights, hashVersion: 2)
    let contexts = users.prefix(max(1_000, userCount / 10)).map {
      ExperimentContext(attributes: ["id": .string($0)])
    }
    // Folded into the output so the optimizer cannot drop the work.
    var checksum = 0

    // The hot path: ranges computed once per experiment, then one hash and one lookup per user.
    let ranges = GrowthBook.bucketRanges(numVariations: 2, coverage: 1, weights: weights)
    let prepared = measureMedian(runs: 7) {
      for user in users {
        checksum &+= GrowthBook.chooseVariation(seed.hashVersion2(user), ranges: ranges) ?? -1
      }
    }
    // As the JS SDK does it: seed folded and ranges rebuilt for every user.
    let perCall = measureMedian(runs: 7) {
      for user in users {
        let n = GrowthBook.hash(seed: "checkin-length", value: user, version: 2) ?? 0
        let ranges = GrowthBook.bucketRanges(numVariations: 2, coverage: 1, weights: weights)
        checksum &+= GrowthBook.chooseVariation(n, ranges: ranges) ?? -1
      }
    }
    // The whole `run`, with its attribute lookups and result.
    let fullRun = measureMedian(runs: 7) {
      for context in contexts {
        checksum &+= GrowthBook.run(experiment, in: context).variationId
      }
    }

    func rate(_ count: Int, _ seconds: Double) -> String {
      String(format: "%.2f M assignments/s", Double(count) / seconds / 1e6)
    }
    print("Experiments benchmark (median of 7 runs, one core)")
    print("  prepared hash v2 + ranges + choose: \(rate(users.count, prepared))  (target ≥ 5 M/s)")
    print("  per-call hash v2 + bucketRanges + choose: \(rate(users.count, perCall))")
    print("  GrowthBook.run: \(rate(contexts.count, fullRun))")
    print("  checksum \(checksum)")
  }
}
