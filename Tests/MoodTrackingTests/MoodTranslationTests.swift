import Foundation
import MoodTracking
import Testing

@Suite struct MoodTranslationTests {
  @Test func scoreEightHasValence0_5556() throws {
    #expect(abs(try MoodTranslation.valence(forScore: 8) - 0.5556) < 0.0001)
  }

  static let valences: [(Int, Double)] = [
    (1, -1.0), (2, -0.7778), (3, -0.5556), (4, -0.3333), (5, -0.1111), (6, 0.1111), (7, 0.3333),
    (8, 0.5556), (9, 0.7778), (10, 1.0),
  ]

  @Test(arguments: valences)
  func valenceIsScoreMinusOneOver4_5MinusOne(score: Int, valence: Double) throws {
    #expect(abs(try MoodTranslation.valence(forScore: score) - valence) < 0.0001)
  }

  @Test func valence0_6IsScore8() throws {
    #expect(try MoodTranslation.score(forValence: 0.6) == 8)
  }

  @Test(arguments: [(-1.0, 1), (0.0, 6), (1.0, 10), (-0.1, 5), (0.45, 8)])
  func scoreFromValenceRoundsTheScale(valence: Double, score: Int) throws {
    #expect(try MoodTranslation.score(forValence: valence) == score)
  }

  @Test(arguments: 1...10)
  func scoreToValenceToScoreIsIdentityWithoutLabels(score: Int) throws {
    #expect(try MoodTranslation.score(forValence: MoodTranslation.valence(forScore: score)) == score)
  }

  @Test func hopelessWithBase7Gives6() throws {
    let valence = try MoodTranslation.valence(forScore: 7)
    #expect(try MoodTranslation.score(forValence: valence, labels: [.hopeless]) == 6)
  }

  @Test func gratefulWithBase5Gives6() throws {
    let valence = try MoodTranslation.valence(forScore: 5)
    #expect(try MoodTranslation.score(forValence: valence, labels: [.grateful]) == 6)
  }

  @Test(arguments: [MoodLabel.hopeless, .overwhelmed, .ashamed, .scared])
  func stronglyNegativeLowersOnlyAbove3(label: MoodLabel) throws {
    #expect(try MoodTranslation.score(forValence: MoodTranslation.valence(forScore: 4), labels: [label]) == 3)
    #expect(try MoodTranslation.score(forValence: MoodTranslation.valence(forScore: 3), labels: [label]) == 3)
    #expect(try MoodTranslation.score(forValence: -1, labels: [label]) == 1)
  }

  @Test(arguments: [MoodLabel.passionate, .grateful, .proud, .hopeful])
  func stronglyPositiveRaisesOnlyBelow8(label: MoodLabel) throws {
    #expect(try MoodTranslation.score(forValence: MoodTranslation.valence(forScore: 7), labels: [label]) == 8)
    #expect(try MoodTranslation.score(forValence: MoodTranslation.valence(forScore: 8), labels: [label]) == 8)
    #expect(try MoodTranslation.score(forValence: 1, labels: [label]) == 10)
  }

  @Test func negativeLabelWinsOverPositive() throws {
    let valence = try MoodTranslation.valence(forScore: 6)
    #expect(try MoodTranslation.score(forValence: valence, labels: [.grateful, .scared]) == 5)
  }

  @Test func otherLabelsDoNotAdjust() throws {
    let valence = try MoodTranslation.valence(forScore: 6)
    #expect(try MoodTranslation.score(forValence: valence, labels: [.happy, .sad]) == 6)
  }

  @Test(arguments: [Double.nan, 1.01, -1.5, Double.infinity])
  func valenceOutsideTheScaleIsInvalid(valence: Double) {
    #expect {
      try MoodTranslation.score(forValence: valence)
    } throws: { error in
      guard case .invalidValence = error as? MoodError else { return false }
      return true
    }
  }

  @Test(arguments: [0, 11, -3])
  func scoreOutside1To10IsInvalid(score: Int) {
    #expect(throws: MoodError.invalidScore(score)) { try MoodTranslation.valence(forScore: score) }
    #expect(throws: MoodError.invalidScore(score)) { try MoodTranslation.labels(forScore: score) }
  }

  static let defaultLabels: [(Int, [MoodLabel])] = [
    (1, [.sad, .hopeless]), (2, [.anxious, .worried]), (3, [.frustrated, .annoyed]), (4, [.irritated]),
    (5, [.calm, .content]), (6, [.content, .peaceful]), (7, [.happy, .peaceful]), (8, [.happy, .confident]),
    (9, [.excited, .grateful]), (10, [.passionate, .hopeful]),
  ]

  @Test(arguments: defaultLabels)
  func labelsForEachScore(score: Int, labels: [MoodLabel]) throws {
    #expect(try MoodTranslation.labels(forScore: score) == labels)
    #expect(try MoodTranslation.labels(forScore: score, notes: "an ordinary day") == labels)
  }

  @Test func notesKeywordsAddALabel() throws {
    #expect(
      try MoodTranslation.labels(forScore: 1, notes: "So LONELY tonight") == [.sad, .hopeless, .lonely])
    #expect(try MoodTranslation.labels(forScore: 2, notes: "work stress") == [.anxious, .worried, .stressed])
    #expect(
      try MoodTranslation.labels(forScore: 8, notes: "Excited for Friday") == [.happy, .confident, .excited])
  }

  @Test func keywordsOnlyCountForTheirScore() throws {
    #expect(try MoodTranslation.labels(forScore: 8, notes: "lonely and stressed") == [.happy, .confident])
    #expect(try MoodTranslation.labels(forScore: 1, notes: "excited") == [.sad, .hopeless])
  }

  @Test func associationsFromNotesKeywords() {
    #expect(
      MoodTranslation.associations(forNotes: "Long meeting at work, then dinner with my sister.")
        == [.family, .work])
    #expect(
      MoodTranslation.associations(forNotes: "Rainy run before the exam") == [.education, .fitness, .weather])
    #expect(MoodTranslation.associations(forNotes: "homework? networking") == [.education])
    #expect(MoodTranslation.associations(forNotes: nil) == [])
    #expect(MoodTranslation.associations(forNotes: "nothing special") == [])
  }
}

@Suite struct MoodLabelTests {
  @Test func thereAre38LabelsAnd18Associations() {
    #expect(MoodLabel.allCases.count == 38)
    #expect(MoodAssociation.allCases.count == 18)
    #expect(Set(MoodLabel.allCases.map(\.displayName)).count == 38)
  }

  @Test func olderSpellingsDecode() throws {
    let decoded = try JSONDecoder().decode(
      [MoodLabel].self, from: Data(#"["depressed","relaxed","happy"]"#.utf8))
    #expect(decoded == [.hopeless, .peaceful, .happy])
    #expect(MoodLabel(storedName: "depressed") == .hopeless)
    #expect(MoodLabel(storedName: "relaxed") == .peaceful)
    #expect(MoodLabel(storedName: "gloomy") == nil)
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode([MoodLabel].self, from: Data(#"["gloomy"]"#.utf8))
    }
  }

  @Test func labelsEncodeTheirCurrentName() throws {
    #expect(
      String(decoding: try JSONEncoder().encode([MoodLabel.hopeless]), as: UTF8.self) == #"["hopeless"]"#)
  }

  @Test func displayNames() {
    #expect(MoodLabel.hopeless.displayName == "Hopeless")
    #expect(MoodAssociation.currentEvents.displayName == "Current Events")
    #expect(MoodAssociation.selfCare.displayName == "Self Care")
    #expect(MoodAssociation.work.displayName == "Work")
  }
}
