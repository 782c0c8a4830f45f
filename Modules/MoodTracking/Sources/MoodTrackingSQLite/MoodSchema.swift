import FlowKit
import Foundation
import GRDB
import MoodTrackingDomain
import Storage

/// The mood tables and their migrations (`migrations`, in order).
public enum MoodSchema {
  public static let progressEntriesMigration = "v1_progressEntries"
  public static let moodEntriesMigration = "v2_moodEntries"
  public static let healthSamplesOwedMigration = "v3_healthSamplesOwed"
  public static let moodEntryDeletionsMigration = "v4_moodEntryDeletions"

  public static let moodEntriesByBackendIDMigration = "moodEntriesByBackendID"

  /// Every mood migration, in the order they run. The migration context's
  /// `legacyTimeZone` places legacy progress rows, which stored instants, on the user's
  /// calendar days; the device's zone is the best guess for data written on it.
  public static let migrations: [SQLiteMigration] = [
    SQLiteMigration(progressEntriesMigration) { db, _ in
      // The table of the original mood tracking implementation, kept as it was.
      try db.execute(
        sql: """
          CREATE TABLE progress_entries (
            id TEXT PRIMARY KEY NOT NULL,
            user_id TEXT NOT NULL,
            type TEXT NOT NULL,
            quantity REAL NOT NULL,
            date DATETIME NOT NULL,
            notes TEXT,
            sync_status TEXT NOT NULL DEFAULT 'pending',
            created_at DATETIME NOT NULL,
            updated_at DATETIME NOT NULL
          );
          CREATE INDEX progress_entries_by_user_type_date ON progress_entries(user_id, type, date);
          """)
    },
    SQLiteMigration(moodEntriesMigration) { db, context in
      try createMoodTables(db)
      try convertLegacyMoodScores(db, timeZone: context.legacyTimeZone)
    },
    SQLiteMigration(healthSamplesOwedMigration) { db, _ in
      // Entries whose health sample a save promised and no store has confirmed yet,
      // noted in the entry's transaction so a crash before the sample is repaired
      // (see `HealthSamplesOwed`). Databases migrated before it run it after the app's
      // later migrations; it depends on nothing but the mood tables.
      // User entries saved before it whose sample is missing here were lost that way:
      // they are noted too, so the first launch repairs them.
      try db.execute(
        sql: """
          CREATE TABLE health_samples_owed (
            user_id TEXT NOT NULL,
            entry_id TEXT NOT NULL REFERENCES mood_entries(id) ON DELETE CASCADE,
            PRIMARY KEY (user_id, entry_id)
          ) WITHOUT ROWID;
          CREATE INDEX health_samples_owed_by_entry ON health_samples_owed(entry_id);
          INSERT INTO health_samples_owed (user_id, entry_id)
            SELECT e.user_id, e.id FROM mood_entries e
            WHERE e.source = 'userEntry' AND NOT EXISTS (
              SELECT 1 FROM state_of_mind_samples s WHERE s.user_id = e.user_id AND s.id = e.id);
          """)
    },
    SQLiteMigration(moodEntryDeletionsMigration) { db, _ in
      // Entries the user deleted, by their id and the backend's, so that neither a pull
      // (the backend may still have the row until the DELETE is sent) nor a health
      // import (a sample the store failed to delete) brings one back.
      try db.execute(
        sql: """
          CREATE TABLE mood_entry_deletions (
            user_id TEXT NOT NULL,
            entry_id TEXT NOT NULL,
            backend_id TEXT,
            deleted_at REAL NOT NULL,
            PRIMARY KEY (user_id, entry_id)
          ) WITHOUT ROWID;
          CREATE INDEX mood_entry_deletions_by_backend_id ON mood_entry_deletions(user_id, backend_id)
            WHERE backend_id IS NOT NULL;
          """)
    },
    SQLiteMigration(moodEntriesByBackendIDMigration) { db, _ in
      // Pulling from the backend looks entries up by the backend's id.
      try db.execute(
        sql: """
          CREATE INDEX mood_entries_by_backend_id ON mood_entries(user_id, backend_id)
            WHERE backend_id IS NOT NULL
          """)
    },
    SQLiteMigration(moodEntriesWithoutChildTablesMigration) { db, _ in
      // Labels and associations were also kept one row each in two child tables, each
      // with an index by value: four copies of the entry's id, about half of what a
      // saved entry took on disk, for one query (entries by label) that reads the
      // entry's own `labels` column just as well. The entry rows keep every label and
      // association, so nothing is lost; the freed pages go back to the file system
      // (a no-op in files made before incremental vacuum was set).
      try db.execute(
        sql: """
          DROP TABLE mood_entry_labels;
          DROP TABLE mood_entry_associations;
          PRAGMA incremental_vacuum;
          """)
    },
    SQLiteMigration(moodEntriesListedFromIndexMigration) { db, _ in
      // The entries list reads id, date, creation time, score and labels of a range
      // (`SQLiteMoodRepository.summaries`). With them in the (user, date) index it
      // reads the index alone, in order, instead of the whole row of every entry: a
      // month of a busy user went from 5.8 to 1.8 ms inside SQLite. The index keeps its
      // name and its first columns, so every read it served it serves as before.
      try db.execute(
        sql: """
          DROP INDEX mood_entries_by_user_date;
          CREATE INDEX mood_entries_by_user_date
            ON mood_entries(user_id, date, save_seq, score, created_at, id, labels);
          """)
    },
    SQLiteMigration(moodHoursMigration) { db, _ in
      // Each user's count, score total, lowest and highest per hour, kept by triggers, so
      // a range's statistics read one row an hour (and the entries of the part-hours at
      // its ends) instead of every entry: a month of a user who logs 270 moods a day
      // is 720 rows instead of 8,190.
      try db.execute(
        sql: """
          CREATE TABLE mood_hours (
            user_id TEXT NOT NULL,
            hour INTEGER NOT NULL,
            entries INTEGER NOT NULL,
            total INTEGER NOT NULL,
            lowest INTEGER NOT NULL,
            highest INTEGER NOT NULL,
            PRIMARY KEY (user_id, hour)
          ) WITHOUT ROWID;
          INSERT INTO mood_hours (user_id, hour, entries, total, lowest, highest)
            SELECT user_id, \(hour(of: "date")) AS hour, count(*), sum(score), min(score), max(score)
            FROM mood_entries GROUP BY user_id, hour;
          CREATE TRIGGER mood_hours_after_insert AFTER INSERT ON mood_entries BEGIN
            \(hourFigures(adding: "NEW"))
          END;
          CREATE TRIGGER mood_hours_after_delete AFTER DELETE ON mood_entries BEGIN
            \(hourFigures(removing: "OLD"))
          END;
          CREATE TRIGGER mood_hours_after_change AFTER UPDATE OF user_id, date, score ON mood_entries
            WHEN OLD.user_id IS NOT NEW.user_id OR OLD.date IS NOT NEW.date OR OLD.score IS NOT NEW.score
          BEGIN
            \(hourFigures(removing: "OLD"))
            \(hourFigures(adding: "NEW"))
          END;
          """)
    },
  ]

  public static let moodEntriesWithoutChildTablesMigration = "moodEntriesWithoutChildTables"
  public static let moodEntriesListedFromIndexMigration = "moodEntriesListedFromIndex"
  public static let moodHoursMigration = "moodHours"

  /// The hour (of UTC, from 1970) an entry's `date` falls in, exactly: the division's
  /// truncation is corrected by comparing whole multiples of 3,600 with the date, so a
  /// date a hair before an hour's start is never counted in that hour.
  static func hour(of date: String) -> String {
    let truncated = "CAST(\(date) / 3600 AS INTEGER)"
    return "(\(truncated) - (\(truncated) * 3600 > \(date)) + ((\(truncated) + 1) * 3600 <= \(date)))"
  }

  /// Statements that take entry `row` (`NEW` or `OLD`) into its hour's figures or out of them.
  static func hourFigures(adding row: String) -> String {
    """
    INSERT INTO mood_hours (user_id, hour, entries, total, lowest, highest)
      VALUES (\(row).user_id, \(hour(of: "\(row).date")), 1, \(row).score, \(row).score, \(row).score)
      ON CONFLICT (user_id, hour) DO UPDATE SET entries = entries + 1, total = total + excluded.total,
        lowest = min(lowest, excluded.lowest), highest = max(highest, excluded.highest);
    """
  }

  /// Takes `row` out after it left `mood_entries` (or moved): the lowest and highest are
  /// read again from the hour's remaining entries, and an hour left empty goes.
  static func hourFigures(removing row: String) -> String {
    let hour = hour(of: "\(row).date")
    let entries = """
      FROM mood_entries WHERE user_id = \(row).user_id
          AND date >= \(hour) * 3600 AND date < (\(hour) + 1) * 3600
      """
    return """
      UPDATE mood_hours SET entries = entries - 1, total = total - \(row).score,
          lowest = coalesce((SELECT min(score) \(entries)), 0),
          highest = coalesce((SELECT max(score) \(entries)), 0)
        WHERE user_id = \(row).user_id AND hour = \(hour);
      DELETE FROM mood_hours WHERE user_id = \(row).user_id AND hour = \(hour) AND entries <= 0;
      """
  }

  private static func createMoodTables(_ db: Database) throws {
    try db.execute(
      sql: """
        CREATE TABLE mood_entries (
          id TEXT PRIMARY KEY NOT NULL,
          user_id TEXT NOT NULL,
          date REAL NOT NULL,
          day TEXT NOT NULL,
          score INTEGER NOT NULL CHECK (score BETWEEN 1 AND 10),
          valence REAL NOT NULL CHECK (valence BETWEEN -1 AND 1),
          labels TEXT NOT NULL,
          associations TEXT NOT NULL,
          notes TEXT,
          kind TEXT NOT NULL CHECK (kind IN ('dailyMood', 'momentaryEmotion')),
          source TEXT NOT NULL,
          created_at REAL NOT NULL,
          updated_at REAL NOT NULL,
          backend_id TEXT,
          sync_status TEXT NOT NULL,
          save_seq INTEGER NOT NULL,
          legacy_id TEXT
        );
        -- Covers range reads, ordering by date then save order, and the score aggregates.
        CREATE INDEX mood_entries_by_user_date ON mood_entries(user_id, date, save_seq, score);
        CREATE UNIQUE INDEX mood_entries_one_daily_mood ON mood_entries(user_id, day)
          WHERE kind = 'dailyMood';
        CREATE UNIQUE INDEX mood_entries_by_legacy_id ON mood_entries(legacy_id)
          WHERE legacy_id IS NOT NULL;

        -- Labels in order (the emotion first) so entries can be queried by label.
        CREATE TABLE mood_entry_labels (
          entry_id TEXT NOT NULL REFERENCES mood_entries(id) ON DELETE CASCADE,
          position INTEGER NOT NULL,
          label TEXT NOT NULL,
          PRIMARY KEY (entry_id, position)
        ) WITHOUT ROWID;
        CREATE INDEX mood_entry_labels_by_label ON mood_entry_labels(label, entry_id);

        CREATE TABLE mood_entry_associations (
          entry_id TEXT NOT NULL REFERENCES mood_entries(id) ON DELETE CASCADE,
          association TEXT NOT NULL,
          PRIMARY KEY (entry_id, association)
        ) WITHOUT ROWID;
        CREATE INDEX mood_entry_associations_by_association
          ON mood_entry_associations(association, entry_id);

        -- A save-order counter: the latest entry on a date tie is the one saved last.
        CREATE TABLE mood_save_sequence (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          value INTEGER NOT NULL
        );
        INSERT INTO mood_save_sequence (id, value) VALUES (1, 0);

        -- Days with entries (as days since 1970), kept by triggers, so a streak reads
        -- days rather than entries.
        CREATE TABLE mood_days (
          user_id TEXT NOT NULL,
          day_number INTEGER NOT NULL,
          entries INTEGER NOT NULL,
          PRIMARY KEY (user_id, day_number)
        ) WITHOUT ROWID;
        CREATE TRIGGER mood_days_after_insert AFTER INSERT ON mood_entries BEGIN
          INSERT INTO mood_days (user_id, day_number, entries)
            VALUES (NEW.user_id, CAST(julianday(NEW.day) - 2440587.5 AS INTEGER), 1)
            ON CONFLICT (user_id, day_number) DO UPDATE SET entries = entries + 1;
        END;
        CREATE TRIGGER mood_days_after_delete AFTER DELETE ON mood_entries BEGIN
          UPDATE mood_days SET entries = entries - 1
            WHERE user_id = OLD.user_id AND day_number = CAST(julianday(OLD.day) - 2440587.5 AS INTEGER);
          DELETE FROM mood_days WHERE user_id = OLD.user_id AND entries <= 0;
        END;
        CREATE TRIGGER mood_days_after_move AFTER UPDATE OF user_id, day ON mood_entries
          WHEN OLD.user_id IS NOT NEW.user_id OR OLD.day IS NOT NEW.day
        BEGIN
          UPDATE mood_days SET entries = entries - 1
            WHERE user_id = OLD.user_id AND day_number = CAST(julianday(OLD.day) - 2440587.5 AS INTEGER);
          DELETE FROM mood_days WHERE user_id = OLD.user_id AND entries <= 0;
          INSERT INTO mood_days (user_id, day_number, entries)
            VALUES (NEW.user_id, CAST(julianday(NEW.day) - 2440587.5 AS INTEGER), 1)
            ON CONFLICT (user_id, day_number) DO UPDATE SET entries = entries + 1;
        END;

        -- The outbox, made here until then, is the shared migration `outbox`'s now: it
        -- runs first, and files made before hold it as it was made here.

        CREATE TABLE state_of_mind_samples (
          id TEXT NOT NULL,
          user_id TEXT NOT NULL,
          date REAL NOT NULL,
          kind TEXT NOT NULL,
          valence REAL NOT NULL,
          labels TEXT NOT NULL,
          associations TEXT NOT NULL,
          updated_at REAL NOT NULL,
          PRIMARY KEY (user_id, id)
        ) WITHOUT ROWID;
        CREATE INDEX state_of_mind_samples_by_user_date ON state_of_mind_samples(user_id, date);
        """)
  }

  /// Turns legacy `mood_score` progress rows into mood entries: valence and the score's
  /// default labels filled in, notes and sync state kept, the progress rows left as
  /// they were. Rows already converted are skipped, so running it again changes nothing.
  /// The last row of a day becomes that day's daily mood, any others momentary emotions.
  /// Returns how many entries it created.
  @discardableResult
  public static func convertLegacyMoodScores(_ db: Database, timeZone: TimeZone) throws -> Int {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let rows = try Row.fetchAll(
      db,
      sql: """
        SELECT p.id, p.user_id, p.quantity, p.date, p.notes, p.sync_status, p.created_at, p.updated_at
        FROM progress_entries p
        WHERE p.type = 'mood_score'
          AND NOT EXISTS (SELECT 1 FROM mood_entries m WHERE m.legacy_id = p.id)
        ORDER BY p.user_id, p.date DESC, p.created_at DESC, p.rowid DESC
        """)
    var created = 0
    for row in rows {
      let legacyID: String = row["id"]
      let userID: String = row["user_id"]
      let (date, day) = legacyMoment(row["date"], calendar: calendar)
      // Scores were meant to be 1…10 and are clamped there; a quantity that is no
      // number (NaN, text, an infinity) is left unconverted rather than trapping the
      // launch, as `Int(_:)` of it would.
      guard let score = legacyScore(row["quantity"]) else { continue }
      let rawNotes: String? = row["notes"]
      let notes: String?
      do {
        notes = try MoodLimits.normalizedNotes(rawNotes)
      } catch {
        // Notes written before today's limit are kept whole.
        notes = rawNotes
      }
      let hasDailyMood =
        try Bool.fetchOne(
          db,
          sql: """
            SELECT EXISTS (SELECT 1 FROM mood_entries
              WHERE user_id = ? AND day = ? AND kind = 'dailyMood')
            """, arguments: [userID, day.description]) ?? false
      let syncStatus = SyncStatus(rawValue: row["sync_status"] ?? "") ?? .pending
      let createdAt = (row["created_at"] as Date?) ?? date
      let entry = MoodEntry(
        id: UUID(uuidString: legacyID) ?? UUID(), userID: userID, date: date, day: day, score: score,
        valence: try MoodTranslation.valence(forScore: score),
        labels: try MoodTranslation.labels(forScore: score, notes: notes), notes: notes,
        kind: hasDailyMood ? .momentaryEmotion : .dailyMood, source: .userEntry, createdAt: createdAt,
        updatedAt: (row["updated_at"] as Date?) ?? createdAt,
        // The original implementation kept the backend's id as the row id once synced.
        backendID: syncStatus == .synced ? legacyID : nil, syncStatus: syncStatus)
      try MoodRows.upsert(entry, legacyID: legacyID, in: db)
      if syncStatus != .synced {
        try OutboxRows.enqueue(.mood(entry, operation: .create, id: UUID(), now: entry.updatedAt), in: db)
      }
      created += 1
    }
    return created
  }

  /// The 1…10 score of a legacy quantity; nil when it is not a finite number.
  static func legacyScore(_ value: DatabaseValue) -> Int? {
    guard let quantity = Double.fromDatabaseValue(value), quantity.isFinite else { return nil }
    // Clamped before converting, so the conversion cannot overflow.
    return Int(min(max(quantity, 1), 10).rounded())
  }

  /// A legacy date is either a day (`YYYY-MM-DD`, already the user's day) or an instant.
  private static func legacyMoment(_ value: DatabaseValue, calendar: Calendar) -> (Date, MoodDay) {
    if let text = String.fromDatabaseValue(value), let day = MoodDay(text) {
      return (day.start(in: calendar), day)
    }
    let date = Date.fromDatabaseValue(value) ?? Date(timeIntervalSince1970: 0)
    return (date, MoodDay(date, in: calendar))
  }
}
