import FlowKit
import Foundation

extension OutboxEntity {
  /// A mood entry, sent to the backend by MoodTrackingSync.
  public static let mood = OutboxEntity(rawValue: "mood")
}

/// A mood entry's state as an outbox row keeps it, in the feature's own words: what
/// MoodTrackingSync turns into the backend's body when the row is sent (the wire's
/// names are the contract's, never the feature's).
public struct MoodSyncPayload: Sendable, Hashable, Codable {
  public var entryID: String
  public var score: Int
  /// The instant it was logged, ISO 8601.
  public var loggedAt: String
  public var notes: String?
  /// When the entry last changed, ISO 8601.
  public var updatedAt: String

  public init(entry: MoodEntry) {
    entryID = entry.id.uuidString
    score = entry.score
    loggedAt = Timestamp.string(from: entry.date)
    notes = entry.notes
    updatedAt = Timestamp.string(from: entry.updatedAt)
  }

  public func json() -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Encoding strings and integers cannot fail.
    return String(decoding: try! encoder.encode(self), as: UTF8.self)
  }
}

extension OutboxRow {
  /// The row a mood save writes in the same transaction as the entry.
  public static func mood(
    _ entry: MoodEntry, operation: OutboxOperation, id: UUID, now: Date
  ) -> OutboxRow {
    OutboxRow(
      id: id, userID: entry.userID, entity: .mood, entityID: entry.id.uuidString,
      operation: operation, payload: MoodSyncPayload(entry: entry).json(), backendID: entry.backendID,
      nextAttemptAt: now, createdAt: now)
  }
}
