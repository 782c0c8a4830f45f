import FlowKit
import Foundation
import MoodTracking

/// Brings mood scores another device sent to the backend into this one: each becomes
/// an entry with source `backend`, once (deduplicated by backend id and by the
/// client id the sender gave).
public struct MoodPull: Sendable {
  public let api: any ProgressAPI
  public let repository: any MoodRepository
  public let clock: any FlowClock
  public static let pageSize = 100

  public init(api: any ProgressAPI, repository: any MoodRepository, clock: any FlowClock) {
    self.api = api
    self.repository = repository
    self.clock = clock
  }

  /// Returns how many entries were new.
  public func run(userID: String) async throws -> Int {
    var imported = 0
    var offset = 0
    while true {
      let page = try await api.listProgress(
        ListQuery(type: "mood_score", limit: Self.pageSize, offset: offset))
      for record in page.entries {
        if let entry = try await entry(for: record, userID: userID),
          try await repository.importFromBackend(entry)
        {
          imported += 1
        }
      }
      offset += page.entries.count
      if page.entries.isEmpty || offset >= page.total { return imported }
    }
  }

  /// The entry for a record this device does not have yet; nil for its own rows.
  func entry(for record: ProgressRecord, userID: String) async throws -> MoodEntry? {
    if let entryID = record.entryID.flatMap(UUID.init(uuidString:)),
      try await repository.entry(id: entryID, userID: userID) != nil
    {
      return nil
    }
    guard let date = Self.date(of: record, calendar: clock.calendar) else { return nil }
    let score = min(
      max(Int(record.quantity.rounded()), MoodLimits.scores.lowerBound), MoodLimits.scores.upperBound)
    let notes = try? MoodLimits.normalizedNotes(record.notes)
    let day = MoodDay(date, in: clock.calendar)
    // The day's daily mood may already exist here; the backend's then counts as a moment.
    let kind: MoodKind =
      try await repository.dailyMood(userID: userID, day: day) == nil ? .dailyMood : .momentaryEmotion
    let now = clock.now
    return MoodEntry(
      id: record.entryID.flatMap(UUID.init(uuidString:)) ?? UUID(), userID: userID, date: date, day: day,
      score: score, valence: try MoodTranslation.valence(forScore: score),
      labels: try MoodTranslation.labels(forScore: score, notes: notes ?? nil), notes: notes ?? nil,
      kind: kind, source: .backend, createdAt: now, updatedAt: now, backendID: record.id, syncStatus: .synced)
  }

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
