import Foundation

/// One variation's sufficient statistics for one metric: what every comparison the report
/// makes is computed from. A streaming pass over events fills it one user at a time; a
/// database can fill it with one `GROUP BY` (`COUNT(*)`, `SUM(y)`, `SUM(y*y)`, `SUM(x)`,
/// `SUM(x*x)`, `SUM(x*y)`), and the report's figures are the same.
///
/// `y` is a user's value (1 or 0 for a rate, the summed field for a mean); `x` their
/// pre-exposure covariate for CUPED (0 when there is none).
public struct MetricSums: Sendable, Equatable, Codable {
  public var count: Int
  public var sum: Double
  public var sumOfSquares: Double
  public var covariateSum: Double
  public var covariateSumOfSquares: Double
  /// Σ x·y.
  public var sumOfProducts: Double

  public init(
    count: Int = 0, sum: Double = 0, sumOfSquares: Double = 0, covariateSum: Double = 0,
    covariateSumOfSquares: Double = 0, sumOfProducts: Double = 0
  ) {
    self.count = count
    self.sum = sum
    self.sumOfSquares = sumOfSquares
    self.covariateSum = covariateSum
    self.covariateSumOfSquares = covariateSumOfSquares
    self.sumOfProducts = sumOfProducts
  }

  /// A rate's sums: `conversions` ones among `users`, no covariate.
  public init(conversions: Int, users: Int) {
    self.init(count: users, sum: Double(conversions), sumOfSquares: Double(conversions))
  }

  /// Adds one user's value `y` and covariate `x`.
  public mutating func add(_ y: Double, covariate x: Double = 0) {
    count += 1
    sum += y
    sumOfSquares += y * y
    covariateSum += x
    covariateSumOfSquares += x * x
    sumOfProducts += x * y
  }

  /// Both groups' users together.
  public static func + (a: MetricSums, b: MetricSums) -> MetricSums {
    MetricSums(
      count: a.count + b.count, sum: a.sum + b.sum, sumOfSquares: a.sumOfSquares + b.sumOfSquares,
      covariateSum: a.covariateSum + b.covariateSum,
      covariateSumOfSquares: a.covariateSumOfSquares + b.covariateSumOfSquares,
      sumOfProducts: a.sumOfProducts + b.sumOfProducts)
  }

  /// Nil without users.
  public var mean: Double? { count > 0 ? sum / Double(count) : nil }

  var n: Double { Double(count) }

  /// The sample variance of `y` (n − 1); 0 with fewer than two users.
  var sampleVariance: Double {
    count > 1 ? max(0, (sumOfSquares - sum * sum / n) / (n - 1)) : 0
  }

  var covariateVariance: Double {
    count > 1 ? max(0, (covariateSumOfSquares - covariateSum * covariateSum / n) / (n - 1)) : 0
  }

  var covariance: Double {
    count > 1 ? (sumOfProducts - sum * covariateSum / n) / (n - 1) : 0
  }

  /// One user's variance: p(1 − p) for a rate (as the z-test and GrowthBook take it), the
  /// sample variance for a mean.
  func unitVariance(_ scale: MetricScale) -> Double {
    guard count > 0 else { return 0 }
    switch scale {
    case .proportion:
      let p = sum / n
      return p * (1 - p)
    case .mean: return sampleVariance
    }
  }
}

/// What a metric's values are: 0/1 per user (a rate) or any number (a mean).
public enum MetricScale: String, Sendable, Codable {
  case proportion
  case mean
}

/// How the report compares variations.
public struct ComparisonOptions: Sendable, Equatable {
  /// Always-valid intervals and p-values, so the report can be looked at every day:
  /// GrowthBook's sequential test (Waudby-Smith et al. 2023, eq. 9 and 155, a normal
  /// mixture whose tuning parameter is the number of users it is sharpest at).
  public var sequential: Bool
  public var sequentialTuning: Double
  /// Regression adjustment by each user's pre-exposure covariate (CUPED, θ pooled over
  /// the two groups compared, as GrowthBook's).
  public var cuped: Bool
  public var alpha: Double

  public init(
    sequential: Bool = false, sequentialTuning: Double = 5000, cuped: Bool = false, alpha: Double = 0.05
  ) {
    self.sequential = sequential
    self.sequentialTuning = sequentialTuning
    self.cuped = cuped
    self.alpha = alpha
  }
}

/// A variation against the control on one metric.
public struct Comparison: Sendable, Equatable {
  public var difference: Difference
  /// Two-sided, before any correction for several variations; nil when there is no
  /// variance to test.
  public var pValue: Double?
  /// P(variation > control) under a flat prior (normal approximation); nil without variance.
  public var chanceToBeat: Double?
}

extension Statistics {
  /// The variation against the control from their sums.
  ///
  /// - A rate, fixed horizon, no CUPED: the absolute difference's interval is Newcombe's
  ///   hybrid score interval (method 10), which stays within ±100 pp and is not a point at
  ///   0% or 100%; the p-value the pooled z-test's.
  /// - A mean, fixed horizon: Welch's t-test (Welch–Satterthwaite degrees of freedom) and
  ///   t intervals, relative by the delta method, as GrowthBook's frequentist engine.
  /// - With CUPED, the means are adjusted (ȳ − θ·x̄, θ = cov(x, y) / var(x) over both
  ///   groups) and so are the variances; relative differences divide by the control's
  ///   unadjusted mean.
  /// - Sequential: GrowthBook's always-valid interval and p-value over the same variances;
  ///   a rate at 0% or 100% takes Agresti–Caffo's variance (GrowthBook's would be 0, and
  ///   the interval a point).
  /// - The relative difference's interval is made on the log of the ratio
  ///   (`relativeInterval`), so it never passes −100%; GrowthBook's is symmetric (the delta
  ///   method on the ratio itself) and does. Its estimate is GrowthBook's.
  /// - Both rates at 0% or both at 100% (or two means that do not vary and are equal):
  ///   chance to beat is 50%, and the relative difference is not applicable, with why.
  ///
  /// Nil without users on either side.
  public static func compare(
    control a: MetricSums, variation b: MetricSums, scale: MetricScale,
    options: ComparisonOptions = ComparisonOptions()
  ) -> Comparison? {
    guard a.count > 0, b.count > 0 else { return nil }
    let (na, nb) = (a.n, b.n)
    let rawA = a.sum / na
    let rawB = b.sum / nb
    if scale == .proportion, !options.sequential, !options.cuped {
      let successesA = Int(a.sum.rounded())
      let successesB = Int(b.sum.rounded())
      guard
        let plain = proportionDifference(
          controlSuccesses: successesA, controlTrials: a.count, successes: successesB, trials: b.count),
        let newcombe = newcombeInterval(
          controlSuccesses: successesA, controlTrials: a.count, successes: successesB, trials: b.count)
      else { return nil }
      let test = twoProportionTest(
        controlSuccesses: successesA, controlTrials: a.count, successes: successesB, trials: b.count)
      let critical = normalQuantile(1 - options.alpha / 2)
      let relative = relativeInterval(
        a, b, scale: scale, estimate: plain.absolute.estimate,
        variance: relativeVariance(a, b, scale, rawA, rawB)
      ) { critical * $0.squareRoot() }
      // Both at 0% or both at 100%: nothing tells them apart, whatever the users on each side.
      let tied = (successesA == 0 && successesB == 0) || (successesA == a.count && successesB == b.count)
      return Comparison(
        difference: Difference(
          absolute: newcombe, relative: relative.interval, relativeNotApplicable: relative.reason),
        pValue: test?.pValue,
        chanceToBeat: tied
          ? 0.5
          : chanceToBeatControl(
            controlSuccesses: successesA, controlTrials: a.count, successes: successesB, trials: b.count))
    }
    var theta = 0.0
    if options.cuped {
      let joint = a + b
      let jointPost = joint.unitVariance(scale)
      if joint.covariateVariance > 0, jointPost > 0 { theta = joint.covariance / joint.covariateVariance }
    }
    func adjusted(_ s: MetricSums) -> (mean: Double, variance: Double) {
      let mean = s.sum / s.n - theta * s.covariateSum / s.n
      var unit = s.unitVariance(scale)
      if scale == .proportion, unit == 0 {
        // A side at 0% or 100% has no p(1 − p), so its interval would be a point however
        // few its users: its variance is Agresti–Caffo's instead (one success and one
        // failure added), which shrinks as its users grow.
        let p = (s.sum + 1) / (s.n + 2)
        unit = p * (1 - p)
      }
      let variance =
        s.count > 1
        ? unit + theta * theta * s.covariateVariance - 2 * theta * s.covariance
        : unit
      return (mean, max(0, variance))
    }
    let (meanA, varianceA) = adjusted(a)
    let (meanB, varianceB) = adjusted(b)
    let absoluteVariance = varianceA / na + varianceB / nb
    let estimate = meanB - meanA

    func interval(_ estimate: Double, _ width: Double) -> DifferenceInterval {
      DifferenceInterval(estimate: estimate, lower: estimate - width, upper: estimate + width)
    }
    let pValue: Double?
    let width: (Double) -> Double
    if options.sequential {
      let total = na + nb
      let rho2 = sequentialRhoSquared(alpha: options.alpha, tuning: options.sequentialTuning)
      width = { variance in
        (variance * total).squareRoot()
          * (2 * (total * rho2 + 1) * log((total * rho2 + 1).squareRoot() / options.alpha)
          / (total * total * rho2)).squareRoot()
      }
      if absoluteVariance > 0 {
        let st2 = estimate * estimate * total / absoluteVariance
        let tr2p1 = total * rho2 + 1
        let eValue = exp(rho2 * st2 / (2 * tr2p1)) / tr2p1.squareRoot()
        pValue = min(1, 1 / eValue)
      } else {
        pValue = nil
      }
    } else if scale == .mean {
      let dof = welchDegreesOfFreedom(varianceA, na, varianceB, nb)
      let critical = dof.map { studentTQuantile(1 - options.alpha / 2, degreesOfFreedom: $0) } ?? 0
      width = { variance in critical * variance.squareRoot() }
      if let dof, absoluteVariance > 0 {
        pValue = studentTTwoSidedPValue(estimate / absoluteVariance.squareRoot(), degreesOfFreedom: dof)
      } else {
        pValue = nil
      }
    } else {
      let critical = normalQuantile(1 - options.alpha / 2)
      width = { variance in critical * variance.squareRoot() }
      pValue = absoluteVariance > 0 ? 2 * normalCDF(-abs(estimate) / absoluteVariance.squareRoot()) : nil
    }
    var absolute = interval(estimate, width(absoluteVariance))
    if scale == .proportion {
      // A difference of rates lies in −1…1: cutting the interval there loses no coverage
      // (a sequential interval with a few hundred users reaches past ±100 pp).
      absolute.lower = max(-1, absolute.lower)
      absolute.upper = min(1, absolute.upper)
    }
    // The relative difference's variance by the delta method over the (adjusted) variances.
    let relativeVariance =
      rawA != 0
      ? varianceB / (rawA * rawA * nb) + varianceA * rawB * rawB / (rawA * rawA * rawA * rawA * na) : 0
    let relative = relativeInterval(
      a, b, scale: scale, estimate: estimate, variance: relativeVariance, width: width)
    let chance: Double?
    if absoluteVariance > 0 {
      chance = normalCDF(estimate / absoluteVariance.squareRoot())
    } else {
      // No spread on either side: equal values are a toss-up, not a lean either way.
      chance = estimate == 0 ? 0.5 : nil
    }
    return Comparison(
      difference: Difference(
        absolute: absolute, relative: relative.interval, relativeNotApplicable: relative.reason),
      pValue: pValue, chanceToBeat: chance)
  }

  /// The delta method's variance of (variation − control) / control for plain sums (no
  /// CUPED): what the rate path hands `relativeInterval`.
  static func relativeVariance(
    _ a: MetricSums, _ b: MetricSums, _ scale: MetricScale, _ rawA: Double, _ rawB: Double
  ) -> Double {
    guard rawA != 0 else { return 0 }
    return a.unitVariance(scale) * rawB * rawB / (rawA * rawA * rawA * rawA * a.n)
      + b.unitVariance(scale) / (rawA * rawA * b.n)
  }

  /// The relative difference r − 1 (r = 1 + estimate / control) with an interval made on
  /// the log of r: log r ± width(variance / r²), the delta method on the log scale (for
  /// rates without CUPED this is Katz's log interval of the risk ratio, SciPy's
  /// `relative_risk(...).confidence_interval()`), then r·e^(±…) − 1. So the interval never
  /// passes −100% and is wider above than below, as a ratio's is. Nil, with the reason,
  /// when there is no such interval: the control at 0 or below, the variation at 0 or
  /// below (the log of 0), or nothing varying on either side (a point is no interval).
  static func relativeInterval(
    _ a: MetricSums, _ b: MetricSums, scale: MetricScale, estimate: Double, variance: Double,
    width: (Double) -> Double
  ) -> (interval: DifferenceInterval?, reason: String?) {
    let rawA = a.sum / a.n
    let rawB = b.sum / b.n
    let isRate = scale == .proportion
    func value(_ x: Double) -> String { isRate ? String(format: "%g%%", x * 100) : String(format: "%g", x) }
    if rawA == 0 { return (nil, "the control is at \(value(0)): no relative change of nothing") }
    if rawA < 0 { return (nil, "the control's mean is below 0: a ratio to it has no meaning") }
    let ratio = 1 + estimate / rawA
    if isRate, rawA == 1, rawB == 1 {
      return (nil, "both are at 100%: nothing varies to estimate a ratio from")
    }
    if ratio <= 0 || rawB <= 0 {
      return (nil, "the variation is at \(value(0)) or below: a ratio's interval needs both above 0")
    }
    guard variance > 0, variance.isFinite else {
      return (nil, "nothing varies on either side: a ratio's interval needs some spread")
    }
    let half = width(variance / (ratio * ratio))
    guard half.isFinite else { return (nil, "too few users for an interval") }
    return (
      DifferenceInterval(estimate: ratio - 1, lower: ratio * exp(-half) - 1, upper: ratio * exp(half) - 1),
      nil
    )
  }

  /// ρ² of GrowthBook's sequential test (Waudby-Smith et al. 2023, eq. 161): the mixture's
  /// variance that makes the interval narrowest at `tuning` users.
  static func sequentialRhoSquared(alpha: Double, tuning: Double) -> Double {
    (-2 * log(alpha) + log(-2 * log(alpha) + 1)) / tuning
  }

  /// Welch–Satterthwaite degrees of freedom; nil when a side has fewer than two users or
  /// there is no variance.
  static func welchDegreesOfFreedom(_ va: Double, _ na: Double, _ vb: Double, _ nb: Double) -> Double? {
    guard na > 1, nb > 1 else { return nil }
    let numerator = (va / na + vb / nb) * (va / na + vb / nb)
    let denominator = va * va / (na * na * (na - 1)) + vb * vb / (nb * nb * (nb - 1))
    guard denominator > 0 else { return nil }
    return numerator / denominator
  }

  /// Newcombe's hybrid score interval for the difference of two proportions (variation −
  /// control; Newcombe 1998, method 10): the Wilson intervals of both rates combined. Nil
  /// without trials on either side.
  public static func newcombeInterval(
    controlSuccesses: Int, controlTrials: Int, successes: Int, trials: Int, z: Double = z95
  ) -> DifferenceInterval? {
    guard let control = wilsonInterval(successes: controlSuccesses, trials: controlTrials, z: z),
      let variation = wilsonInterval(successes: successes, trials: trials, z: z)
    else { return nil }
    let p0 = Double(controlSuccesses) / Double(controlTrials)
    let p1 = Double(successes) / Double(trials)
    let estimate = p1 - p0
    func hypot(_ x: Double, _ y: Double) -> Double { (x * x + y * y).squareRoot() }
    return DifferenceInterval(
      estimate: estimate,
      lower: max(-1, estimate - hypot(p1 - variation.lower, control.upper - p0)),
      upper: min(1, estimate + hypot(variation.upper - p1, p0 - control.lower)))
  }

  /// The t interval of a mean (n − 1 degrees of freedom); nil with fewer than two users.
  public static func meanInterval(_ sums: MetricSums, alpha: Double = 0.05) -> ProportionInterval? {
    guard sums.count > 1 else { return nil }
    let mean = sums.sum / sums.n
    let critical = studentTQuantile(1 - alpha / 2, degreesOfFreedom: sums.n - 1)
    let half = critical * (sums.sampleVariance / sums.n).squareRoot()
    return ProportionInterval(lower: mean - half, upper: mean + half)
  }
}

extension Statistics {
  /// The regularized incomplete beta function I_x(a, b) (continued fraction, Numerical
  /// Recipes §6.4).
  public static func regularizedIncompleteBeta(_ a: Double, _ b: Double, _ x: Double) -> Double {
    if x <= 0 { return 0 }
    if x >= 1 { return 1 }
    let logGammas: Double = lgamma(a + b) - lgamma(a) - lgamma(b)
    let logPowers: Double = a * log(x) + b * log(1 - x)
    let front = exp(logGammas + logPowers)
    if x < (a + 1) / (a + b + 2) { return front * betaContinuedFraction(a, b, x) / a }
    return 1 - front * betaContinuedFraction(b, a, 1 - x) / b
  }

  private static func betaContinuedFraction(_ a: Double, _ b: Double, _ x: Double) -> Double {
    let tiny = 1e-300
    var c = 1.0
    var d = 1 - (a + b) * x / (a + 1)
    if abs(d) < tiny { d = tiny }
    d = 1 / d
    var h = d
    for m in 1...100_000 {
      let m = Double(m)
      let m2 = 2 * m
      var aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2))
      d = 1 + aa * d
      if abs(d) < tiny { d = tiny }
      c = 1 + aa / c
      if abs(c) < tiny { c = tiny }
      d = 1 / d
      h *= d * c
      aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))
      d = 1 + aa * d
      if abs(d) < tiny { d = tiny }
      c = 1 + aa / c
      if abs(c) < tiny { c = tiny }
      d = 1 / d
      let delta = d * c
      h *= delta
      if abs(delta - 1) < 1e-15 { break }
    }
    return h
  }

  /// P(|T| ≥ |t|) for Student's t with `degreesOfFreedom` (the normal's above 10⁷).
  public static func studentTTwoSidedPValue(_ t: Double, degreesOfFreedom nu: Double) -> Double {
    guard t.isFinite else { return t.isNaN ? .nan : 0 }
    if nu > 1e7 { return 2 * normalCDF(-abs(t)) }
    return max(0, min(1, regularizedIncompleteBeta(nu / 2, 0.5, nu / (nu + t * t))))
  }

  /// Student's t quantile for 0.5 < p < 1, by bisection on `studentTTwoSidedPValue`.
  public static func studentTQuantile(_ p: Double, degreesOfFreedom nu: Double) -> Double {
    if nu > 1e7 { return normalQuantile(p) }
    let target = 2 * (1 - p)
    var low = 0.0
    var high = max(1, normalQuantile(p))
    while studentTTwoSidedPValue(high, degreesOfFreedom: nu) > target { high *= 2 }
    for _ in 0..<200 {
      let middle = (low + high) / 2
      if studentTTwoSidedPValue(middle, degreesOfFreedom: nu) > target { low = middle } else { high = middle }
      if high - low <= 1e-15 * high { break }
    }
    return (low + high) / 2
  }
}
