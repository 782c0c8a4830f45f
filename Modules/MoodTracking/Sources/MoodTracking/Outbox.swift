import FlowKit
import Foundation

extension OutboxEntity {
  /// A mood entry (`POST`/`PUT`/`DELETE /api/v1/progress`).
  public static let mood = OutboxEntity(rawValue: "mood")
}

/// The backend's view of a mood entry (the body of `POST /api/v1/progress`), plus the
/// client's id and revision time the sender turns into an `Idempotency-Key`.
public struct MoodSyncPayload: Sendable, Hashable, Codable {
  public var type: String
  public var quantity: Int
  public var loggedAt: String
  public var notes: String?
  public var entryID: String
  public var updatedAt: String

  enum CodingKeys: String, CodingKey {
    case type, quantity, notes
    case loggedAt = "logged_at"
    case entryID = "entry_id"
    case updatedAt = "updated_at"
  }

  public init(entry: MoodEntry) {
    type = "mood_score"
    quantity = entry.score
    loggedAt = Timestamp.string(from: entry.date)
    notes = entry.notes
    entryID = entry.id.uuidString
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
