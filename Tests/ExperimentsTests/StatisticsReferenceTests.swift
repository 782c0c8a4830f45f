import Experiments
import Testing

/// The report's statistics against reference values computed with SciPy 1.17.1
/// (Python 3.11): `scipy.stats.chi2.sf`, `scipy.stats.chisquare`,
/// `scipy.stats.binomtest(k, n).proportion_ci(method="wilson")`, `scipy.stats.norm.sf`,
/// and for the chance to beat control `scipy.integrate.quad` of
/// `beta(1+s1, 1+n1-s1).pdf(x) * beta(1+s0, 1+n0-s0).cdf(x)` over 0…1. Holm's adjustment
/// against statsmodels' `multipletests(method="holm")`.
@Suite("Statistics against SciPy reference values")
struct StatisticsReferenceTests {
  static func close(_ a: Double?, _ b: Double, tolerance: Double = 1e-9) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance * max(1, abs(b))
  }

  @Test(arguments: [
    (3.2, 1, 0.07363827012030258), (10.83, 1, 0.0009986863791802592), (15.5, 2, 0.0004307425405756874),
    (0.5, 3, 0.9188914116546758), (250.0, 4, 6.509689997375721e-53),
  ])
  func chiSquareUpperTail(_ statistic: Double, _ df: Int, _ expected: Double) {
    let p = Statistics.chiSquarePValue(statistic, degreesOfFreedom: df)
    // Relative precision: the tail at 250 is 6.5e-53.
    #expect(abs(p - expected) <= 1e-9 * expected, "\(p)")
  }

  @Test func sampleRatioMatchesScipyChisquare() throws {
    let even = try #require(Statistics.sampleRatioTest(observed: [520, 480], weights: [0.5, 0.5]))
    #expect(Self.close(even.statistic, 1.6))
    #expect(Self.close(even.pValue, 0.20590321073206466))
    let skewed = try #require(Statistics.sampleRatioTest(observed: [600, 400], weights: [0.5, 0.5]))
    #expect(Self.close(skewed.statistic, 40))
    #expect(abs(skewed.pValue - 2.5396285894708634e-10) <= 1e-18)
    let three = try #require(
      Statistics.sampleRatioTest(observed: [30, 35, 35], weights: [0.34, 0.33, 0.33]))
    #expect(Self.close(three.statistic, 0.7130124777183601))
    #expect(Self.close(three.pValue, 0.7001181035177382))
    #expect(Statistics.sampleRatioTest(observed: [340, 330, 330], weights: [0.34, 0.33, 0.33])?.pValue == 1)
    #expect(Statistics.sampleRatioTest(observed: [0, 0], weights: [0.5, 0.5]) == nil)
    #expect(Statistics.sampleRatioTest(observed: [1, 2], weights: [1, 0]) == nil)
  }

  @Test(arguments: [
    (45, 100, 0.35614537979511984, 0.5475539700255787), (0, 10, 0.0, 0.27753279986288926),
    (10, 10, 0.7224672001371109, 1.0), (700, 1000, 0.6708761390827828, 0.7275931575229951),
  ])
  func wilsonInterval(_ k: Int, _ n: Int, _ lower: Double, _ upper: Double) throws {
    let interval = try #require(Statistics.wilsonInterval(successes: k, trials: n))
    #expect(abs(interval.lower - lower) < 1e-12 && abs(interval.upper - upper) < 1e-12, "\(interval)")
  }

  @Test func twoProportionPValue() throws {
    // 2 * norm.sf(|z|) with the pooled standard error of 45/100 against 55/100.
    let test = try #require(
      Statistics.twoProportionTest(controlSuccesses: 45, controlTrials: 100, successes: 55, trials: 100))
    #expect(Self.close(test.pValue, 0.15729920705028497))
    #expect(Self.close(Statistics.normalCDF(-Statistics.z95), 0.025))
  }

  @Test func holmAdjustment() {
    let adjusted = Statistics.holm([0.01, 0.04, 0.03, nil])
    #expect(adjusted.count == 4)
    for (value, expected) in zip(adjusted.prefix(3), [0.03, 0.06, 0.06]) {
      #expect(Self.close(value, expected))
    }
    #expect(adjusted[3] == nil)
    #expect(Statistics.holm([0.6, 0.7]).map { $0 ?? -1 } == [1, 1])
  }

  @Test(arguments: [
    (45, 100, 55, 100, 0.920396760480723), (10, 20, 12, 20, 0.7320491114299956), (0, 5, 0, 5, 0.5),
    (300, 1000, 330, 1000, 0.925529740795085), (50, 100, 40, 100, 0.07857375149358223),
  ])
  func chanceToBeatControl(_ s0: Int, _ n0: Int, _ s1: Int, _ n1: Int, _ expected: Double) {
    let chance = Statistics.chanceToBeatControl(
      controlSuccesses: s0, controlTrials: n0, successes: s1, trials: n1)
    #expect(Self.close(chance, expected, tolerance: 1e-8), "\(chance ?? -1)")
  }
}
