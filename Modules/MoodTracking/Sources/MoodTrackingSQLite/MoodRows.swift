import FlowKit
import Foundation
import GRDB
import MoodTrackingDomain
import Storage

/// How mood entries map to rows. Labels and associations are kept in order in the
/// entry row, as comma-separated stored names.
enum MoodRows {
  /// What a read selects. Every read is one user's (`WHERE user_id = ?`), so the user id
  /// is not read back: the decoder is given it.
  static let columns = """
    id, date, day, score, valence, labels, associations, notes, kind, source,
    created_at, updated_at, backend_id, sync_status
    """

  /// `save_seq` orders entries of the same instant by creation: an update keeps it, so
  /// an edit never renumbers the entries list's `-2`, `-3`… ids.
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
          backend_id = excluded.backend_id, sync_status = excluded.sync_status
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
  }

  /// Entries a query selects with `columns`, in its order, decoded in one pass over
  /// SQLite's own column buffers (see `MoodRowDecoder`).
  /// `sql` selects `columns` of `userID`'s rows only.
  static func fetchAll(_ db: Database, userID: String, sql: String, arguments: StatementArguments) throws
    -> [MoodEntry]
  {
    try fetchAll(db, userID: userID, sql: sql, arguments: arguments) { $0.entry($1) }
  }

  /// Every row a query of `userID`'s rows selects, each decoded by `decode` in place.
  static func fetchAll<Value>(
    _ db: Database, userID: String, sql: String, arguments: StatementArguments,
    decode: (inout MoodRowDecoder, SQLiteStatement) -> Value
  ) throws -> [Value] {
    let statement = try db.cachedStatement(sql: sql)
    let rows = try Row.fetchCursor(statement, arguments: arguments)
    var decoder = MoodRowDecoder(userID: userID)
    var values: [Value] = []
    while try rows.next() != nil {
      values.append(decode(&decoder, statement.sqliteStatement))
    }
    return values
  }

  /// The first entry a query selects with `columns`.
  static func fetchOne(_ db: Database, userID: String, sql: String, arguments: StatementArguments) throws
    -> MoodEntry?
  {
    let statement = try db.cachedStatement(sql: sql)
    let rows = try Row.fetchCursor(statement, arguments: arguments)
    var decoder = MoodRowDecoder(userID: userID)
    return try rows.next() == nil ? nil : decoder.entry(statement.sqliteStatement)
  }

  static func joined<Value: RawRepresentable<String>>(_ values: [Value]) -> String {
    values.map(\.rawValue).joined(separator: ",")
  }

  /// Names this version does not know (a later HealthKit's) are skipped rather than
  /// failing the whole read; older spellings read as today's (`depressed` as `hopeless`,
  /// `relaxed` as `peaceful`).
  static func labels(_ text: String) -> [MoodLabel] {
    text.split(separator: ",").compactMap { MoodLabel(storedName: String($0)) }
  }

  static func associations(_ text: String) -> [MoodAssociation] {
    text.split(separator: ",").compactMap { MoodAssociation(storedName: String($0)) }
  }
}
