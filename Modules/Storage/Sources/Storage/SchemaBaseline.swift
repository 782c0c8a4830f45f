import GRDB

/// What the migrations make in an empty database, written out: every table, index and
/// trigger in the order they stand in `sqlite_master`, and the rows the migrations
/// leave. A database a run keeps no data in (`WellflowDatabase.scratch()`) starts from
/// it: one transaction instead of twelve migrations that create tables and drop some of
/// them again, each checked and recorded on its own (measured in a script run's
/// process: 1.5 ms instead of 3.2 ms).
///
/// The migrations stay the one definition of the schema; this is their result for an
/// empty database. `SchemaBaselineTests` runs the migrations and compares schema and
/// rows with what this makes, and prints the replacement text when they differ (so an
/// existing migration edited under its old name is caught there). A migrator whose
/// migrations are not exactly `migrations` is never answered from here:
/// `freshDatabase(migrator:)` runs it instead, so a new migration is never skipped,
/// only slower until the baseline is written out again.
enum SchemaBaseline {
  /// The migrations whose result `sql` is, in the order they run.
  static let migrations = [
    "v1_progressEntries", "v2_moodEntries", "v3_healthSamplesOwed", "v4_moodEntryDeletions", "keyValues",
    "journalEntries", "journalEntriesFinished", "moodEntriesByBackendID", "outboxWithoutSyncedRows",
    "moodEntriesWithoutChildTables", "moodEntriesListedFromIndex", "moodHours", "deliveredNotifications",
  ]

  /// Whether `freshDatabase(migrator:)` answers `migrator` from the baseline.
  static func applies(to migrator: DatabaseMigrator) -> Bool {
    migrator.migrations == migrations
  }

  /// A new in-memory database holding what `migrator` makes in an empty one.
  static func freshDatabase(migrator: DatabaseMigrator) throws -> DatabaseQueue {
    let queue = try DatabaseQueue()
    if applies(to: migrator) {
      try queue.write { db in try db.execute(sql: sql) }
    } else {
      try migrator.migrate(queue)
    }
    return queue
  }

  static let sql = #"""
    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
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
    CREATE UNIQUE INDEX mood_entries_one_daily_mood ON mood_entries(user_id, day)
      WHERE kind = 'dailyMood';
    CREATE UNIQUE INDEX mood_entries_by_legacy_id ON mood_entries(legacy_id)
      WHERE legacy_id IS NOT NULL;
    CREATE TABLE mood_save_sequence (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      value INTEGER NOT NULL
    );
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
    CREATE TABLE outbox (
      id TEXT PRIMARY KEY NOT NULL,
      user_id TEXT NOT NULL,
      entity TEXT NOT NULL,
      entity_id TEXT NOT NULL,
      operation TEXT NOT NULL,
      payload TEXT NOT NULL,
      revision INTEGER NOT NULL,
      backend_id TEXT,
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at REAL NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('pending', 'synced', 'failed')),
      last_error TEXT,
      created_at REAL NOT NULL
    );
    CREATE UNIQUE INDEX outbox_unsent_entity ON outbox(user_id, entity, entity_id)
      WHERE status != 'synced';
    CREATE INDEX outbox_by_user_status ON outbox(user_id, status, created_at);
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
    CREATE TABLE health_samples_owed (
      user_id TEXT NOT NULL,
      entry_id TEXT NOT NULL REFERENCES mood_entries(id) ON DELETE CASCADE,
      PRIMARY KEY (user_id, entry_id)
    ) WITHOUT ROWID;
    CREATE INDEX health_samples_owed_by_entry ON health_samples_owed(entry_id);
    CREATE TABLE mood_entry_deletions (
      user_id TEXT NOT NULL,
      entry_id TEXT NOT NULL,
      backend_id TEXT,
      deleted_at REAL NOT NULL,
      PRIMARY KEY (user_id, entry_id)
    ) WITHOUT ROWID;
    CREATE INDEX mood_entry_deletions_by_backend_id ON mood_entry_deletions(user_id, backend_id)
      WHERE backend_id IS NOT NULL;
    CREATE TABLE "key_values" ("user_id" TEXT NOT NULL, "key" TEXT NOT NULL, "value" TEXT NOT NULL, PRIMARY KEY ("user_id", "key"));
    CREATE TABLE journal_entries (
      id TEXT PRIMARY KEY NOT NULL,
      user_id TEXT NOT NULL,
      created_at REAL NOT NULL,
      primary_id INTEGER NOT NULL,
      secondary_id INTEGER,
      strategy_id INTEGER,
      initiated_by TEXT NOT NULL,
      save_order INTEGER NOT NULL
    , finished INTEGER NOT NULL DEFAULT 0);
    CREATE INDEX journal_entries_by_user ON journal_entries(user_id, created_at, save_order);
    CREATE INDEX mood_entries_by_backend_id ON mood_entries(user_id, backend_id)
      WHERE backend_id IS NOT NULL;
    CREATE INDEX mood_entries_by_user_date
      ON mood_entries(user_id, date, save_seq, score, created_at, id, labels);
    CREATE TABLE mood_hours (
      user_id TEXT NOT NULL,
      hour INTEGER NOT NULL,
      entries INTEGER NOT NULL,
      total INTEGER NOT NULL,
      lowest INTEGER NOT NULL,
      highest INTEGER NOT NULL,
      PRIMARY KEY (user_id, hour)
    ) WITHOUT ROWID;
    CREATE TRIGGER mood_hours_after_insert AFTER INSERT ON mood_entries BEGIN
      INSERT INTO mood_hours (user_id, hour, entries, total, lowest, highest)
      VALUES (NEW.user_id, (CAST(NEW.date / 3600 AS INTEGER) - (CAST(NEW.date / 3600 AS INTEGER) * 3600 > NEW.date) + ((CAST(NEW.date / 3600 AS INTEGER) + 1) * 3600 <= NEW.date)), 1, NEW.score, NEW.score, NEW.score)
      ON CONFLICT (user_id, hour) DO UPDATE SET entries = entries + 1, total = total + excluded.total,
        lowest = min(lowest, excluded.lowest), highest = max(highest, excluded.highest);
    END;
    CREATE TRIGGER mood_hours_after_delete AFTER DELETE ON mood_entries BEGIN
      UPDATE mood_hours SET entries = entries - 1, total = total - OLD.score,
        lowest = coalesce((SELECT min(score) FROM mood_entries WHERE user_id = OLD.user_id
        AND date >= (CAST(OLD.date / 3600 AS INTEGER) - (CAST(OLD.date / 3600 AS INTEGER) * 3600 > OLD.date) + ((CAST(OLD.date / 3600 AS INTEGER) + 1) * 3600 <= OLD.date)) * 3600 AND date < ((CAST(OLD.date / 3600 AS INTEGER) - (CAST(OLD.date / 3600 AS INTEGER) * 3600 > OLD.date) + ((CAST(OLD.date / 3600 AS INTEGER) + 1) * 3600 <= OLD.date)) + 1) * 3600), 0),
        highest = coalesce((SELECT max(score) FROM mood_entries WHERE user_id = OLD.user_id
        AND date >= (CAST(OLD.date / 3600 AS INTEGER) - (CAST(OLD.date / 3600 AS INTEGER) * 3600 > OLD.date) + ((CAST(OLD.date / 3600 AS INTEGER) + 1) * 3600 <= OLD.date)) * 3600 AND date < ((CAST(OLD.date / 3600 AS INTEGER) - (CAST(OLD.date / 3600 AS INTEGER) * 3600 > OLD.date) + ((CAST(OLD.date / 3600 AS INTEGER) + 1) * 3600 <= OLD.date)) + 1) * 3600), 0)
      WHERE user_id = OLD.user_id AND hour = (CAST(OLD.date / 3600 AS INTEGER) - (CAST(OLD.date / 3600 AS INTEGER) * 3600 > OLD.date) + ((CAST(OLD.date / 3600 AS INTEGER) + 1) * 3600 <= OLD.date));
    DELETE FROM mood_hours WHERE user_id = OLD.user_id AND hour = (CAST(OLD.date / 3600 AS INTEGER) - (CAST(OLD.date / 3600 AS INTEGER) * 3600 > OLD.date) + ((CAST(OLD.date / 3600 AS INTEGER) + 1) * 3600 <= OLD.date)) AND entries <= 0;
    END;
    CREATE TRIGGER mood_hours_after_change AFTER UPDATE OF user_id, date, score ON mood_entries
      WHEN OLD.user_id IS NOT NEW.user_id OR OLD.date IS NOT NEW.date OR OLD.score IS NOT NEW.score
    BEGIN
      UPDATE mood_hours SET entries = entries - 1, total = total - OLD.score,
        lowest = coalesce((SELECT min(score) FROM mood_entries WHERE user_id = OLD.user_id
        AND date >= (CAST(OLD.date / 3600 AS INTEGER) - (CAST(OLD.date / 3600 AS INTEGER) * 3600 > OLD.date) + ((CAST(OLD.date / 3600 AS INTEGER) + 1) * 3600 <= OLD.date)) * 3600 AND date < ((CAST(OLD.date / 3600 AS INTEGER) - (CAST(OLD.date / 3600 AS INTEGER) * 3600 > OLD.date) + ((CAST(OLD.date / 3600 AS INTEGER) + 1) * 3600 <= OLD.date)) + 1) * 3600), 0),
        highest = coalesce((SELECT max(score) FROM mood_entries WHERE user_id = OLD.user_id
        AND date >= (CAST(OLD.date / 3600 AS INTEGER) - (CAST(OLD.date / 3600 AS INTEGER) * 3600 > OLD.date) + ((CAST(OLD.date / 3600 AS INTEGER) + 1) * 3600 <= OLD.date)) * 3600 AND date < ((CAST(OLD.date / 3600 AS INTEGER) - (CAST(OLD.date / 3600 AS INTEGER) * 3600 > OLD.date) + ((CAST(OLD.date / 3600 AS INTEGER) + 1) * 3600 <= OLD.date)) + 1) * 3600), 0)
      WHERE user_id = OLD.user_id AND hour = (CAST(OLD.date / 3600 AS INTEGER) - (CAST(OLD.date / 3600 AS INTEGER) * 3600 > OLD.date) + ((CAST(OLD.date / 3600 AS INTEGER) + 1) * 3600 <= OLD.date));
    DELETE FROM mood_hours WHERE user_id = OLD.user_id AND hour = (CAST(OLD.date / 3600 AS INTEGER) - (CAST(OLD.date / 3600 AS INTEGER) * 3600 > OLD.date) + ((CAST(OLD.date / 3600 AS INTEGER) + 1) * 3600 <= OLD.date)) AND entries <= 0;
      INSERT INTO mood_hours (user_id, hour, entries, total, lowest, highest)
      VALUES (NEW.user_id, (CAST(NEW.date / 3600 AS INTEGER) - (CAST(NEW.date / 3600 AS INTEGER) * 3600 > NEW.date) + ((CAST(NEW.date / 3600 AS INTEGER) + 1) * 3600 <= NEW.date)), 1, NEW.score, NEW.score, NEW.score)
      ON CONFLICT (user_id, hour) DO UPDATE SET entries = entries + 1, total = total + excluded.total,
        lowest = min(lowest, excluded.lowest), highest = max(highest, excluded.highest);
    END;
    CREATE TABLE delivered_notifications (
      seq INTEGER PRIMARY KEY,
      user_id TEXT NOT NULL,
      id TEXT NOT NULL,
      date REAL NOT NULL,
      opened INTEGER NOT NULL
    );
    CREATE INDEX delivered_notifications_by_user ON delivered_notifications(user_id, opened);
    INSERT INTO grdb_migrations VALUES ('v1_progressEntries');
    INSERT INTO grdb_migrations VALUES ('v2_moodEntries');
    INSERT INTO grdb_migrations VALUES ('v3_healthSamplesOwed');
    INSERT INTO grdb_migrations VALUES ('v4_moodEntryDeletions');
    INSERT INTO grdb_migrations VALUES ('keyValues');
    INSERT INTO grdb_migrations VALUES ('journalEntries');
    INSERT INTO grdb_migrations VALUES ('journalEntriesFinished');
    INSERT INTO grdb_migrations VALUES ('moodEntriesByBackendID');
    INSERT INTO grdb_migrations VALUES ('outboxWithoutSyncedRows');
    INSERT INTO grdb_migrations VALUES ('moodEntriesWithoutChildTables');
    INSERT INTO grdb_migrations VALUES ('moodEntriesListedFromIndex');
    INSERT INTO grdb_migrations VALUES ('moodHours');
    INSERT INTO grdb_migrations VALUES ('deliveredNotifications');
    INSERT INTO mood_save_sequence VALUES (1, 0);
    """#
}
