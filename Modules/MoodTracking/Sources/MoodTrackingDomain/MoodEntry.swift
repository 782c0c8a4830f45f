import Foundation

public enum MoodKind: String, CaseIterable, Codable, Sendable {
  /// At most one per user and calendar day.
  case dailyMood
  case momentaryEmotion
}

public enum MoodSource: String, CaseIterable, Codable, Sendable {
  case userEntry
  case healthStore
  case backend
}

public enum SyncStatus: String, CaseIterable, Codable, Sendable {
  case pending
  case synced
  case failed
}

/// One logged mood of one user.
public struct MoodEntry: Sendable, Hashable, Codable, Identifiable {
  public var id: UUID
  public var userID: String
  public var date: Date
  /// The user's calendar day of `date` when it was saved; daily moods are unique per day.
  public var day: MoodDay
  public var score: Int
  public var valence: Double
  /// The primary emotion first.
  public var labels: [MoodLabel]
  public var associations: [MoodAssociation]
  public var notes: String?
  public var kind: MoodKind
  public var source: MoodSource
  public var createdAt: Date
  public var updatedAt: Date
  public var backendID: String?
  public var syncStatus: SyncStatus

  public init(
    id: UUID, userID: String, date: Date, day: MoodDay, score: Int, valence: Double,
    labels: [MoodLabel], associations: [MoodAssociation] = [], notes: String? = nil,
    kind: MoodKind = .dailyMood, source: MoodSource = .userEntry, createdAt: Date, updatedAt: Date,
    backendID: String? = nil, syncStatus: SyncStatus = .pending
  ) {
    self.id = id
    self.userID = userID
    self.date = date
    self.day = day
    self.score = score
    self.valence = valence
    self.labels = labels
    self.associations = associations
    self.notes = notes
    self.kind = kind
    self.source = source
    self.createdAt = createdAt
    self.updatedAt = updatedAt
    self.backendID = backendID
    self.syncStatus = syncStatus
  }

  /// The primary emotion.
  public var emotion: MoodLabel? { labels.first }

  public var valenceClass: ValenceClass? { ValenceClass(valence: valence) }

  /// Whether what the person said differs; timestamps and bookkeeping do not count.
  public func hasSameContent(as other: MoodEntry) -> Bool {
    score == other.score && valence == other.valence && labels == other.labels
      && associations == other.associations && notes == other.notes && kind == other.kind
  }
}

/// History figures for a range, plus the current streak.
public struct MoodStatistics: Sendable, Equatable {
  public var count: Int
  /// Mean score; nil when the range is empty.
  public var average: Double?
  public var highest: Int?
  public var lowest: Int?
  /// The entry with the latest date; on a tie, the one saved last.
  public var latest: MoodEntry?
  /// Consecutive calendar days with at least one entry, ending today or yesterday.
  public var streak: Int

  public init(
    count: Int, average: Double?, highest: Int?, lowest: Int?, latest: MoodEntry?, streak: Int
  ) {
    self.count = count
    self.average = average
    self.highest = highest
    self.lowest = lowest
    self.latest = latest
    self.streak = streak
  }

  /// The figures of a range's entries, given ascending by date, then save order (as
  /// `MoodRepository.entries(userID:in:)` lists them), so the latest is the last.
  public init(entries: [MoodEntry], streak: Int) {
    var sum = 0
    var highest: Int?
    var lowest: Int?
    for entry in entries {
      sum += entry.score
      highest = max(highest ?? entry.score, entry.score)
      lowest = min(lowest ?? entry.score, entry.score)
    }
    self.init(
      count: entries.count, average: entries.isEmpty ? nil : Double(sum) / Double(entries.count),
      highest: highest, lowest: lowest, latest: entries.last, streak: streak)
  }

  public static let empty = MoodStatistics(
    count: 0, average: nil, highest: nil, lowest: nil, latest: nil, streak: 0)
}

/// A range's entries and their statistics, read together.
public struct MoodHistory: Sendable, Equatable {
  /// Ascending by date, then save order.
  public var entries: [MoodEntry]
  public var statistics: MoodStatistics

  public init(entries: [MoodEntry], statistics: MoodStatistics) {
    self.entries = entries
    self.statistics = statistics
  }
}
