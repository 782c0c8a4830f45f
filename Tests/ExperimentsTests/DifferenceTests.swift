import Foundation
import Testing

@testable import Experiments

// Expected figures from python3 + scipy 1.17 (z = norm.ppf(0.975)): absolute difference
// p₁ − p₀ ± z·√(p₀(1−p₀)/n₀ + p₁(1−p₁)/n₁); relative p₁/p₀ − 1 ± z·√(v₁/p₀² + p₁²v₀/p₀⁴)
// (the delta method, as GrowthBook's frequentist engine).
struct DifferenceTests {
  @Test func differencesMatchSciPy() throws {
    let difference = try #require(
      Statistics.proportionDifference(controlSuccesses: 45, controlTrials: 100, successes: 60, trials: 100))
    #expect(abs(difference.absolute.estimate - 0.15) < 1e-12)
    #expect(abs(difference.absolute.lower - 0.013152962213704211) < 1e-9)
    #expect(abs(difference.absolute.upper - 0.2868470377862957) < 1e-9)
    let relative = try #require(difference.relative)
    #expect(abs(relative.estimate - 0.33333333333333326) < 1e-12)
    #expect(abs(relative.lower - -0.02582837914067132) < 1e-9)
    #expect(abs(relative.upper - 0.6924950458073378) < 1e-9)
    #expect(
      Statistics.proportionDifference(controlSuccesses: 0, controlTrials: 10, successes: 3, trials: 10)?
        .relative
        == nil, "no relative change of nothing")
    #expect(
      Statistics.proportionDifference(controlSuccesses: 0, controlTrials: 0, successes: 3, trials: 10) == nil)
  }

  /// The relative difference's interval is made on the log of the ratio: for rates,
  /// Katz's log interval of the risk ratio, as SciPy's
  /// `relative_risk(s1, n1, s0, n0).confidence_interval(0.95)` gives it
  /// (`Tools/GrowthBookReference/statistics_reference.py`). It never passes −100%, where
  /// the delta method's did (5/10 against 1/10: −80% [−150.2, −9.8]).
  @Test(arguments: [
    (45, 100, 60, 100, 0.33333333333333326, 0.018479458499814916, 0.7455214859182164),
    (48, 80, 56, 70, 0.3333333333333335, 0.07662642276319298, 0.651248511266387),
    (5, 10, 1, 10, -0.8, -0.9718273011813565, 0.41981427684626715),
    (2, 3, 1, 3, -0.5, -0.9164526151021766, 1.9923138863741139),
    (450, 1000, 520, 1000, 0.15555555555555567, 0.055274416655404446, 0.26536626009322517),
  ])
  func relativeIntervalOfRatesMatchesSciPy(
    _ s0: Int, _ n0: Int, _ s1: Int, _ n1: Int, _ estimate: Double, _ lower: Double, _ upper: Double
  ) throws {
    let comparison = try #require(
      Statistics.compare(
        control: MetricSums(conversions: s0, users: n0), variation: MetricSums(conversions: s1, users: n1),
        scale: .proportion))
    let relative = try #require(comparison.difference.relative)
    #expect(abs(relative.estimate - estimate) < 1e-12)
    #expect(abs(relative.lower - lower) < 1e-9, "\(relative)")
    #expect(abs(relative.upper - upper) < 1e-9, "\(relative)")
    #expect(relative.lower > -1)
    #expect(comparison.difference.relativeNotApplicable == nil)
  }

  /// No relative interval sits below −100%, whatever the method: sequential, CUPED, means.
  @Test func relativeIntervalsNeverPassMinusOneHundredPercent() throws {
    let cases: [(MetricSums, MetricSums, MetricScale, ComparisonOptions)] = [
      (MetricSums(conversions: 5, users: 10), MetricSums(conversions: 1, users: 10), .proportion, .init()),
      (
        MetricSums(conversions: 5, users: 10), MetricSums(conversions: 1, users: 10), .proportion,
        .init(sequential: true)
      ),
      (
        MetricSums(count: 4, sum: 10, sumOfSquares: 40), MetricSums(count: 3, sum: 1, sumOfSquares: 1), .mean,
        .init()
      ),
      (
        MetricSums(count: 4, sum: 10, sumOfSquares: 40), MetricSums(count: 3, sum: 1, sumOfSquares: 1), .mean,
        .init(sequential: true)
      ),
    ]
    for (control, variation, scale, options) in cases {
      let comparison = try #require(
        Statistics.compare(control: control, variation: variation, scale: scale, options: options))
      let relative = try #require(comparison.difference.relative)
      #expect(relative.lower > -1, "\(relative)")
      #expect(relative.lower < relative.estimate && relative.estimate < relative.upper)
    }
  }

  /// Both at 100% or both at 0%: no collapsed +0.0% [0.0, 0.0] and no lean of 45%; the
  /// relative difference is not applicable, with why, and the chance to beat is 50%.
  @Test func tiedRatesHaveNoRelativeIntervalAndAnEvenChance() throws {
    for options in [ComparisonOptions(), ComparisonOptions(sequential: true)] {
      let full = try #require(
        Statistics.compare(
          control: MetricSums(conversions: 40, users: 40), variation: MetricSums(conversions: 33, users: 33),
          scale: .proportion, options: options))
      #expect(full.difference.relative == nil)
      #expect(
        full.difference.relativeNotApplicable == "both are at 100%: nothing varies to estimate a ratio from")
      #expect(full.chanceToBeat == 0.5)
      // Not the point [0, 0]: a sequential interval too has the spread its users allow.
      #expect(full.difference.absolute.lower < 0 && full.difference.absolute.upper > 0)
      #expect(full.difference.absolute.lower >= -1 && full.difference.absolute.upper <= 1)
      if options.sequential {
        #expect(full.difference.absolute.lower == -full.difference.absolute.upper)
        #expect(full.pValue == 1)
        let more = try #require(
          Statistics.compare(
            control: MetricSums(conversions: 400, users: 400),
            variation: MetricSums(conversions: 330, users: 330),
            scale: .proportion, options: options))
        #expect(more.difference.absolute.upper < full.difference.absolute.upper)
      }

      let none = try #require(
        Statistics.compare(
          control: MetricSums(conversions: 0, users: 40), variation: MetricSums(conversions: 0, users: 33),
          scale: .proportion, options: options))
      #expect(none.difference.relative == nil)
      #expect(none.difference.relativeNotApplicable == "the control is at 0%: no relative change of nothing")
      #expect(none.chanceToBeat == 0.5)
      #expect(none.difference.absolute.lower < 0 && none.difference.absolute.upper > 0)
    }
    let dropped = try #require(
      Statistics.compare(
        control: MetricSums(conversions: 4, users: 40), variation: MetricSums(conversions: 0, users: 33),
        scale: .proportion))
    #expect(
      dropped.difference.relativeNotApplicable
        == "the variation is at 0% or below: a ratio's interval needs both above 0")
    let constant = try #require(
      Statistics.compare(
        control: MetricSums(count: 3, sum: 6, sumOfSquares: 12),
        variation: MetricSums(count: 2, sum: 4, sumOfSquares: 8),
        scale: .mean))
    #expect(constant.difference.relative == nil)
    #expect(
      constant.difference.relativeNotApplicable
        == "nothing varies on either side: a ratio's interval needs some spread")
    #expect(constant.chanceToBeat == 0.5)
  }

  private func rate(_ successes: Int, _ trials: Int, control: (Int, Int)) -> RateResult {
    RateResult(
      metric: "completion", users: trials, conversions: successes,
      rate: trials > 0 ? Double(successes) / Double(trials) : nil, interval: nil, pValue: nil,
      chanceToBeatControl: nil,
      difference: Statistics.compare(
        control: MetricSums(conversions: control.0, users: control.1),
        variation: MetricSums(conversions: successes, users: trials), scale: .proportion)?.difference)
  }

  /// Newcombe's hybrid score interval (method 10) against his own example (Newcombe 1998,
  /// Stat Med 17:873, 56/70 − 48/80: 0.0524 to 0.3339) and, for the edge cases, the same
  /// construction over SciPy's Wilson intervals (`binomtest(k, n).proportion_ci("wilson")`,
  /// `Tools/GrowthBookReference/statistics_reference.py`).
  @Test(arguments: [
    (48, 80, 56, 70, 0.20000000000000007, 0.052431472402364815, 0.3338726540369059),
    // Three users: within ±100 pp (the Wald interval was −104.1…70.8).
    (2, 3, 1, 2, -0.16666666666666663, -0.6548292253357504, 0.4457812328619245),
    (2, 3, 1, 3, -0.3333333333333333, -0.717775111924084, 0.31580068443749126),
    // Both at 100% or both at 0%: not the point [0, 0].
    (3, 3, 3, 3, 0.0, -0.5614970317550454, 0.5614970317550454),
    (0, 10, 0, 10, 0.0, -0.27753279986288926, 0.27753279986288926),
    (0, 5, 5, 5, 1.0, 0.38554900569034356, 1.0),
    (45, 100, 60, 100, 0.14999999999999997, 0.011723935319973455, 0.2804485210107637),
  ])
  func newcombeMatchesTheReference(
    _ s0: Int, _ n0: Int, _ s1: Int, _ n1: Int, _ estimate: Double, _ lower: Double, _ upper: Double
  ) throws {
    let interval = try #require(
      Statistics.newcombeInterval(controlSuccesses: s0, controlTrials: n0, successes: s1, trials: n1))
    #expect(abs(interval.estimate - estimate) < 1e-12)
    #expect(abs(interval.lower - lower) < 1e-9, "\(interval)")
    #expect(abs(interval.upper - upper) < 1e-9, "\(interval)")
    #expect(interval.lower >= -1 && interval.upper <= 1)
    #expect(
      Statistics.newcombeInterval(controlSuccesses: 0, controlTrials: 0, successes: 1, trials: 2) == nil)
  }

  @Test func eachVariationGetsAOneLineVerdict() {
    #expect(
      ExperimentReport.verdict("quick", "full", "completion", rate(60, 100, control: (10, 100)))
        == "quick beats full on completion: +50.0 pp [37.7, 60.1]")
    #expect(
      ExperimentReport.verdict("quick", "full", "completion", rate(10, 100, control: (60, 100)))
        == "quick is worse than full on completion: -50.0 pp [-60.1, -37.7]")
    #expect(
      ExperimentReport.verdict("quick", "full", "completion", rate(52, 100, control: (50, 100)))
        == "quick vs full on completion: no clear difference, +2.0 pp [-11.6, 15.5]")
    #expect(
      ExperimentReport.verdict("mini", "full", "completion", rate(0, 0, control: (50, 100)))
        == "mini vs full on completion: not applicable (no users to compare on one side)")
  }

  @Test func smallPValuesPrintAsBelowOneInAThousand() {
    #expect(ExperimentReport.comparisonP(5.8e-173) == "< 0.001")
    #expect(ExperimentReport.comparisonP(0) == "< 0.001")
    #expect(ExperimentReport.comparisonP(0.000999) == "< 0.001")
    #expect(ExperimentReport.comparisonP(0.001) == "0.0010")
    #expect(ExperimentReport.comparisonP(0.0337) == "0.0337")
  }
}
