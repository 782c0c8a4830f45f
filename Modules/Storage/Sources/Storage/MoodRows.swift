import Foundation
import GRDB
import MoodTracking

/// How mood entries map to rows. Labels and associations are kept in order in the
/// entry row for reading, and in child tables for querying.
enum MoodRows {
  static let columns = """
    id, user_id, date, day, score, valence, labels, associations, notes, kind, source,
    created_at, updated_at, backend_id, sync_status
    """

  static func upsert(_ entry: MoodEntry, legacyID: String? = nil, in db: Database) throws {
    let sequence = try Int.fetchOne(
      db.cachedStatement(sql: "UPDATE mood_save_sequence SET value = value + 1 WHERE id = 1 RETURNING value"))!
    let id = entry.id.uuidString
    try db.cachedStatement(
      sql: """
        INSERT INTO mood_entries (
          id, user_id, date, day, score, valence, labels, associations, notes, kind, source,
          created_at, updated_at, backend_id, sync_status, save_seq, legacy_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET
          date = excluded.date, day = excluded.day, score = excluded.score,
          valence = excluded.valence, labels = excluded.labels,
          associations = excluded.associations, notes = excluded.notes, kind = excluded.kind,
          source = excluded.source, updated_at = excluded.updated_at,
          backend_id = excluded.backend_id, sync_status = excluded.sync_status,
          save_seq = excluded.save_seq
        WHERE mood_entries.user_id = excluded.user_id
        """
    ).execute(arguments: [
      id, entry.userID, entry.date.timeIntervalSince1970, entry.day.description, entry.score,
      entry.valence, joined(entry.labels), joined(entry.associations), entry.notes, entry.kind.rawValue,
      entry.source.rawValue, entry.createdAt.timeIntervalSince1970, entry.updatedAt.timeIntervalSince1970,
      entry.backendID, entry.syncStatus.rawValue, sequence, legacyID,
    ])
    guard db.changesCount > 0 else {
      throw DatabaseError(
        resultCode: .SQLITE_CONSTRAINT, message: "mood entry \(id) belongs to another user")
    }
    try db.cachedStatement(sql: "DELETE FROM mood_entry_labels WHERE entry_id = ?").execute(arguments: [id])
    for (position, label) in entry.labels.enumerated() {
      try db.cachedStatement(
        sql: "INSERT INTO mood_entry_labels (entry_id, position, label) VALUES (?, ?, ?)"
      ).execute(arguments: [id, position, label.rawValue])
    }
    try db.cachedStatement(sql: "DELETE FROM mood_entry_associations WHERE entry_id = ?").execute(arguments: [
      id
    ])
    for association in Set(entry.associations) {
      try db.cachedStatement(sql: "INSERT INTO mood_entry_associations (entry_id, association) VALUES (?, ?)")
        .execute(arguments: [id, association.rawValue])
    }
  }

  /// Entries a query selects with `columns`, in its order.
  static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments) throws -> [MoodEntry] {
    try Array(Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments).map(entry))
  }

  static func entry(_ row: Row) -> MoodEntry {
    MoodEntry(
      id: UUID(uuidString: row[0]) ?? UUID(), userID: row[1],
      date: Date(timeIntervalSince1970: row[2]),
      day: MoodDay(row[3] as String) ?? MoodDay(year: 0, month: 0, day: 0),
      score: row[4], valence: row[5], labels: labels(row[6]), associations: associations(row[7]),
      notes: row[8], kind: MoodKind(rawValue: row[9]) ?? .momentaryEmotion,
      source: MoodSource(rawValue: row[10]) ?? .userEntry,
      createdAt: Date(timeIntervalSince1970: row[11]), updatedAt: Date(timeIntervalSince1970: row[12]),
      backendID: row[13], syncStatus: SyncStatus(rawValue: row[14]) ?? .pending)
  }

  static func joined<Value: RawRepresentable<String>>(_ values: [Value]) -> String {
    values.map(\.rawValue).joined(separator: ",")
  }

  /// Names this version does not know (a later HealthKit's) are skipped rather than
  /// failing the whole read; older spellings read as SPEC §2 says.
  static func labels(_ text: String) -> [MoodLabel] {
    text.split(separator: ",").compactMap { MoodLabel(storedName: String($0)) }
  }

  static func associations(_ text: String) -> [MoodAssociation] {
    text.split(separator: ",").compactMap { MoodAssociation(storedName: String($0)) }
  }
}
