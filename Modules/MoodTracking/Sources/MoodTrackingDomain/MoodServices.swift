import FlowKit
import Foundation

/// The app provides the mood ports under these keys (SQLite adapters in the app,
/// in-memory ones in tests).
public enum MoodRepositoryKey: ServiceKey {
  public typealias Value = any MoodRepository
}

public enum StateOfMindStoreKey: ServiceKey {
  public typealias Value = any StateOfMindStore
}

extension HostEnvironment {
  /// Saving moods for the signed-in user, mirrored to the health store.
  public var saveMood: SaveMoodUseCase {
    let userID = userID
    return SaveMoodUseCase(
      repository: services[MoodRepositoryKey.self], clock: clock,
      healthStore: services[StateOfMindStoreKey.self],
      currentUser: { userID })
  }

  /// Listing, editing and deleting the signed-in user's moods, mirrored to the health store.
  public var moodEntries: MoodEntriesUseCase {
    let userID = userID
    return MoodEntriesUseCase(
      repository: services[MoodRepositoryKey.self], clock: clock,
      healthStore: services[StateOfMindStoreKey.self], currentUser: { userID })
  }

  /// The signed-in user's mood history and statistics.
  public var moodHistory: MoodHistoryUseCase {
    let userID = userID
    return MoodHistoryUseCase(
      repository: services[MoodRepositoryKey.self], clock: clock, currentUser: { userID })
  }
}

extension AnalyticsEvent {
  /// `mood_saved`: score, valence and kind, never the notes.
  public static func moodSaved(
    _ entry: MoodEntry, flow: String, variant: String, trigger: FlowTrigger, at date: Date
  ) -> AnalyticsEvent {
    AnalyticsEvent(
      ts: date, user: entry.userID, event: "mood_saved", flow: flow, variant: variant,
      fields: [
        "score": .number(Double(entry.score)), "valence": .number(entry.valence),
        "kind": .string(entry.kind.rawValue), "trigger": .string(trigger.rawValue),
      ])
  }
}
