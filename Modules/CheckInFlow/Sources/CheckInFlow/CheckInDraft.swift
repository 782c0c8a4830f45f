import FlowKit
import MoodTrackingDomain

/// How the person meets the feeling (the Evaluating step).
public enum MoodEvaluation: String, CaseIterable, Sendable, Hashable, Codable {
  case accept, letBe, pushAway, resist, unsure

  public var displayName: String {
    switch self {
    case .accept: "I accept it"
    case .letBe: "I let it be"
    case .pushAway: "I push it away"
    case .resist: "I resist it"
    case .unsure: "I'm not sure"
    }
  }
}

/// A question the Shaping step offers to start the written reflection.
public enum ReflectionPrompt: String, CaseIterable, Sendable, Hashable, Codable {
  case source, body, need, message

  public var question: String {
    switch self {
    case .source: "What brought this feeling on?"
    case .body: "Where do you notice it in your body?"
    case .need: "What do you need right now?"
    case .message: "What might this feeling be telling you?"
    }
  }
}

/// Everything entered so far. It lives as long as the flow, not the step, so `back`
/// and forward again find every input where the person left it.
public struct CheckInDraft: Sendable, Equatable {
  public static let defaultScore = 5

  public var score = defaultScore
  public var emotion: MoodLabel?
  /// More labels besides the emotion.
  public var labels: [MoodLabel] = []
  public var prompt: ReflectionPrompt?
  public var response = ""
  public var associations: [MoodAssociation] = []
  public var evaluation: MoodEvaluation?
  /// Typed data of steps registered outside this module (see `CheckInDataKey`).
  public var contributions = CheckInContributions()

  public subscript<Key: CheckInDataKey>(_ key: Key.Type) -> Key.Value? {
    get { contributions[key] }
    set { contributions[key] = newValue }
  }

  public init() {}

  /// The valence of the chosen score. The slider only offers 1…10, so the translation
  /// cannot fail; neutral stands in should that ever change.
  public var valence: Double { (try? MoodTranslation.valence(forScore: score)) ?? 0 }

  public var valenceClass: ValenceClass { ValenceClass(valence: valence) ?? .neutral }

  /// The labels to save: the emotion first, then the others without repeating it.
  public var savedLabels: [MoodLabel] {
    guard let emotion else { return labels }
    return [emotion] + labels.filter { $0 != emotion }
  }
}
