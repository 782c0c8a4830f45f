/// An emotion label: exactly HealthKit's `HKStateOfMind.Label` set, so entries mirror
/// to the health store without loss.
public enum MoodLabel: String, CaseIterable, Codable, Sendable, Hashable {
  case amazed, amused, angry, anxious, ashamed, brave, calm, content, disappointed
  case discouraged, disgusted, embarrassed, excited, frustrated, grateful, guilty, happy
  case hopeless, irritated, jealous, joyful, lonely, passionate, peaceful, proud, relieved
  case sad, scared, stressed, surprised, worried, annoyed, confident, drained, hopeful
  case indifferent, overwhelmed, satisfied

  /// Reads a stored or received spelling, including the names older data used.
  public init?(storedName: String) {
    guard let label = Self.byStoredName[storedName] else { return nil }
    self = label
  }

  /// Every name a stored label may have: today's, and the older spellings that read as
  /// today's labels.
  public static let storedNames: [(name: String, label: MoodLabel)] =
    allCases.map { ($0.rawValue, $0) } + [("depressed", .hopeless), ("relaxed", .peaceful)]

  /// A hash lookup: storage reads decode a few labels per row.
  private static let byStoredName: [String: MoodLabel] = Dictionary(
    uniqueKeysWithValues: storedNames.map { ($0.name, $0.label) })

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let name = try container.decode(String.self)
    guard let label = MoodLabel(storedName: name) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "'\(name)' is not a mood label")
    }
    self = label
  }

  public var displayName: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
}

/// What a feeling relates to: exactly HealthKit's `HKStateOfMind.Association` set.
public enum MoodAssociation: String, CaseIterable, Codable, Sendable, Hashable {
  case community, currentEvents, dating, education, family, fitness, friends, health, hobbies
  case identity, money, partner, selfCare, spirituality, tasks, travel, work, weather

  public init?(storedName: String) {
    guard let association = Self.byStoredName[storedName] else { return nil }
    self = association
  }

  private static let byStoredName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })

  public var displayName: String {
    switch self {
    case .currentEvents: "Current Events"
    case .selfCare: "Self Care"
    default: rawValue.prefix(1).uppercased() + rawValue.dropFirst()
    }
  }
}
