import Foundation

/// The one place that translates between scores, valences, labels and notes:
/// valence = (score − 1)/4.5 − 1, and back with a strongly negative or positive label's
/// adjustment.
public enum MoodTranslation {
  /// Labels whose presence pulls a score derived from a valence down by one.
  public static let stronglyNegative: Set<MoodLabel> = [.hopeless, .overwhelmed, .ashamed, .scared]
  /// Labels whose presence pushes a score derived from a valence up by one.
  public static let stronglyPositive: Set<MoodLabel> = [.passionate, .grateful, .proud, .hopeful]

  /// valence = (score − 1) / 4.5 − 1, so 1 → −1, 10 → 1.
  public static func valence(forScore score: Int) throws(MoodError) -> Double {
    try MoodLimits.validate(score: score)
    return Double(score - 1) / 4.5 - 1
  }

  /// The score before any label adjustment.
  public static func baseScore(forValence valence: Double) throws(MoodError) -> Int {
    try MoodLimits.validate(valence: valence)
    return Int(((valence + 1) * 4.5 + 1).rounded())
  }

  /// The base score, one lower with a strongly negative label (base > 3), else one higher
  /// with a strongly positive label (base < 8), clamped to 1…10.
  public static func score(forValence valence: Double, labels: [MoodLabel] = []) throws(MoodError) -> Int {
    let base = try baseScore(forValence: valence)
    let adjustment: Int
    if base > 3, labels.contains(where: stronglyNegative.contains) {
      adjustment = -1
    } else if base < 8, labels.contains(where: stronglyPositive.contains) {
      adjustment = 1
    } else {
      adjustment = 0
    }
    return min(max(base + adjustment, MoodLimits.scores.lowerBound), MoodLimits.scores.upperBound)
  }

  /// The default labels of a score; some notes keywords add one more.
  public static func labels(forScore score: Int, notes: String? = nil) throws(MoodError) -> [MoodLabel] {
    try MoodLimits.validate(score: score)
    let text = notes?.lowercased() ?? ""
    switch score {
    case 1: return [.sad, .hopeless] + (text.contains("lonel") ? [.lonely] : [])
    case 2: return [.anxious, .worried] + (text.contains("stress") ? [.stressed] : [])
    case 3: return [.frustrated, .annoyed]
    case 4: return [.irritated]
    case 5: return [.calm, .content]
    case 6: return [.content, .peaceful]
    case 7: return [.happy, .peaceful]
    case 8: return [.happy, .confident] + (text.contains("excit") ? [.excited] : [])
    case 9: return [.excited, .grateful]
    default: return [.passionate, .hopeful]
    }
  }

  /// Associations whose keywords appear as words in the notes, in declaration order.
  public static func associations(forNotes notes: String?) -> [MoodAssociation] {
    guard let notes else { return [] }
    let words = Set(notes.lowercased().split { !$0.isLetter }.map(String.init))
    return MoodAssociation.allCases.filter { association in
      !(associationKeywords[association] ?? []).isDisjoint(with: words)
    }
  }

  /// Whole lowercase words (with the plural or -ing forms people write) per association.
  public static let associationKeywords: [MoodAssociation: Set<String>] = [
    .community: [
      "community", "neighbor", "neighbors", "neighbour", "neighbours", "volunteer", "volunteering",
    ],
    .currentEvents: ["news", "election", "politics", "war"],
    .dating: ["date", "dating", "crush", "tinder"],
    .education: [
      "school", "exam", "exams", "study", "studying", "class", "lecture", "university", "homework",
    ],
    .family: [
      "family", "mom", "mum", "dad", "parents", "mother", "father", "sister", "brother", "kids", "son",
      "daughter",
    ],
    .fitness: [
      "gym", "run", "running", "workout", "exercise", "yoga", "swim", "swimming", "hike", "training",
    ],
    .friends: ["friend", "friends", "buddy", "party"],
    .health: ["sick", "ill", "doctor", "health", "pain", "headache", "sleep", "slept", "tired", "therapy"],
    .hobbies: ["hobby", "painting", "guitar", "piano", "gaming", "reading", "gardening", "cooking", "music"],
    .identity: ["identity", "myself", "gender", "culture"],
    .money: ["money", "rent", "bills", "salary", "debt", "budget", "paycheck", "savings"],
    .partner: ["partner", "husband", "wife", "boyfriend", "girlfriend", "spouse"],
    .selfCare: ["meditation", "meditated", "bath", "massage", "journaling", "rest", "relax"],
    .spirituality: ["church", "prayer", "pray", "faith", "temple", "mosque", "spiritual"],
    .tasks: ["chores", "errands", "todo", "cleaning", "laundry", "tasks"],
    .travel: ["travel", "trip", "flight", "vacation", "holiday", "airport", "traveling"],
    .work: ["work", "job", "boss", "office", "meeting", "meetings", "deadline", "colleague", "colleagues"],
    .weather: ["weather", "rain", "rainy", "sunny", "snow", "cold", "hot", "storm"],
  ]
}
