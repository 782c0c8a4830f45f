/// HealthKit's seven valence classifications: equal bins over −1…1 with edges at
/// ±1/7, ±3/7 and ±5/7. A value on an edge belongs to the class nearer neutral.
public enum ValenceClass: Int, CaseIterable, Sendable, Comparable {
  case veryUnpleasant = -3
  case unpleasant = -2
  case slightlyUnpleasant = -1
  case neutral = 0
  case slightlyPleasant = 1
  case pleasant = 2
  case veryPleasant = 3

  /// nil for values outside −1…1 or NaN.
  public init?(valence: Double) {
    guard valence.isFinite, (-1...1).contains(valence) else { return nil }
    let step = Self.edges.filter { abs(valence) > $0 }.count
    self.init(rawValue: valence < 0 ? -step : step)
  }

  /// Strictly beyond an edge moves a class away from neutral, so edges stay nearer neutral.
  public static let edges: [Double] = [1.0 / 7.0, 3.0 / 7.0, 5.0 / 7.0]

  public static func < (lhs: ValenceClass, rhs: ValenceClass) -> Bool { lhs.rawValue < rhs.rawValue }

  public var displayName: String {
    switch self {
    case .veryUnpleasant: "Very Unpleasant"
    case .unpleasant: "Unpleasant"
    case .slightlyUnpleasant: "Slightly Unpleasant"
    case .neutral: "Neutral"
    case .slightlyPleasant: "Slightly Pleasant"
    case .pleasant: "Pleasant"
    case .veryPleasant: "Very Pleasant"
    }
  }

  /// Labels that fit a feeling of this class; a check-in offers them first.
  public var fittingLabels: [MoodLabel] {
    switch self {
    case .veryUnpleasant:
      [.hopeless, .sad, .lonely, .anxious, .worried, .overwhelmed, .ashamed, .scared, .angry, .disgusted]
    case .unpleasant:
      [
        .frustrated, .annoyed, .anxious, .worried, .stressed, .angry, .disappointed, .discouraged,
        .guilty, .embarrassed, .jealous, .drained,
      ]
    case .slightlyUnpleasant:
      [.irritated, .annoyed, .frustrated, .disappointed, .drained, .worried, .indifferent]
    case .neutral: [.calm, .content, .indifferent, .peaceful, .surprised]
    case .slightlyPleasant: [.happy, .peaceful, .content, .relieved, .satisfied, .amused]
    case .pleasant: [.happy, .confident, .peaceful, .satisfied, .hopeful, .proud, .brave, .joyful]
    case .veryPleasant: [.excited, .grateful, .passionate, .hopeful, .joyful, .amazed, .proud]
    }
  }
}
