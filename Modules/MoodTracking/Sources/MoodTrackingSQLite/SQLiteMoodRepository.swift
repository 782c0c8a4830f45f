import FlowKit
import Foundation
import GRDB
import GRDBSQLite
import MoodTrackingDomain
import Storage

/// Mood entries in SQLite. Range reads use the (user, date) index, which alone answers
/// the entries list; statistics add up the hourly figures the triggers keep
/// (`mood_hours`), and the streak reads the per-day table they keep.
public final class SQLiteMoodRepository: MoodRepository {
  private let writer: any DatabaseWriter

  /// `writer` must have been migrated with a schema holding `MoodTrackingStorage.feature`
  /// (`SQLiteSchema.migrator`).
  public init(writer: any DatabaseWriter) {
    self.writer = writer
  }

  public func save(_ entry: MoodEntry, outbox row: OutboxRow) async throws {
    try await save(entry, outbox: row, awaitingHealthSample: false)
  }

  public func save(_ entry: MoodEntry, outbox row: OutboxRow, awaitingHealthSample: Bool) async throws {
    try await writer.writing { db in
      try MoodRows.upsert(entry, in: db)
      try OutboxRows.enqueue(row, in: db)
      if awaitingHealthSample { try HealthSamplesOwed.note(entry, in: db) }
    }
  }

  public func entriesAwaitingHealthSample(userID: String, limit: Int) async throws -> [MoodEntry] {
    try await writer.reading { db in
      try MoodRows.fetchAll(
        db, userID: userID,
        sql: """
          SELECT \(MoodRows.columns) FROM mood_entries
          WHERE id IN (SELECT entry_id FROM health_samples_owed WHERE user_id = ?) AND user_id = ?
          ORDER BY id LIMIT ?
          """, arguments: [userID, userID, max(0, limit)])
    }
  }

  public func confirmHealthSamples(_ entries: [MoodEntry]) async throws {
    guard !entries.isEmpty else { return }
    try await writer.writing { db in
      for entry in entries {
        try HealthSamplesOwed.confirm(StateOfMindSample(mirroring: entry), userID: entry.userID, in: db)
      }
    }
  }

  /// Saves many entries with their outbox rows in one transaction (imports, benchmarks).
  public func save(_ batch: [(entry: MoodEntry, outbox: OutboxRow)]) async throws {
    try await writer.writing { db in
      for item in batch {
        try MoodRows.upsert(item.entry, in: db)
        try OutboxRows.enqueue(item.outbox, in: db)
      }
    }
  }

  public func entry(id: UUID, userID: String) async throws -> MoodEntry? {
    try await writer.reading { db in
      try MoodRows.fetchOne(
        db, userID: userID, sql: "SELECT \(MoodRows.columns) FROM mood_entries WHERE id = ? AND user_id = ?",
        arguments: [id.uuidString, userID])
    }
  }

  public func dailyMoods(userID: String, days: ClosedRange<MoodDay>) async throws -> [MoodEntry] {
    try await writer.reading { db in
      try MoodRows.fetchAll(
        db, userID: userID,
        sql: """
          SELECT \(MoodRows.columns) FROM mood_entries
          WHERE user_id = ? AND kind = 'dailyMood' AND day BETWEEN ? AND ?
          ORDER BY day
          """, arguments: [userID, days.lowerBound.description, days.upperBound.description])
    }
  }

  /// Read from the daily-mood index alone, with no row decoded: a year of reminders
  /// asks this once a day.
  public func hasDailyMood(userID: String, day: MoodDay) async throws -> Bool {
    try await writer.oneStatement { db in
      try Bool.fetchOne(
        db.cachedStatement(
          sql:
            "SELECT EXISTS (SELECT 1 FROM mood_entries WHERE user_id = ? AND kind = 'dailyMood' AND day = ?)"),
        arguments: [userID, day.description]) ?? false
    }
  }

  public func entries(userID: String, in interval: DateInterval) async throws -> [MoodEntry] {
    try await writer.reading { db in
      try Self.entries(db, userID: userID, in: interval)
    }
  }

  /// Read from the (user, date) index alone, which holds every column this selects.
  public func summaries(userID: String, in interval: DateInterval) async throws -> [MoodEntrySummary] {
    try await writer.reading { db in
      try MoodRows.fetchAll(
        db, userID: userID,
        sql: """
          SELECT id, date, created_at, score, labels FROM mood_entries
          WHERE user_id = ? AND date >= ? AND date < ?
          ORDER BY date, save_seq
          """,
        arguments: [userID, interval.start.timeIntervalSince1970, interval.end.timeIntervalSince1970]
      ) { $0.summary($1) }
    }
  }

  /// Entries carrying `label` in the interval, ascending. The (user, date) index narrows
  /// the rows to the interval's; each row's own comma-separated `labels` is searched for
  /// every name the label may be stored under (today's and older spellings).
  public func entries(userID: String, labelled label: MoodLabel, in interval: DateInterval) async throws
    -> [MoodEntry]
  {
    let names = MoodLabel.storedNames.filter { $0.label == label }.map { ",\($0.name)," }
    let matches = names.map { _ in "instr(',' || labels || ',', ?) > 0" }.joined(separator: " OR ")
    let bounds: StatementArguments = [
      userID, interval.start.timeIntervalSince1970, interval.end.timeIntervalSince1970,
    ]
    let arguments = bounds + StatementArguments(names)
    return try await writer.reading { db in
      try MoodRows.fetchAll(
        db, userID: userID,
        sql: """
          SELECT \(MoodRows.columns) FROM mood_entries
          WHERE user_id = ? AND date >= ? AND date < ? AND (\(matches))
          ORDER BY date, save_seq
          """,
        arguments: arguments)
    }
  }

  public func statistics(userID: String, in interval: DateInterval, today: MoodDay) async throws
    -> MoodStatistics
  {
    let bounds: StatementArguments = [
      userID, interval.start.timeIntervalSince1970, interval.end.timeIntervalSince1970,
    ]
    return try await writer.reading { db in
      let figures = try Self.figures(db, userID: userID, in: interval)
      let latest = try MoodRows.fetchOne(
        db, userID: userID,
        sql: """
          SELECT \(MoodRows.columns) FROM mood_entries
          WHERE user_id = ? AND date >= ? AND date < ?
          ORDER BY date DESC, save_seq DESC LIMIT 1
          """, arguments: bounds)
      return MoodStatistics(
        count: figures.entries,
        average: figures.entries == 0 ? nil : Double(figures.total) / Double(figures.entries),
        highest: figures.highest, lowest: figures.lowest,
        latest: latest, streak: try Self.streak(db, userID: userID, today: today))
    }
  }

  /// The listing and its statistics from one read: the figures are computed from the
  /// rows listed (the same as the SQL aggregates), so only the streak is a second query.
  public func history(userID: String, in interval: DateInterval, today: MoodDay) async throws -> MoodHistory {
    try await writer.reading { db in
      let entries = try Self.entries(db, userID: userID, in: interval)
      return MoodHistory(
        entries: entries,
        statistics: MoodStatistics(
          entries: entries, streak: try Self.streak(db, userID: userID, today: today)))
    }
  }

  public func count(userID: String) async throws -> Int {
    try await writer.reading { db in
      try Int.fetchOne(
        db.cachedStatement(sql: "SELECT COUNT(*) FROM mood_entries WHERE user_id = ?"), arguments: [userID])!
    }
  }

  public func latest(userID: String) async throws -> MoodEntry? {
    try await writer.reading { db in
      try MoodRows.fetchOne(
        db, userID: userID,
        sql: """
          SELECT \(MoodRows.columns) FROM mood_entries WHERE user_id = ?
          ORDER BY date DESC, save_seq DESC LIMIT 1
          """, arguments: [userID])
    }
  }

  public func importFromBackend(_ entry: MoodEntry) async throws -> Bool {
    try await writer.writing { db in
      let known = try Bool.fetchOne(
        db.cachedStatement(
          sql: """
            SELECT EXISTS (SELECT 1 FROM mood_entries
              WHERE id = ? OR (user_id = ? AND backend_id IS NOT NULL AND backend_id = ?))
            """), arguments: [entry.id.uuidString, entry.userID, entry.backendID])!
      guard !known else { return false }
      if let deleted = try String.fetchOne(
        db.cachedStatement(
          sql: """
            SELECT entry_id FROM mood_entry_deletions
            WHERE user_id = ? AND (entry_id = ? OR (backend_id IS NOT NULL AND backend_id = ?))
            """), arguments: [entry.userID, entry.id.uuidString, entry.backendID])
      {
        try Self.queueDeleteOfDeleted(entry, entityID: deleted, in: db)
        return false
      }
      try MoodRows.upsert(entry, in: db)
      return true
    }
  }

  private static func entries(_ db: Database, userID: String, in interval: DateInterval) throws -> [MoodEntry]
  {
    try MoodRows.fetchAll(
      db, userID: userID,
      sql: """
        SELECT \(MoodRows.columns) FROM mood_entries
        WHERE user_id = ? AND date >= ? AND date < ?
        ORDER BY date, save_seq
        """, arguments: [userID, interval.start.timeIntervalSince1970, interval.end.timeIntervalSince1970])
  }

  /// The backend still has an entry the user deleted here, and no change of it is
  /// queued: its create reached the backend but the answer was lost, so the delete
  /// found no backend id and dropped the row. A `DELETE` with the id the pull brought
  /// puts that right.
  static func queueDeleteOfDeleted(_ pulled: MoodEntry, entityID: String, in db: Database) throws {
    guard let backendID = pulled.backendID else { return }
    let queued = try Bool.fetchOne(
      db.cachedStatement(
        sql: """
          SELECT EXISTS (SELECT 1 FROM outbox
            WHERE user_id = ? AND entity = 'mood' AND entity_id = ? AND status != 'synced')
          """), arguments: [pulled.userID, entityID])!
    guard !queued else { return }
    var gone = pulled
    gone.id = UUID(uuidString: entityID) ?? pulled.id
    try OutboxRows.enqueue(
      .mood(gone, operation: .delete, id: UUID(), now: pulled.createdAt), in: db)
    try db.cachedStatement(
      sql: "UPDATE mood_entry_deletions SET backend_id = ? WHERE user_id = ? AND entry_id = ?"
    ).execute(arguments: [backendID, pulled.userID, entityID])
  }

  public func delete(_ entry: MoodEntry, outbox row: OutboxRow) async throws -> Bool {
    try await writer.writing { db in
      // A health-sample note goes with the entry (ON DELETE CASCADE); the per-day
      // table follows by trigger.
      guard
        let deleted = try Row.fetchOne(
          db.cachedStatement(
            sql: "DELETE FROM mood_entries WHERE id = ? AND user_id = ? RETURNING backend_id"),
          arguments: [entry.id.uuidString, entry.userID])
      else { return false }
      try db.cachedStatement(
        sql: """
          INSERT INTO mood_entry_deletions (user_id, entry_id, backend_id, deleted_at) VALUES (?, ?, ?, ?)
          ON CONFLICT (user_id, entry_id) DO UPDATE SET backend_id = excluded.backend_id,
            deleted_at = excluded.deleted_at
          """
      ).execute(arguments: [
        entry.userID, entry.id.uuidString, (deleted[0] as String?) ?? entry.backendID,
        row.createdAt.timeIntervalSince1970,
      ])
      try OutboxRows.enqueue(row, in: db)
      return true
    }
  }

  public func wasDeleted(id: UUID, userID: String) async throws -> Bool {
    try await writer.reading { db in
      try Bool.fetchOne(
        db.cachedStatement(
          sql: "SELECT EXISTS (SELECT 1 FROM mood_entry_deletions WHERE user_id = ? AND entry_id = ?)"),
        arguments: [userID, id.uuidString])!
    }
  }

  /// Count, score total, lowest and highest of the entries in `interval`: the whole hours
  /// inside it from `mood_hours`, the part-hours at its ends from the entries.
  static func figures(_ db: Database, userID: String, in interval: DateInterval) throws -> HourFigures {
    let start = interval.start.timeIntervalSince1970
    let end = interval.end.timeIntervalSince1970
    var figures = HourFigures()
    let rows = try db.cachedStatement(
      sql: """
        SELECT count(*), sum(score), min(score), max(score) FROM mood_entries
        WHERE user_id = ? AND date >= ? AND date < ?
        """)
    guard let hours = HourFigures.wholeHours(from: start, to: end) else {
      try figures.add(Row.fetchOne(rows, arguments: [userID, start, end])!)
      return figures
    }
    try figures.add(
      Row.fetchOne(
        db.cachedStatement(
          sql: """
            SELECT sum(entries), sum(total), min(lowest), max(highest) FROM mood_hours
            WHERE user_id = ? AND hour >= ? AND hour < ?
            """), arguments: [userID, hours.lowerBound, hours.upperBound])!)
    try figures.add(Row.fetchOne(rows, arguments: [userID, start, Double(hours.lowerBound) * 3_600])!)
    try figures.add(Row.fetchOne(rows, arguments: [userID, Double(hours.upperBound) * 3_600, end])!)
    return figures
  }

  /// Walks the user's days newest first and stops at the first gap, so a short streak
  /// reads a few rows; the anchor is today, or yesterday when today has no entry yet.
  /// A long streak is thousands of rows, so each day is read from SQLite's column in
  /// place rather than through a value cursor.
  static func streak(_ db: Database, userID: String, today: MoodDay) throws -> Int {
    var expected = today.dayNumber
    var streak = 0
    let statement = try db.cachedStatement(
      sql: """
        SELECT day_number FROM mood_days WHERE user_id = ? AND day_number <= ?
        ORDER BY day_number DESC
        """)
    let rows = try Row.fetchCursor(statement, arguments: [userID, expected])
    while try rows.next() != nil {
      let day = Int(sqlite3_column_int64(statement.sqliteStatement, 0))
      if streak == 0 && day == today.dayNumber - 1 { expected = day }
      guard day == expected else { break }
      streak += 1
      expected -= 1
    }
    return streak
  }
}

/// A range's count, score total, lowest and highest, summed from parts.
struct HourFigures: Equatable {
  var entries = 0
  var total = 0
  var lowest: Int?
  var highest: Int?

  /// Adds a row of `count, sum, min, max` (NULLs when the part holds no entry).
  mutating func add(_ row: Row) {
    let count: Int = row[0] ?? 0
    guard count > 0 else { return }
    entries += count
    total += row[1] ?? 0
    let low: Int? = row[2]
    let high: Int? = row[3]
    if let low { lowest = min(lowest ?? low, low) }
    if let high { highest = max(highest ?? high, high) }
  }

  /// The hours wholly inside `start..<end` (seconds since 1970), whose figures
  /// `mood_hours` holds; nil when there is none. Hour `h` is `h * 3600 ..< (h + 1) * 3600`.
  static func wholeHours(from start: Double, to end: Double) -> Range<Int>? {
    guard start.isFinite, end.isFinite, abs(start) < 1e15, abs(end) < 1e15 else { return nil }
    var first = Int((start / 3_600).rounded(.up))
    if Double(first - 1) * 3_600 >= start { first -= 1 }
    if Double(first) * 3_600 < start { first += 1 }
    var last = Int((end / 3_600).rounded(.down))
    if Double(last + 1) * 3_600 <= end { last += 1 }
    if Double(last) * 3_600 > end { last -= 1 }
    return first < last ? first..<last : nil
  }
}
