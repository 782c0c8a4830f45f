import FlowKit
import Foundation
import MoodTrackingDomain
import ProgressContract
import Sync

/// Brings mood scores another device sent to the backend into this one: each becomes
/// an entry with source `backend`, once (deduplicated by backend id and by the
/// client id the sender gave). A row this app could never have sent (a score outside
/// 1…10 or not whole, a date it cannot read) is skipped and reported, never stored:
/// the backend accepts any quantity ≥ 0, and one bad row must not stop every sync.
public struct MoodPull: Sendable {
  public let api: any ProgressAPI
  public let repository: any MoodRepository
  public let clock: any FlowClock
  public static let pageSize = PagedPull.pageSize
  /// The most pages one pull reads (see `PagedPull`).
  public static let maxPages = PagedPull.maxPages

  /// What a pull did.
  public typealias Report = SyncPullReport
  /// One row the pull left out, and why.
  public typealias Skip = SyncPullSkip

  /// A hostile backend can send any number of bad rows; the report keeps this many.
  public static let maxSkipsKept = SyncPullReport.maxSkipsKept

  public init(api: any ProgressAPI, repository: any MoodRepository, clock: any FlowClock) {
    self.api = api
    self.repository = repository
    self.clock = clock
  }

  /// Pulls the pages from `offset` on, as every pull does (`PagedPull`). A permanent
  /// refusal of the list (a 400) throws.
  public func run(userID: String, from offset: Int = 0) async throws -> Report {
    try await PagedPull.run(
      from: offset,
      page: { offset throws(ProgressAPIError) in
        try await api.listProgress(
          ListQuery(type: ProgressType.moodScore, limit: Self.pageSize, offset: offset))
      },
      id: \.id,
      each: { record in
        switch try await entry(for: record, userID: userID) {
        case .new(let entry): try await repository.importFromBackend(entry) ? .imported : .known
        case .known: .known
        case .invalid(let reason): .invalid(reason)
        }
      })
  }

  enum Pulled: Equatable {
    case new(MoodEntry)
    /// One of this device's own rows, or one already pulled.
    case known
    case invalid(String)
  }

  /// The entry for a record this device does not have yet.
  func entry(for record: ProgressRecord, userID: String) async throws -> Pulled {
    guard !record.id.isEmpty else { return .invalid("no backend id") }
    guard record.type == ProgressType.moodScore else {
      return .invalid("type \(record.type), not \(ProgressType.moodScore)")
    }
    guard let score = Self.score(record.quantity) else {
      return .invalid("quantity \(record.quantity) is not a score in \(MoodLimits.scores)")
    }
    let entryID = record.entryID.flatMap(UUID.init(uuidString:))
    if let entryID, try await repository.entry(id: entryID, userID: userID) != nil {
      return .known
    }
    guard let date = Self.date(of: record, calendar: clock.calendar) else {
      return .invalid("date \(record.loggedAt ?? record.date) cannot be read")
    }
    // Any day the backend can hold, up to tomorrow: a day past it is no device's "now",
    // in any time zone.
    guard date >= Self.earliest, date < clock.now.addingTimeInterval(2 * 86_400) else {
      return .invalid("date \(record.loggedAt ?? record.date) is out of range")
    }
    let notes = try? MoodLimits.normalizedNotes(record.notes)
    let day = MoodDay(date, in: clock.calendar)
    // The day's daily mood may already exist here; the backend's then counts as a moment.
    let kind: MoodKind =
      try await repository.dailyMood(userID: userID, day: day) == nil ? .dailyMood : .momentaryEmotion
    let now = clock.now
    return .new(
      MoodEntry(
        id: entryID ?? UUID(), userID: userID, date: date, day: day, score: score,
        valence: try MoodTranslation.valence(forScore: score),
        labels: try MoodTranslation.labels(forScore: score, notes: notes ?? nil), notes: notes ?? nil,
        kind: kind, source: .backend, createdAt: now, updatedAt: now, backendID: record.id,
        syncStatus: .synced
      ))
  }

  /// The score a quantity is, if it is one: whole and in 1…10. `Int(exactly:)` is nil
  /// for NaN, infinities, fractions and anything past Int, so nothing here can trap.
  static func score(_ quantity: Double) -> Int? {
    guard let score = Int(exactly: quantity), MoodLimits.scores.contains(score) else { return nil }
    return score
  }

  /// 0001-01-02 UTC, the first day every time zone has in year 1: the backend keeps
  /// four-digit years, and a mood before 1970 is a mood (backdated, or saved early on
  /// 1970-01-01 east of UTC).
  static let earliest = Date(timeIntervalSince1970: -62_135_596_800 + 86_400)

  /// The instant it was logged, else noon of its day in the user's zone.
  static func date(of record: ProgressRecord, calendar: Calendar) -> Date? {
    if let loggedAt = record.loggedAt {
      if let date = try? Date(loggedAt, strategy: .iso8601) { return date }
      if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(loggedAt) {
        return date
      }
    }
    guard let day = MoodDay(record.date) else { return nil }
    return calendar.date(byAdding: .hour, value: 12, to: day.start(in: calendar))
  }
}
