import Foundation
import Testing

@testable import Experiments

/// Mean metrics, sequential tests and CUPED against reference values computed with
/// Python 3.11, SciPy 1.17.1 and GrowthBook's `gbstats` 0.8.0 (PyPI): for the users
/// below, `scipy.stats.ttest_ind(b, a, equal_var=False)`, `scipy.stats.t.interval`,
/// `gbstats.frequentist.tests.TwoSidedTTest` and `SequentialTwoSidedTTest` (default
/// tuning 5000) over `SampleMeanStatistic` / `ProportionStatistic`, and for CUPED
/// `RegressionAdjustedStatistic` with `compute_theta`
/// (`Tools/GrowthBookReference/statistics_reference.py` prints them). The Swift side sees
/// only the sums, as a database would give them. Relative intervals are on the log of the
/// ratio: gbstats' relative estimate and variance (its interval's half width) moved to the
/// log scale, r·e^(±half/r) − 1 with r = 1 + estimate (gbstats' own interval is symmetric
/// and passes −100%: −543.8% for the sequential means below).
@Suite("Mean metrics, sequential tests and CUPED against SciPy and gbstats")
struct MeanMetricTests {
  static let control: [Double] = [3, 0, 5, 2, 2, 7, 1, 0, 4, 3, 6, 2]
  static let variation: [Double] = [4, 6, 3, 8, 5, 2, 7, 4, 9, 5]
  static let controlCovariate: [Double] = [2, 1, 4, 2, 1, 6, 1, 0, 3, 3, 5, 1]
  static let variationCovariate: [Double] = [3, 4, 3, 6, 4, 2, 5, 3, 7, 4]

  static func sums(_ values: [Double], _ covariates: [Double]? = nil) -> MetricSums {
    var sums = MetricSums()
    for (index, value) in values.enumerated() { sums.add(value, covariate: covariates?[index] ?? 0) }
    return sums
  }

  static func close(_ a: Double?, _ b: Double, tolerance: Double = 1e-9) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance * max(1, abs(b))
  }

  static func expect(
    _ interval: DifferenceInterval?, _ estimate: Double, _ lower: Double, _ upper: Double,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(
      close(interval?.estimate, estimate), "\(String(describing: interval))", sourceLocation: sourceLocation)
    #expect(close(interval?.lower, lower), "\(String(describing: interval))", sourceLocation: sourceLocation)
    #expect(close(interval?.upper, upper), "\(String(describing: interval))", sourceLocation: sourceLocation)
  }

  @Test func sumsAreWhatADatabaseWouldGive() {
    #expect(
      Self.sums(Self.control, Self.controlCovariate)
        == MetricSums(
          count: 12, sum: 35, sumOfSquares: 157, covariateSum: 29, covariateSumOfSquares: 107,
          sumOfProducts: 128
        ))
  }

  @Test func welchTestMatchesSciPyAndGbstats() throws {
    let comparison = try #require(
      Statistics.compare(control: Self.sums(Self.control), variation: Self.sums(Self.variation), scale: .mean)
    )
    // ttest_ind(..., equal_var=False): statistic 2.5039, df 19.355.
    #expect(Self.close(comparison.pValue, 0.02137793129281601, tolerance: 1e-8))
    Self.expect(comparison.difference.absolute, 2.3833333333333333, 0.39354009745341134, 4.373126569213255)
    Self.expect(comparison.difference.relative, 0.8171428571428572, 0.06056866131313199, 2.113431768931357)
  }

  @Test func meanIntervalMatchesSciPy() throws {
    let interval = try #require(Statistics.meanInterval(Self.sums(Self.control)))
    #expect(Self.close(interval.lower, 1.497013573418498))
    #expect(Self.close(interval.upper, 4.336319759914835))
    #expect(Statistics.meanInterval(Self.sums([4])) == nil, "one user has no spread")
  }

  @Test func studentTMatchesSciPy() {
    #expect(Self.close(Statistics.studentTQuantile(0.975, degreesOfFreedom: 3.5), 2.9400886379827282))
    #expect(Self.close(Statistics.studentTTwoSidedPValue(2.1, degreesOfFreedom: 7.3), 0.0722467134248534))
  }

  @Test func sequentialMatchesGbstats() throws {
    let options = ComparisonOptions(sequential: true)
    let means = try #require(
      Statistics.compare(
        control: Self.sums(Self.control), variation: Self.sums(Self.variation), scale: .mean, options: options
      ))
    #expect(Self.close(means.pValue, 0.9152065163588942))
    Self.expect(means.difference.absolute, 2.3833333333333333, -10.337081876456324, 15.10374854312299)
    Self.expect(means.difference.relative, 0.8171428571428572, -0.9418669174003654, 55.80084412530475)

    let rates = try #require(
      Statistics.compare(
        control: MetricSums(conversions: 450, users: 1000),
        variation: MetricSums(conversions: 520, users: 1000),
        scale: .proportion, options: options))
    #expect(Self.close(rates.pValue, 0.048149655568072006))
    Self.expect(rates.difference.absolute, 0.07, 0.00035303510609593913, 0.13964696489390407)
    Self.expect(rates.difference.relative, 0.15555555555555556, -0.00010401063428544521, 0.3354475427212815)
  }

  /// A difference of rates stays within ±100 pp, sequential or not.
  @Test func aSequentialRateDifferenceStaysWithinOneHundredPoints() throws {
    let comparison = try #require(
      Statistics.compare(
        control: MetricSums(conversions: 0, users: 71), variation: MetricSums(conversions: 60, users: 71),
        scale: .proportion, options: ComparisonOptions(sequential: true)))
    #expect(comparison.difference.absolute.upper == 1)
    #expect(comparison.difference.absolute.lower > 0.5)
  }

  @Test func cupedMatchesGbstats() throws {
    let control = Self.sums(Self.control, Self.controlCovariate)
    let variation = Self.sums(Self.variation, Self.variationCovariate)
    let adjusted = try #require(
      Statistics.compare(
        control: control, variation: variation, scale: .mean, options: ComparisonOptions(cuped: true)))
    // θ = 1.2965260545905706.
    #expect(Self.close(adjusted.pValue, 0.41385190008898776, tolerance: 1e-8))
    Self.expect(adjusted.difference.absolute, 0.20084780810587333, -0.3012493594623644, 0.7029449756741111)
    Self.expect(adjusted.difference.relative, 0.06886210563629944, -0.16375526972560384, 0.36618642785394595)

    let both = try #require(
      Statistics.compare(
        control: control, variation: variation, scale: .mean,
        options: ComparisonOptions(sequential: true, cuped: true)))
    #expect(both.pValue == 1)
    Self.expect(both.difference.absolute, 0.20084780810587333, -3.0153525147133924, 3.417048130925139)
    Self.expect(both.difference.relative, 0.06886210563629944, -0.7780951361723495, 4.148450471786847)
  }

  /// A covariate that does not vary adjusts nothing (θ = 0).
  @Test func cupedWithoutCovariateIsThePlainTest() throws {
    let plain = Statistics.compare(
      control: Self.sums(Self.control), variation: Self.sums(Self.variation), scale: .mean)
    let adjusted = Statistics.compare(
      control: Self.sums(Self.control), variation: Self.sums(Self.variation), scale: .mean,
      options: ComparisonOptions(cuped: true))
    #expect(plain == adjusted)
  }

  private func event(_ user: String, _ name: String, _ second: Double, fields: [String: String] = [:])
    -> ReportEvent
  {
    ReportEvent(
      ts: Date(timeIntervalSince1970: 1_772_434_800 + second), user: user, event: name, flow: "checkin",
      fields: fields)
  }

  /// Each exposed user's value is the sum of the field over their events after exposure
  /// (0 without any); events before exposure and of users never exposed do not count.
  @Test func aMeanMetricSumsEachUsersValues() throws {
    let metric = MetricDefinition(name: "mood score", event: "mood_saved", value: "score", guardrail: true)
    var events: [ReportEvent] = [event("u1", "mood_saved", 0, fields: ["score": "9"])]
    for (index, values) in [[3.0, 1], [], [2]].enumerated() {
      let user = "u\(index + 1)"
      events.append(event(user, "experiment_viewed", 1, fields: ["experiment": "x", "variation": "a"]))
      for value in values { events.append(event(user, "mood_saved", 2, fields: ["score": "\(value)"])) }
    }
    for (index, value) in [1.0, 0, 2].enumerated() {
      let user = "v\(index + 1)"
      events.append(event(user, "experiment_viewed", 1, fields: ["experiment": "x", "variation": "b"]))
      events.append(event(user, "mood_saved", 2, fields: ["score": "\(value)"]))
    }
    events.append(event("w1", "mood_saved", 2, fields: ["score": "50"]))
    let report = try ExperimentReport(
      experiment: "x", events: events, variationOrder: ["a", "b"], metrics: [metric])
    let control = report.variations[0].metrics[0]
    #expect(control.mean == 2, "(4 + 0 + 2) / 3")
    #expect(control.conversions == 2, "users with a mood_saved")
    #expect(control.rate == nil && control.guardrail == true)
    let other = report.variations[1].metrics[0]
    #expect(other.mean == 1)
    let difference = try #require(other.difference?.absolute)
    #expect(difference.estimate == -1)
    // A guardrail is named first only when its interval lies below 0; here it spans 0.
    #expect(report.warnings.allSatisfy { !$0.hasPrefix("guardrail") })
    #expect(
      ExperimentReport.verdict("b", "a", "mood score", other).hasPrefix(
        "b vs a on mood score: no clear difference, -1.00 ["))
  }

  /// `lowerIsBetter`: a difference below 0 beats the control, above it is worse (and a
  /// guardrail that rose got worse), and the chance to beat is the chance to be lower.
  @Test func lowerIsBetterTurnsTheVerdictAround() throws {
    let metric = MetricDefinition(
      name: "effort", event: "mood_saved", value: "score", guardrail: true, lowerIsBetter: true)
    var events: [ReportEvent] = []
    for index in 0..<40 {
      let variation = index % 2 == 0 ? "a" : "b"
      let user = "u\(index)"
      events.append(
        event(user, "experiment_viewed", 1, fields: ["experiment": "x", "variation": variation]))
      let score = variation == "a" ? 5 + Double(index % 3) : 2 + Double(index % 3)
      events.append(event(user, "mood_saved", 2, fields: ["score": "\(score)"]))
    }
    let fell = try ExperimentReport(
      experiment: "x", events: events, variationOrder: ["a", "b"], metrics: [metric])
    let b = fell.variations[1].metrics[0]
    #expect(ExperimentReport.verdict("b", "a", "effort", b) == "b beats a on effort: -3.05 [-3.59, -2.51]")
    #expect(fell.warnings.isEmpty)
    #expect(try #require(b.chanceToBeatControl) > 0.999)
    let rose = try ExperimentReport(
      experiment: "x", events: events, variationOrder: ["b", "a"], metrics: [metric])
    let a = rose.variations[1].metrics[0]
    #expect(
      ExperimentReport.verdict("a", "b", "effort", a) == "a is worse than b on effort: +3.05 [2.51, 3.59]")
    #expect(rose.warnings == ["guardrail got worse: a is worse than b on effort: +3.05 [2.51, 3.59]"])
    #expect(try #require(a.chanceToBeatControl) < 0.001)
  }

  @Test func aGuardrailThatGotWorseIsSaidFirst() throws {
    let metric = MetricDefinition(name: "mood score", event: "mood_saved", value: "score", guardrail: true)
    var events: [ReportEvent] = []
    for index in 0..<40 {
      let variation = index % 2 == 0 ? "a" : "b"
      let user = "u\(index)"
      events.append(
        event(
          user, "experiment_viewed", 1,
          fields: ["experiment": "x", "variation": variation, "source": "script"]))
      let score = variation == "a" ? 5 + Double(index % 3) : 2 + Double(index % 3)
      events.append(event(user, "mood_saved", 2, fields: ["score": "\(score)"]))
    }
    let report = try ExperimentReport(
      experiment: "x", events: events, variationOrder: ["a", "b"], metrics: [metric])
    #expect(
      report.warnings.first?.hasPrefix("guardrail got worse: b is worse than a on mood score: -3.05 [")
        == true)
    #expect(report.warnings.last?.hasPrefix("simulated") == true)
    #expect(report.renderText().hasPrefix("guardrail got worse: b is worse than a on mood score"))
    let row = try #require(report.rateTable.first { $0[0] == "mood score" })
    #expect(row[3] == "mean 6.00")
  }

  @Test func aValueThatIsNotANumberIsRefused() {
    let metric = MetricDefinition(name: "mood score", event: "mood_saved", value: "score")
    var builder = ExperimentReport.Builder(experiment: "x", metrics: [metric])
    #expect(throws: ReportError.nonNumericValue(metric: "mood score", field: "score", value: "high")) {
      try builder.addChecked(event("u1", "mood_saved", 0, fields: ["score": "high"]))
    }
    #expect(
      "\(ReportError.nonNumericValue(metric: "mood score", field: "score", value: "high"))"
        == "metric 'mood score': field 'score' must be a number, got 'high'")
    #expect(builder.metricsWithoutValues == [metric], "no event held a number")
    #expect(throws: ReportError.self) {
      try builder.addChecked(event("u1", "mood_saved", 0, fields: ["score": "inf"]))
    }
    try? builder.addChecked(event("u1", "mood_saved", 0, fields: ["score": "2.5"]))
    #expect(builder.metricsWithoutValues.isEmpty)
  }

  /// The covariate is each user's sum of the named field over the named events before
  /// their first exposure; the same events after it are the metric's, not the covariate's.
  @Test func cupedSumsTheEventsBeforeExposure() throws {
    var events: [ReportEvent] = []
    for index in 0..<20 {
      let variation = index % 2 == 0 ? "a" : "b"
      let user = "u\(index)"
      if index < 16 {
        // Two scores before exposure: the covariate is their sum.
        events.append(event(user, "mood_saved", 0, fields: ["score": "\(index % 5)"]))
        events.append(event(user, "mood_saved", 0, fields: ["score": "1"]))
      }
      events.append(event(user, "experiment_viewed", 1, fields: ["experiment": "x", "variation": variation]))
      events.append(event(user, "mood_saved", 2, fields: ["score": "\(index % 5 + (index % 2))"]))
    }
    let covariate = CovariateDefinition(event: "mood_saved", value: "score")
    let metric = MetricDefinition(name: "score", event: "mood_saved", value: "score")
    var builder = ExperimentReport.Builder(
      experiment: "x", variationOrder: ["a", "b"], metrics: [metric], covariate: covariate)
    for event in events { try builder.addChecked(event) }
    let report = try builder.report()
    #expect(report.cuped == CupedSummary(covariate: covariate, usersWithCovariate: 16))
    #expect(
      report.methodNotes.first
        == "CUPED: adjusted by the sum of 'score' over each user's mood_saved events before exposure (16 user(s) had one; others count as 0)"
    )
    // The adjustment equals CUPED over sums built by hand: covariate = pre-exposure sum,
    // metric = the one score after exposure (pre-exposure scores are not the metric's).
    var sums = [MetricSums(), MetricSums()]
    for index in 0..<20 {
      let prior = index < 16 ? Double(index % 5 + 1) : 0
      sums[index % 2].add(Double(index % 5 + (index % 2)), covariate: prior)
    }
    let expected = Statistics.compare(
      control: sums[0], variation: sums[1], scale: .mean, options: ComparisonOptions(cuped: true))
    #expect(expected?.difference != nil)
    #expect(report.variations[1].metrics[0].difference == expected?.difference)
    #expect(report.variations[1].metrics[0].chanceToBeatControl == expected?.chanceToBeat)
    let none = try ExperimentReport(
      experiment: "x", events: events, variationOrder: ["a", "b"],
      covariate: CovariateDefinition(event: "mood_saved", value: "missing"), sequential: true)
    #expect(none.cuped?.applied == false)
    #expect(none.sequential == true)
    #expect(
      none.methodNotes.last
        == "CUPED: no exposed user had a mood_saved event with 'missing' before exposure, so nothing was adjusted"
    )
    var refusing = ExperimentReport.Builder(experiment: "x", covariate: covariate)
    #expect(throws: ReportError.nonNumericCovariate(event: "mood_saved", field: "score", value: "high")) {
      try refusing.addChecked(event("u1", "mood_saved", 0, fields: ["score": "high"]))
    }
    #expect(
      "\(ReportError.nonNumericCovariate(event: "mood_saved", field: "score", value: "high"))"
        == "covariate: field 'score' of mood_saved must be a number, got 'high'")
  }
}
