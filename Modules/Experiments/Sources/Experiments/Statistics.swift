import Foundation

/// A confidence interval for a proportion.
public struct ProportionInterval: Sendable, Equatable, Codable {
  public var lower: Double
  public var upper: Double

  public init(lower: Double, upper: Double) {
    self.lower = lower
    self.upper = upper
  }
}

/// A two-proportion z-test of a variation against the control.
public struct ProportionTest: Sendable, Equatable, Codable {
  /// Variation rate minus control rate.
  public var difference: Double
  public var z: Double
  /// Two-sided.
  public var pValue: Double
}

/// Small, dependency-free statistics for experiment reports.
public enum Statistics {
  /// z for a two-sided 95% interval.
  public static let z95 = 1.959963984540054

  /// The standard normal CDF, Φ(x) = erfc(−x/√2)/2.
  public static func normalCDF(_ x: Double) -> Double {
    erfc(-x / 2.0.squareRoot()) / 2
  }

  /// The Wilson score interval for `successes` of `trials`; nil without trials. Unlike the
  /// normal approximation it stays inside 0…1 and behaves at 0% and 100%.
  public static func wilsonInterval(successes: Int, trials: Int, z: Double = z95) -> ProportionInterval? {
    guard trials > 0 else { return nil }
    let n = Double(trials)
    let p = Double(successes) / n
    let z2 = z * z
    let denominator = 1 + z2 / n
    let center = (p + z2 / (2 * n)) / denominator
    let half = z / denominator * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot()
    return ProportionInterval(lower: max(0, center - half), upper: min(1, center + half))
  }

  /// The pooled two-proportion z-test of `successes/trials` against the control's; nil when
  /// either side has no trials or the pooled rate is 0 or 1 (no variance to test).
  public static func twoProportionTest(
    controlSuccesses: Int, controlTrials: Int, successes: Int, trials: Int
  ) -> ProportionTest? {
    guard controlTrials > 0, trials > 0 else { return nil }
    let p1 = Double(controlSuccesses) / Double(controlTrials)
    let p2 = Double(successes) / Double(trials)
    let pooled = Double(controlSuccesses + successes) / Double(controlTrials + trials)
    let standardError = (pooled * (1 - pooled) * (1 / Double(controlTrials) + 1 / Double(trials)))
      .squareRoot()
    guard standardError > 0 else { return nil }
    let z = (p2 - p1) / standardError
    return ProportionTest(difference: p2 - p1, z: z, pValue: 2 * normalCDF(-abs(z)))
  }
}
