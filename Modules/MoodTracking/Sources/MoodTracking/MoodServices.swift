import FlowKit

/// The app provides the mood ports under these keys (SQLite adapters in the app,
/// in-memory ones in tests).
public enum MoodRepositoryKey: ServiceKey {
  public typealias Value = any MoodRepository
}

public enum StateOfMindStoreKey: ServiceKey {
  public typealias Value = any StateOfMindStore
}

public enum OutboxKey: ServiceKey {
  public typealias Value = any Outbox
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

  /// The signed-in user's mood history and statistics.
  public var moodHistory: MoodHistoryUseCase {
    let userID = userID
    return MoodHistoryUseCase(
      repository: services[MoodRepositoryKey.self], clock: clock, currentUser: { userID })
  }
}
