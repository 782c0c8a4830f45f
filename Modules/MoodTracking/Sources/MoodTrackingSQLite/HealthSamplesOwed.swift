import FlowKit
import Foundation
import GRDB
import MoodTrackingDomain
import Storage

/// The `health_samples_owed` table: entries whose health sample a save promised. The
/// note is written in the entry's transaction and goes once a store holds the sample
/// as the entry is, so a process killed between the entry and its sample leaves a
/// note that the next launch repairs (`SQLiteStateOfMindStore` at once; any other
/// store through `SaveMoodUseCase.repairHealthMirror`).
enum HealthSamplesOwed {
  static func note(_ entry: MoodEntry, in db: Database) throws {
    try db.cachedStatement(
      sql: "INSERT INTO health_samples_owed (user_id, entry_id) VALUES (?, ?) ON CONFLICT DO NOTHING"
    ).execute(arguments: [entry.userID, entry.id.uuidString])
  }

  /// Drops the note of the sample's entry if the entry is still what the sample mirrors;
  /// an entry saved again since keeps its note, since its newer sample is still owed.
  static func confirm(_ sample: StateOfMindSample, userID: String, in db: Database) throws {
    try db.cachedStatement(
      sql: """
        DELETE FROM health_samples_owed
        WHERE user_id = ? AND entry_id = ? AND EXISTS (
          SELECT 1 FROM mood_entries
          WHERE id = ? AND user_id = ? AND date = ? AND kind = ? AND valence = ? AND labels = ?
            AND associations = ? AND updated_at = ?)
        """
    ).execute(arguments: [
      userID, sample.id.uuidString, sample.id.uuidString, userID, sample.date.timeIntervalSince1970,
      sample.kind.rawValue, sample.valence, MoodRows.joined(sample.labels),
      MoodRows.joined(sample.associations),
      sample.updatedAt.timeIntervalSince1970,
    ])
  }

  /// Writes every owed sample into the local store's table from the entry as it is
  /// now, unless the table holds a newer change of it, and drops the notes: one
  /// transaction, so it is all or nothing. Returns how many notes there were.
  @discardableResult
  static func repairLocalStore(in db: Database) throws -> Int {
    let owed = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM health_samples_owed") ?? 0
    guard owed > 0 else { return 0 }
    try db.execute(
      sql: """
        INSERT INTO state_of_mind_samples
          (id, user_id, date, kind, valence, labels, associations, updated_at)
        SELECT e.id, e.user_id, e.date, e.kind, e.valence, e.labels, e.associations, e.updated_at
        FROM health_samples_owed o JOIN mood_entries e ON e.id = o.entry_id AND e.user_id = o.user_id
        WHERE true
        ON CONFLICT (user_id, id) DO UPDATE SET
          date = excluded.date, kind = excluded.kind, valence = excluded.valence,
          labels = excluded.labels, associations = excluded.associations,
          updated_at = excluded.updated_at
        WHERE excluded.updated_at >= state_of_mind_samples.updated_at;
        DELETE FROM health_samples_owed;
        """)
    return owed
  }
}
