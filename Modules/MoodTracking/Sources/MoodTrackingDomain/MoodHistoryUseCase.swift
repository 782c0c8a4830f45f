import FlowKit
import Foundation

/// A span of whole days in the user's time zone.
public enum MoodHistoryRange: Sendable, Hashable {
  /// Today and the N − 1 days before it.
  case lastDays(Int)
  /// From the first day through the last, both included.
  case custom(from: MoodDay, through: MoodDay)

  public static let week = MoodHistoryRange.lastDays(7)
  public static let month = MoodHistoryRange.lastDays(30)
  public static let quarter = MoodHistoryRange.lastDays(90)
  public static let year = MoodHistoryRange.lastDays(365)

  /// The ranges the history screen offers, by option id, in order.
  public static let options: [(id: String, range: MoodHistoryRange)] = [
    ("7d", .week), ("30d", .month), ("90d", .quarter), ("1y", .year),
  ]

  public init?(id: String) {
    guard let option = Self.options.first(where: { $0.id == id }) else { return nil }
    self = option.range
  }

  /// The first and last day, or why the range is invalid.
  public func days(today: MoodDay) throws(MoodError) -> ClosedRange<MoodDay> {
    switch self {
    case .lastDays(let count):
      guard count >= 1 else { throw .invalidDayCount(count) }
      return today.adding(days: -(count - 1))...today
    case .custom(let first, let last):
      guard first <= last else { throw .invalidDateRange(start: first, end: last) }
      return first...last
    }
  }

  /// From midnight of the first day to midnight after the last, in the user's zone.
  public func interval(today: MoodDay, in calendar: Calendar) throws(MoodError) -> DateInterval {
    let days = try days(today: today)
    return DateInterval(
      start: days.lowerBound.start(in: calendar),
      end: days.upperBound.adding(days: 1).start(in: calendar))
  }
}

/// Reads a user's mood history and its statistics.
public struct MoodHistoryUseCase: Sendable {
  private let repository: any MoodRepository
  private let clock: any FlowClock
  private let currentUser: @Sendable () -> String?

  public init(
    repository: any MoodRepository, clock: any FlowClock, currentUser: @escaping @Sendable () -> String?
  ) {
    self.repository = repository
    self.clock = clock
    self.currentUser = currentUser
  }

  /// The user's today.
  public var today: MoodDay { MoodDay(clock.now, in: clock.calendar) }

  /// The range's entries, ascending by date.
  public func entries(in range: MoodHistoryRange) async throws(MoodError) -> [MoodEntry] {
    let (userID, interval) = try resolve(range)
    return try await storage { try await repository.entries(userID: userID, in: interval) }
  }

  public func statistics(in range: MoodHistoryRange) async throws(MoodError) -> MoodStatistics {
    let (userID, interval) = try resolve(range)
    let today = today
    return try await storage { try await repository.statistics(userID: userID, in: interval, today: today) }
  }

  /// The range's entries and statistics together, as one read where the store allows.
  public func history(in range: MoodHistoryRange) async throws(MoodError) -> MoodHistory {
    let (userID, interval) = try resolve(range)
    let today = today
    return try await storage { try await repository.history(userID: userID, in: interval, today: today) }
  }

  public func count() async throws(MoodError) -> Int {
    let userID = try signedInUser()
    return try await storage { try await repository.count(userID: userID) }
  }

  public func latest() async throws(MoodError) -> MoodEntry? {
    let userID = try signedInUser()
    return try await storage { try await repository.latest(userID: userID) }
  }

  /// Today's daily mood, which the launch rules look for.
  public func todaysDailyMood() async throws(MoodError) -> MoodEntry? {
    let userID = try signedInUser()
    let today = today
    return try await storage { try await repository.dailyMood(userID: userID, day: today) }
  }

  private func signedInUser() throws(MoodError) -> String {
    guard let userID = currentUser() else { throw .userNotAuthenticated }
    return userID
  }

  private func resolve(_ range: MoodHistoryRange) throws(MoodError) -> (String, DateInterval) {
    let userID = try signedInUser()
    return (userID, try range.interval(today: today, in: clock.calendar))
  }
}

/// Brings the health store's samples into the mood history.
public struct ImportStateOfMindUseCase: Sendable {
  public struct Summary: Sendable, Hashable {
    public var created: Int
    public var updated: Int
    public var unchanged: Int
    /// Samples of entries the user deleted here, removed from the store instead.
    public var removed: Int

    public init(created: Int = 0, updated: Int = 0, unchanged: Int = 0, removed: Int = 0) {
      self.created = created
      self.updated = updated
      self.unchanged = unchanged
      self.removed = removed
    }
  }

  private let store: any StateOfMindStore
  private let save: SaveMoodUseCase
  private let clock: any FlowClock
  private let currentUser: @Sendable () -> String?

  public init(
    store: any StateOfMindStore, save: SaveMoodUseCase, clock: any FlowClock,
    currentUser: @escaping @Sendable () -> String?
  ) {
    self.store = store
    self.save = save
    self.clock = clock
    self.currentUser = currentUser
  }

  /// Imports the samples of the range; samples already known are not imported twice.
  public func importSamples(in range: MoodHistoryRange) async throws(MoodError) -> Summary {
    guard let userID = currentUser() else { throw .userNotAuthenticated }
    let interval = try range.interval(today: MoodDay(clock.now, in: clock.calendar), in: clock.calendar)
    let samples = try await storage { try await store.samples(userID: userID, in: interval) }
    var summary = Summary()
    for sample in samples {
      // A deleted entry's sample outlived it (the store's delete failed): it goes now.
      if try await save.wasDeleted(sample.id) {
        try await storage { try await store.delete(id: sample.id, userID: userID) }
        summary.removed += 1
        continue
      }
      switch try await save.save(sample: sample) {
      case .created: summary.created += 1
      case .updated: summary.updated += 1
      case .unchanged: summary.unchanged += 1
      }
    }
    return summary
  }
}
