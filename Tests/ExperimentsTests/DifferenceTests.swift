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

  private func rate(_ successes: Int, _ trials: Int, control: (Int, Int)) -> RateResult {
    RateResult(
      metric: "completion", users: trials, conversions: successes,
      rate: trials > 0 ? Double(successes) / Double(trials) : nil, interval: nil, pValue: nil,
      chanceToBeatControl: nil,
      difference: Statistics.proportionDifference(
        controlSuccesses: control.0, controlTrials: control.1, successes: successes, trials: trials))
  }

  @Test func eachVariationGetsAOneLineVerdict() {
    #expect(
      ExperimentReport.verdict("quick", "full", "completion", rate(60, 100, control: (10, 100)))
        == "quick beats full on completion: +50.0 pp [38.7, 61.3]")
    #expect(
      ExperimentReport.verdict("quick", "full", "completion", rate(10, 100, control: (60, 100)))
        == "quick is worse than full on completion: -50.0 pp [-61.3, -38.7]")
    #expect(
      ExperimentReport.verdict("quick", "full", "completion", rate(52, 100, control: (50, 100)))
        == "quick vs full on completion: no clear difference, +2.0 pp [-11.9, 15.9]")
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
