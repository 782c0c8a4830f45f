import FlowKit
import Foundation

/// Why a mood could not be saved or read; each message says what to fix.
public enum MoodError: Error, Sendable, Equatable, LocalizedError, CustomStringConvertible {
  case invalidScore(Int)
  case notesTooLong(count: Int)
  case invalidValence(Double)
  case invalidDateRange(start: MoodDay, end: MoodDay)
  case invalidDayCount(Int)
  case userNotAuthenticated
  case futureDate(MoodDay)
  case entryNotFound(UUID)
  case storageFailed(String)

  public var message: String {
    switch self {
    case .invalidScore(let score):
      "mood score must be \(MoodLimits.scores.lowerBound)…\(MoodLimits.scores.upperBound), got \(score)"
    case .notesTooLong(let count):
      "notes must be at most \(MoodLimits.maxNotesLength) characters, got \(count); "
        + "remove \(count - MoodLimits.maxNotesLength)"
    case .invalidValence(let valence):
      "valence must be a number from -1 to 1, got \(valence)"
    case .invalidDateRange(let start, let end):
      CalendarDay.invertedRangeMessage(start: start, end: end)
    case .invalidDayCount(let days):
      "a history range must cover at least 1 day, got \(days)"
    case .userNotAuthenticated:
      "no user is signed in; sign in to save or read moods"
    case .futureDate(let day):
      "\(day) is in the future; pick today or an earlier day"
    case .entryNotFound:
      "this mood entry no longer exists (it was deleted); pick another entry"
    case .storageFailed(let reason):
      "the mood could not be stored or read (\(reason)); try again"
    }
  }

  public var description: String { message }
  public var errorDescription: String? { message }
}

/// The validation limits, kept once for every screen and use case.
public enum MoodLimits {
  public static let scores = 1...10
  public static let maxNotesLength = 500
  public static let valences = -1.0...1.0
  public static func validate(score: Int) throws(MoodError) {
    guard scores.contains(score) else { throw .invalidScore(score) }
  }

  public static func validate(valence: Double) throws(MoodError) {
    guard valence.isFinite, valences.contains(valence) else { throw .invalidValence(valence) }
  }

  /// Trims whitespace; empty notes become nil.
  public static func normalizedNotes(_ notes: String?) throws(MoodError) -> String? {
    guard let trimmed = notes?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else {
      return nil
    }
    guard trimmed.count <= maxNotesLength else { throw .notesTooLong(count: trimmed.count) }
    return trimmed
  }
}
