import Foundation

/// A confidence interval for a proportion (or a mean).
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
    // At 0% and 100% the bound is exactly 0 or 1 (rounding would leave 1e-18 or so).
    return ProportionInterval(
      lower: successes == 0 ? 0 : max(0, center - half),
      upper: successes == trials ? 1 : min(1, center + half))
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

extension Statistics {
  /// The regularized upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a), for a > 0 and
  /// x ≥ 0 (series below a + 1, continued fraction above, as in Numerical Recipes §6.2).
  public static func regularizedUpperGamma(_ a: Double, _ x: Double) -> Double {
    guard a > 0, x.isFinite, !x.isNaN else { return x.isInfinite ? 0 : .nan }
    if x <= 0 { return 1 }
    let logPrefix = a * log(x) - x - lgamma(a)
    if x < a + 1 {
      var term = 1 / a
      var sum = term
      var n = a
      for _ in 0..<10_000 {
        n += 1
        term *= x / n
        sum += term
        if abs(term) < abs(sum) * 1e-16 { break }
      }
      return max(0, min(1, 1 - sum * exp(logPrefix)))
    }
    let tiny = 1e-300
    var b = x + 1 - a
    var c = 1 / tiny
    var d = 1 / b
    var h = d
    for i in 1...10_000 {
      let an = -Double(i) * (Double(i) - a)
      b += 2
      d = an * d + b
      if abs(d) < tiny { d = tiny }
      c = b + an / c
      if abs(c) < tiny { c = tiny }
      d = 1 / d
      let delta = d * c
      h *= delta
      if abs(delta - 1) < 1e-16 { break }
    }
    return max(0, min(1, exp(logPrefix) * h))
  }

  /// Upper-tail p-value of a chi-square statistic with `degreesOfFreedom`.
  public static func chiSquarePValue(_ statistic: Double, degreesOfFreedom: Int) -> Double {
    guard degreesOfFreedom > 0 else { return .nan }
    return regularizedUpperGamma(Double(degreesOfFreedom) / 2, statistic / 2)
  }

  /// Pearson's goodness-of-fit test of `observed` counts against `weights` (normalized);
  /// nil without observations, with counts and weights of different lengths, fewer than two
  /// groups, or a weight that is not finite and positive.
  public static func sampleRatioTest(observed: [Int], weights: [Double]) -> (
    statistic: Double, pValue: Double
  )? {
    guard observed.count == weights.count, observed.count >= 2,
      weights.allSatisfy({ $0.isFinite && $0 > 0 }), observed.allSatisfy({ $0 >= 0 })
    else { return nil }
    let total = Double(observed.reduce(0, +))
    guard total > 0 else { return nil }
    let weightSum = weights.reduce(0, +)
    var statistic = 0.0
    for (count, weight) in zip(observed, weights) {
      let expected = total * weight / weightSum
      statistic += (Double(count) - expected) * (Double(count) - expected) / expected
    }
    return (statistic, chiSquarePValue(statistic, degreesOfFreedom: observed.count - 1))
  }

  /// Holm's step-down adjustment of p-values (same order as given; nils stay nil).
  public static func holm(_ pValues: [Double?]) -> [Double?] {
    let present = pValues.enumerated().compactMap { index, p in p.map { (index, $0) } }
      .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }
    var adjusted = pValues
    var running = 0.0
    let m = present.count
    for (rank, (index, p)) in present.enumerated() {
      running = max(running, min(1, Double(m - rank) * p))
      adjusted[index] = running
    }
    return adjusted
  }

  /// The probability that a variation's rate beats the control's, with uniform Beta(1, 1)
  /// priors: P(X > Y) for X ~ Beta(1 + s, 1 + n − s), Y ~ Beta(1 + s₀, 1 + n₀ − s₀).
  /// Exact (a finite sum, Evan Miller's formula) for up to 100,000 variation successes; a
  /// normal approximation of the two posteriors above that. Nil for impossible counts.
  public static func chanceToBeatControl(
    controlSuccesses: Int, controlTrials: Int, successes: Int, trials: Int
  ) -> Double? {
    guard controlTrials >= 0, trials >= 0, (0...controlTrials).contains(controlSuccesses),
      (0...trials).contains(successes)
    else { return nil }
    let alphaA = Double(1 + controlSuccesses)
    let betaA = Double(1 + controlTrials - controlSuccesses)
    let alphaB = 1 + successes
    let betaB = Double(1 + trials - successes)
    func logBeta(_ a: Double, _ b: Double) -> Double { lgamma(a) + lgamma(b) - lgamma(a + b) }
    if alphaB <= 100_000 {
      var total = 0.0
      let constant = logBeta(alphaA, betaA)
      for i in 0..<alphaB {
        let i = Double(i)
        total += exp(logBeta(alphaA + i, betaA + betaB) - log(betaB + i) - logBeta(1 + i, betaB) - constant)
      }
      return max(0, min(1, total))
    }
    func moments(_ a: Double, _ b: Double) -> (Double, Double) {
      (a / (a + b), a * b / ((a + b) * (a + b) * (a + b + 1)))
    }
    let (meanA, varianceA) = moments(alphaA, betaA)
    let (meanB, varianceB) = moments(Double(alphaB), betaB)
    return normalCDF((meanB - meanA) / (varianceA + varianceB).squareRoot())
  }
}

/// A difference to the control with its 95% interval.
public struct DifferenceInterval: Sendable, Equatable, Codable {
  public var estimate: Double
  public var lower: Double
  public var upper: Double

  public init(estimate: Double, lower: Double, upper: Double) {
    self.estimate = estimate
    self.lower = lower
    self.upper = upper
  }
}

/// A variation against the control: absolute (variation − control) and relative
/// ((variation − control) / control), each with its 95% interval.
public struct Difference: Sendable, Equatable, Codable {
  public var absolute: DifferenceInterval
  /// Nil when it has no sound interval; `relativeNotApplicable` says why.
  public var relative: DifferenceInterval?
  /// Why there is no relative difference (the control at 0, both rates at 100%, …); nil
  /// when there is one.
  public var relativeNotApplicable: String?

  public init(
    absolute: DifferenceInterval, relative: DifferenceInterval?, relativeNotApplicable: String? = nil
  ) {
    self.absolute = absolute
    self.relative = relative
    self.relativeNotApplicable = relative == nil ? relativeNotApplicable : nil
  }
}

extension Statistics {
  /// The difference of two means, each with its variance (of one unit) and count: a
  /// Wald interval with unpooled variances for the absolute difference, the delta method
  /// for the relative one (as GrowthBook's frequentist engine). Nil without units on
  /// either side. The report uses neither interval from here: a Wald interval of a
  /// difference of rates leaves ±100 pp with a few users and is a point when both rates
  /// are 0% or 100% (`newcombeInterval` does neither), and the delta method's relative
  /// interval passes −100% (`relativeInterval` works on the log of the ratio).
  public static func difference(
    control: (mean: Double, variance: Double, count: Int),
    variation: (mean: Double, variance: Double, count: Int),
    z: Double = z95
  ) -> Difference? {
    guard control.count > 0, variation.count > 0 else { return nil }
    let controlVariance = control.variance / Double(control.count)
    let variationVariance = variation.variance / Double(variation.count)
    let estimate = variation.mean - control.mean
    let margin = z * (controlVariance + variationVariance).squareRoot()
    var relative: DifferenceInterval?
    if control.mean != 0 {
      let ratio = variation.mean / control.mean - 1
      let squared = control.mean * control.mean
      let relativeMargin =
        z
        * (variationVariance / squared + variation.mean * variation.mean * controlVariance
        / (squared * squared))
        .squareRoot()
      relative = DifferenceInterval(
        estimate: ratio, lower: ratio - relativeMargin, upper: ratio + relativeMargin)
    }
    return Difference(
      absolute: DifferenceInterval(estimate: estimate, lower: estimate - margin, upper: estimate + margin),
      relative: relative)
  }

  /// `difference` of two rates (a rate's unit variance is p(1 − p)).
  public static func proportionDifference(
    controlSuccesses: Int, controlTrials: Int, successes: Int, trials: Int, z: Double = z95
  ) -> Difference? {
    guard controlTrials > 0, trials > 0 else { return nil }
    let control = Double(controlSuccesses) / Double(controlTrials)
    let variation = Double(successes) / Double(trials)
    return difference(
      control: (control, control * (1 - control), controlTrials),
      variation: (variation, variation * (1 - variation), trials), z: z)
  }
}

extension Statistics {
  /// The standard normal quantile Φ⁻¹(p) for 0 < p < 1: Acklam's rational approximation,
  /// refined by one Halley step against `normalCDF` (error below 1e-13).
  public static func normalQuantile(_ p: Double) -> Double {
    precondition(p > 0 && p < 1, "normalQuantile takes 0 < p < 1")
    let a = [
      -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
      -3.066479806614716e+01, 2.506628277459239e+00,
    ]
    let b = [
      -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
      -1.328068155288572e+01,
    ]
    let c = [
      -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
      4.374664141464968e+00, 2.938163982698783e+00,
    ]
    let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
    func tail(_ q: Double) -> Double {
      (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
        / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    }
    var x: Double
    if p < 0.02425 {
      x = tail((-2 * log(p)).squareRoot())
    } else if p > 1 - 0.02425 {
      x = -tail((-2 * log(1 - p)).squareRoot())
    } else {
      let q = p - 0.5
      let r = q * q
      x =
        (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
        / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    }
    let error = normalCDF(x) - p
    let u = error * (2 * Double.pi).squareRoot() * exp(x * x / 2)
    x -= u / (1 + x * u / 2)
    return x
  }
}
