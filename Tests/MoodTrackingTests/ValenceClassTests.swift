import Foundation
import MoodTracking
import Testing

@Suite struct ValenceClassTests {
  static let edgeCases: [(Double, ValenceClass)] = [
    (-1.0, .veryUnpleasant), (-5.0 / 7.0, .unpleasant), ((-5.0 / 7.0).nextDown, .veryUnpleasant),
    (-3.0 / 7.0, .slightlyUnpleasant), ((-3.0 / 7.0).nextDown, .unpleasant), (-1.0 / 7.0, .neutral),
    ((-1.0 / 7.0).nextDown, .slightlyUnpleasant), (0, .neutral), (1.0 / 7.0, .neutral),
    ((1.0 / 7.0).nextUp, .slightlyPleasant), (3.0 / 7.0, .slightlyPleasant), ((3.0 / 7.0).nextUp, .pleasant),
    (5.0 / 7.0, .pleasant), ((5.0 / 7.0).nextUp, .veryPleasant), (1.0, .veryPleasant),
  ]

  @Test(arguments: edgeCases)
  func edgesBelongToTheClassNearerNeutral(valence: Double, expected: ValenceClass) {
    #expect(ValenceClass(valence: valence) == expected)
  }

  @Test func sevenEqualBins() {
    #expect(ValenceClass(valence: -0.9) == .veryUnpleasant)
    #expect(ValenceClass(valence: -0.5) == .unpleasant)
    #expect(ValenceClass(valence: -0.2) == .slightlyUnpleasant)
    #expect(ValenceClass(valence: 0.2) == .slightlyPleasant)
    #expect(ValenceClass(valence: 0.5) == .pleasant)
    #expect(ValenceClass(valence: 0.9) == .veryPleasant)
  }

  @Test(arguments: [Double.nan, 1.0001, -1.0001])
  func outsideTheScaleHasNoClass(valence: Double) {
    #expect(ValenceClass(valence: valence) == nil)
  }

  @Test func scoresNameTheirClass() throws {
    let names = try (1...10).map {
      try ValenceClass(valence: MoodTranslation.valence(forScore: $0))!.displayName
    }
    #expect(
      names == [
        "Very Unpleasant", "Very Unpleasant", "Unpleasant", "Slightly Unpleasant", "Neutral", "Neutral",
        "Slightly Pleasant", "Pleasant", "Very Pleasant", "Very Pleasant",
      ])
  }

  @Test func everyClassHasFittingLabelsAndEveryScoreDefaultFits() throws {
    for valenceClass in ValenceClass.allCases { #expect(!valenceClass.fittingLabels.isEmpty) }
    for score in 1...10 {
      let valenceClass = try ValenceClass(valence: MoodTranslation.valence(forScore: score))!
      let labels = try MoodTranslation.labels(forScore: score)
      #expect(labels.allSatisfy(valenceClass.fittingLabels.contains), "score \(score)")
    }
  }
}
