import FlowKit
import Foundation

/// Where mood entries live. Every call is scoped to one user.
public protocol MoodRepository: Sendable {
  /// Inserts or replaces the entry and enqueues its outbox row in one transaction.
  func save(_ entry: MoodEntry, outbox row: OutboxRow) async throws
  /// Saves like `save(_:outbox:)`; with `awaitingHealthSample`, the same transaction
  /// notes that the health store owes the entry a sample, so a crash before the store's
  /// write (which cannot share this transaction: HealthKit is another database) is
  /// found and repaired on relaunch.
  func save(_ entry: MoodEntry, outbox row: OutboxRow, awaitingHealthSample: Bool) async throws
  /// Entries saved `awaitingHealthSample` whose sample is not yet confirmed.
  func entriesAwaitingHealthSample(userID: String, limit: Int) async throws -> [MoodEntry]
  /// The health store holds these entries' samples as read: their notes go, unless the
  /// entry changed since (a newer save owes a newer sample).
  func confirmHealthSamples(_ entries: [MoodEntry]) async throws
  func entry(id: UUID, userID: String) async throws -> MoodEntry?
  /// Daily moods whose day lies in `days`, ascending by day.
  func dailyMoods(userID: String, days: ClosedRange<MoodDay>) async throws -> [MoodEntry]
  /// Whether the user has a daily mood for `day` (asked once per day a reminder is due).
  func hasDailyMood(userID: String, day: MoodDay) async throws -> Bool
  /// Entries with `interval.start <= date < interval.end`, ascending by date, then save order.
  func entries(userID: String, in interval: DateInterval) async throws -> [MoodEntry]
  /// What the entries list shows of `entries(userID:in:)`, in the same order.
  func summaries(userID: String, in interval: DateInterval) async throws -> [MoodEntrySummary]
  /// Count, average, highest, lowest and latest for the interval, and the streak ending
  /// `today` or the day before.
  func statistics(userID: String, in interval: DateInterval, today: MoodDay) async throws -> MoodStatistics
  /// `entries(userID:in:)` and `statistics(userID:in:today:)` of one moment, in one read.
  func history(userID: String, in interval: DateInterval, today: MoodDay) async throws -> MoodHistory
  func count(userID: String) async throws -> Int
  /// The entry with the latest date; on a tie, the one saved last.
  func latest(userID: String) async throws -> MoodEntry?
  /// Stores an entry the backend sent (source `backend`) without an outbox row, since
  /// the backend has it already, unless the user has an entry with its backend id or
  /// its id, or deleted one. For a deleted one that nothing queued is sending a change
  /// of (its create's answer was lost, so the delete knew no backend id), it queues a
  /// `delete` with the backend's id. Returns whether it was stored.
  func importFromBackend(_ entry: MoodEntry) async throws -> Bool
  /// Removes the entry and enqueues its outbox row (a `delete`) in one transaction, and
  /// remembers the deletion, so neither a pull nor a health import brings it back.
  /// Returns whether the user had the entry.
  func delete(_ entry: MoodEntry, outbox row: OutboxRow) async throws -> Bool
  /// Whether the user deleted the entry with this id.
  func wasDeleted(id: UUID, userID: String) async throws -> Bool
}

extension MoodRepository {
  /// The two reads one after the other, for stores where one read costs no less.
  public func history(userID: String, in interval: DateInterval, today: MoodDay) async throws -> MoodHistory {
    let entries = try await entries(userID: userID, in: interval)
    let statistics = try await statistics(userID: userID, in: interval, today: today)
    return MoodHistory(entries: entries, statistics: statistics)
  }

  /// The whole entries, summed up, for stores where reading less costs no less.
  public func summaries(userID: String, in interval: DateInterval) async throws -> [MoodEntrySummary] {
    try await entries(userID: userID, in: interval).map(MoodEntrySummary.init)
  }

  public func dailyMood(userID: String, day: MoodDay) async throws -> MoodEntry? {
    try await dailyMoods(userID: userID, days: day...day).first
  }

  /// The whole entry, looked for, for stores where reading less costs no less.
  public func hasDailyMood(userID: String, day: MoodDay) async throws -> Bool {
    try await dailyMood(userID: userID, day: day) != nil
  }
}

/// A state-of-mind sample as HealthKit keeps it (`HKStateOfMind`).
public struct StateOfMindSample: Sendable, Hashable, Codable, Identifiable {
  public var id: UUID
  public var date: Date
  public var kind: MoodKind
  public var valence: Double
  public var labels: [MoodLabel]
  public var associations: [MoodAssociation]
  /// When the sample last changed; the most recent change wins a conflict.
  public var updatedAt: Date

  public init(
    id: UUID, date: Date, kind: MoodKind, valence: Double, labels: [MoodLabel],
    associations: [MoodAssociation], updatedAt: Date
  ) {
    self.id = id
    self.date = date
    self.kind = kind
    self.valence = valence
    self.labels = labels
    self.associations = associations
    self.updatedAt = updatedAt
  }

  /// The sample mirroring an entry shares its id, so reading it back finds the entry.
  public init(mirroring entry: MoodEntry) {
    self.init(
      id: entry.id, date: entry.date, kind: entry.kind, valence: entry.valence, labels: entry.labels,
      associations: entry.associations, updatedAt: entry.updatedAt)
  }
}

/// The health store's state-of-mind samples (HealthKit on Apple platforms, a local
/// table here). HealthKit belongs to the device's person; local stores scope by user.
public protocol StateOfMindStore: Sendable {
  /// Inserts or replaces by sample id.
  func save(_ sample: StateOfMindSample, userID: String) async throws
  /// Samples with `interval.start <= date < interval.end`, ascending by date.
  func samples(userID: String, in interval: DateInterval) async throws -> [StateOfMindSample]
  func count(userID: String) async throws -> Int
  /// Removes the sample with this id, if there is one.
  func delete(id: UUID, userID: String) async throws
}
