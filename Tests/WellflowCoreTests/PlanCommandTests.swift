import Experiments
import FlowKit
import Foundation
import Testing
import WellflowCore

// Expected figures from python3 + scipy 1.17:
// n = (norm.ppf(1 − α/(K−1)/2) + norm.ppf(power))² · (P(1−P) + (P+D)(1−P−D)) / D².
@MainActor
@Suite("wellflow plan")
struct PlanCommandTests {
  private func plan(
    _ configure: (inout PlanConfiguration) -> Void, baseline: Double = 0.1, mde: Double = 0.02
  )
    -> RunOutcome
  {
    var configuration = PlanConfiguration(baseline: baseline, mde: mde)
    configure(&configuration)
    let out = Locked<[String]>([])
    let err = Locked<[String]>([])
    let code = PlanCommand.execute(
      configuration,
      console: Console(
        out: { text in out.withLock { $0.append(text) } }, err: { text in err.withLock { $0.append(text) } }))
    return RunOutcome(code: code, out: out.current, err: err.current)
  }

  @Test func usersPerVariationMatchSciPy() throws {
    let cases: [(Double, Double, Double, Double, Int, Int)] = [
      (0.1, 0.02, 0.05, 0.8, 2, 3839),  // 3838.102190096705
      (0.3, 0.05, 0.05, 0.9, 3, 2172),  // 2171.961216533644
      (0.5, 0.01, 0.01, 0.8, 2, 58384),  // 58383.16190019722
    ]
    for (baseline, mde, alpha, power, variations, expected) in cases {
      var configuration = PlanConfiguration(baseline: baseline, mde: mde)
      configuration.alpha = alpha
      configuration.power = power
      configuration.variations = variations
      let made = try ExperimentPlan.make(configuration).get()
      #expect(made.usersPerVariation == expected)
      #expect(made.totalUsers == expected * variations)
    }
  }

  @Test func textForPeopleJSONForTools() throws {
    let text = plan { $0.usersPerDay = 500 }
    #expect(text.code == 0)
    #expect(
      text.out == [
        """
        3839 users per variation, 7678 in all (2 variations)
          to detect 10.0% → 12.0% (+2.0 pp), two-sided, with 80% power (unpooled variance)
          α 0.05
          at 500 users a day: 16 days
        """
      ])
    let json = plan {
      $0.format = .json
      $0.variations = 3
    }
    #expect(json.code == 0)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.outText.utf8)) as? [String: Any])
    #expect(object["usersPerVariation"] as? Int == 4648)
    #expect(object["totalUsers"] as? Int == 3 * 4648)
    #expect(object["comparisonAlpha"] as? Double == 0.025)
    #expect(object["days"] == nil)
  }

  @Test func figuresOutsideTheirRangesAreOneLineProblems() {
    let cases: [(Double, Double, String)] = [
      (0, 0.02, "error: --baseline takes the control's rate, above 0 and below 1, got 0"),
      (1.5, 0.02, "error: --baseline takes the control's rate, above 0 and below 1, got 1.5"),
      (.nan, 0.02, "error: --baseline takes the control's rate, above 0 and below 1, got nan"),
      (0.1, 0, "error: --mde takes the absolute difference to detect, above 0 (0.02 for 2 points), got 0"),
      (
        0.1, -0.1,
        "error: --mde takes the absolute difference to detect, above 0 (0.02 for 2 points), got -0.1"
      ),
      (0.95, 0.1, "error: --baseline plus --mde must stay below 1 (a rate), got 0.95 + 0.1 = 1.05"),
    ]
    for (baseline, mde, message) in cases {
      let outcome = plan({ _ in }, baseline: baseline, mde: mde)
      #expect(outcome.code == 2)
      #expect(outcome.err == [message])
      #expect(outcome.out.isEmpty)
    }
  }

  @Test func theNormalQuantileMatchesSciPy() {
    let cases: [(Double, Double)] = [
      (1e-10, -6.361340902404056), (0.001, -3.090232306167813), (0.025, -1.9599639845400545), (0.5, 0),
      (0.8, 0.8416212335729143), (0.975, 1.959963984540054), (0.999999, 4.753424308817087),
    ]
    for (p, expected) in cases {
      #expect(abs(Statistics.normalQuantile(p) - expected) < 1e-9, "Φ⁻¹(\(p))")
    }
  }
}
