/// How familiar a person is with mindfulness; chosen on the skill step and the
/// onboarding's output.
public enum SkillLevel: String, CaseIterable, Sendable, Equatable {
  case beginner
  case intermediate
  case experienced

  /// The option as the skill step shows it: emoji and text.
  public var optionLabel: String { Self.optionLabels[self]! }

  private static let optionLabels = Dictionary(
    uniqueKeysWithValues: allCases.map { ($0, "\($0.emoji) \($0.optionText)") })

  /// The option text on the skill step.
  public var optionText: String {
    switch self {
    case .beginner: "I'm new to checking in with myself"
    case .intermediate: "I pause to notice how I feel now and then"
    case .experienced: "Reflecting on my mood is part of my day"
    }
  }

  public var emoji: String {
    switch self {
    case .beginner: "🌱"
    case .intermediate: "🌿"
    case .experienced: "🌳"
    }
  }

  public var finaleTitle: String {
    switch self {
    case .beginner: "Every feeling counts"
    case .intermediate: "Let's make it a habit"
    case .experienced: "Go deeper, gently"
    }
  }

  public var finaleSubtitle: String {
    switch self {
    case .beginner: "We'll keep each check-in short and show you what your moods have in common."
    case .intermediate: "A daily check-in takes a minute; we'll remind you when it's time."
    case .experienced: "Name your emotions precisely and follow the patterns over weeks."
    }
  }
}
