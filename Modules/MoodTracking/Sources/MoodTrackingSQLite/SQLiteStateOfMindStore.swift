import FlowKit
import Foundation
import GRDB
import MoodTrackingDomain
import Storage

/// The local state-of-mind store that stands in for HealthKit off Apple platforms.
/// It lives in the app's database, so opening it repairs what a crash cut short.
public final class SQLiteStateOfMindStore: StateOfMindStore {
  private let writer: any DatabaseWriter

  /// Opening the store writes the samples saves promised and a crash lost (see
  /// `repairOwedSamples`), and removes the samples of entries deleted while their
  /// sample's delete was lost. Best effort, so that opening the app never fails on it:
  /// the notes stay and the next open tries again.
  public init(writer: any DatabaseWriter) {
    self.writer = writer
    _ = try? repairOwedSamples()
    _ = try? removeSamplesOfDeletedEntries()
  }

  /// Removes the samples whose entries the user deleted (the entry went, then the
  /// process died before its sample did); returns how many. The deletions table is
  /// small and each lookup a primary key, so opening stays cheap.
  @discardableResult
  public func removeSamplesOfDeletedEntries() throws -> Int {
    let select = """
      FROM state_of_mind_samples WHERE (user_id, id) IN (SELECT user_id, entry_id FROM mood_entry_deletions)
      """
    // Asked on every launch: one cached statement, consistent by itself, needs no transaction.
    let stale = try writer.unsafeRead { db in
      try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) \(select)")) ?? 0
    }
    guard stale > 0 else { return 0 }
    return try writer.write { db in
      try db.execute(sql: "DELETE \(select)")
      return db.changesCount
    }
  }

  /// Writes the samples owed to entries (saved, then the process died before their
  /// sample); returns how many were owed.
  @discardableResult
  public func repairOwedSamples() throws -> Int {
    let owed = try writer.unsafeRead { db in
      try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM health_samples_owed)")) ?? false
    }
    guard owed else { return 0 }
    return try writer.write { db in try HealthSamplesOwed.repairLocalStore(in: db) }
  }

  public func save(_ sample: StateOfMindSample, userID: String) async throws {
    try await writer.writing { db in
      // Same database as the entries: the sample and the end of its note in one go.
      try HealthSamplesOwed.confirm(sample, userID: userID, in: db)
      try db.cachedStatement(
        sql: """
          INSERT INTO state_of_mind_samples
            (id, user_id, date, kind, valence, labels, associations, updated_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT (user_id, id) DO UPDATE SET
            date = excluded.date, kind = excluded.kind, valence = excluded.valence,
            labels = excluded.labels, associations = excluded.associations,
            updated_at = excluded.updated_at
          """
      ).execute(arguments: [
        sample.id.uuidString, userID, sample.date.timeIntervalSince1970, sample.kind.rawValue,
        sample.valence, MoodRows.joined(sample.labels), MoodRows.joined(sample.associations),
        sample.updatedAt.timeIntervalSince1970,
      ])
    }
  }

  public func samples(userID: String, in interval: DateInterval) async throws -> [StateOfMindSample] {
    try await writer.reading { db in
      try Row.fetchAll(
        db.cachedStatement(
          sql: """
            SELECT id, date, kind, valence, labels, associations, updated_at
            FROM state_of_mind_samples WHERE user_id = ? AND date >= ? AND date < ?
            ORDER BY date
            """),
        arguments: [userID, interval.start.timeIntervalSince1970, interval.end.timeIntervalSince1970]
      ).map { row in
        StateOfMindSample(
          id: UUID(uuidString: row[0]) ?? UUID(), date: Date(timeIntervalSince1970: row[1]),
          kind: MoodKind(rawValue: row[2]) ?? .momentaryEmotion, valence: row[3],
          labels: MoodRows.labels(row[4]), associations: MoodRows.associations(row[5]),
          updatedAt: Date(timeIntervalSince1970: row[6]))
      }
    }
  }

  public func delete(id: UUID, userID: String) async throws {
    try await writer.writing { db in
      try db.cachedStatement(sql: "DELETE FROM state_of_mind_samples WHERE user_id = ? AND id = ?")
        .execute(arguments: [userID, id.uuidString])
    }
  }

  public func count(userID: String) async throws -> Int {
    try await writer.reading { db in
      try Int.fetchOne(
        db.cachedStatement(sql: "SELECT COUNT(*) FROM state_of_mind_samples WHERE user_id = ?"),
        arguments: [userID])!
    }
  }
}
