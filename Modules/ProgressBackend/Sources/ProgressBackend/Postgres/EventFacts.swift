/// What `wellflow report postgres://…` reads, kept beside the `events` table by the
/// database itself: one narrow row per event in `event_facts` (its user as a number of
/// `event_users`, its name, flow, screen, a cancellation's reason, an exposure's experiment,
/// variation and `variation_id`, and its stamp as a UTC day and microseconds), written by
/// triggers on `events`. Every writer of events (`run --events`, `serve`'s endpoint, an
/// `INSERT` by hand) fills it in the same statement, so the report reads about a third of
/// the bytes and parses no JSON or stamp text. Mean metrics' and covariates' fields are
/// still read from `events.data` (their names are the experiment file's).
///
/// A database whose events were written before this existed gains it, filled from its
/// events, the first time `run --events`, `serve` or `report` prepares it.
enum EventFacts {
  /// Stamps in the form `wellflow run` writes (`2026-03-02T07:00:04.250Z` or without the
  /// milliseconds), read from their digits as the file's reader reads them; other stamps
  /// get no day or microseconds here and the report parses them (`ts::timestamptz`), as
  /// before, so one that is not a date-time is still the report's error, not the writer's.
  static let canonicalStamp =
    "'^[0-9]{4}-(0[1-9]|1[0-2])-[0-3][0-9]T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]{3})?Z$'"

  /// The statements that add the facts of the rows of `source` (the trigger's new rows, or
  /// the whole table when an older database gains the facts).
  /// `OFFSET 0` keeps each step's values computed once per row: inlined, every use of `ok`
  /// or `y` repeated the regular expression (30 times slower).
  static func insert(from source: String) -> String {
    """
    INSERT INTO event_users (name) SELECT DISTINCT user_id FROM \(source) WHERE user_id IS NOT NULL ORDER BY 1
      ON CONFLICT (name) DO NOTHING;
    INSERT INTO event_facts (seq, u, ev, fl, sc, rs, ex, va, vid, script, day, us)
    SELECT a.seq, n.id, a.event, a.data->>'flow', a.data->>'screen',
      CASE WHEN a.event = 'flow_cancelled' THEN a.data->>'reason' END,
      CASE WHEN k.x THEN a.data->>'experiment' END, CASE WHEN k.x THEN a.data->>'variation' END,
      CASE WHEN k.x AND jsonb_typeof(a.data->'variation_id') IN ('number', 'string') THEN a.data->>'variation_id' END,
      k.x AND coalesce(a.data->>'source' = 'script', false),
      d.days, d.days::bigint * 86400000000 + d.micros
    FROM \(source) a LEFT JOIN event_users n ON n.name = a.user_id,
      LATERAL (SELECT a.event = 'experiment_viewed' AS x, a.ts ~ \(canonicalStamp) AS ok OFFSET 0) k,
      LATERAL (SELECT CASE WHEN k.ok THEN substr(a.ts, 1, 4)::int END AS y,
        CASE WHEN k.ok THEN substr(a.ts, 6, 2)::int END AS m, CASE WHEN k.ok THEN substr(a.ts, 9, 2)::int END AS dd OFFSET 0) p,
      -- Howard Hinnant's days_from_civil, as the file's reader counts; a day the month does
      -- not have is left to the report's parsing.
      LATERAL (SELECT CASE WHEN p.y >= 1970 AND p.dd >= 1 AND p.dd <= CASE WHEN p.m = 2 THEN
          CASE WHEN p.y % 4 = 0 AND (p.y % 100 <> 0 OR p.y % 400 = 0) THEN 29 ELSE 28 END
          WHEN p.m IN (4, 6, 9, 11) THEN 30 ELSE 31 END
        THEN (p.y - (p.m <= 2)::int) / 400 * 146097 + ((p.y - (p.m <= 2)::int) % 400) * 365
          + ((p.y - (p.m <= 2)::int) % 400) / 4 - ((p.y - (p.m <= 2)::int) % 400) / 100
          + (153 * (p.m + CASE WHEN p.m > 2 THEN -3 ELSE 9 END) + 2) / 5 + p.dd - 1 - 719468
        END AS days,
        CASE WHEN k.ok THEN (substr(a.ts, 12, 2)::int * 3600 + substr(a.ts, 15, 2)::int * 60
          + substr(a.ts, 18, 2)::int)::bigint * 1000000
          + CASE WHEN length(a.ts) = 24 THEN substr(a.ts, 21, 3)::int * 1000 ELSE 0 END END AS micros OFFSET 0) d;
    """
  }

  /// On a database that has events but no facts yet: makes the facts' tables, triggers and
  /// functions and fills them from the events, in the caller's transaction (under the
  /// schema's advisory lock); writers wait for it, so no event is left without its facts.
  /// Where the facts exist it does nothing, so it may run any number of times (by a
  /// report's read-only user too); without an events table it fails, naming the table.
  static let statements: [String] = [
    """
    DO $do$
    BEGIN
    -- Without an events table the error names it (relation "events" does not exist), as
    -- a report over the table said before.
    IF to_regclass('events') IS NULL THEN PERFORM 1 FROM events; END IF;
    IF to_regclass('event_facts') IS NOT NULL THEN RETURN; END IF;
    CREATE OR REPLACE FUNCTION wellflow_event_facts_added() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      \(insert(from: "added"))
      RETURN NULL;
    END $f$;
    CREATE OR REPLACE FUNCTION wellflow_event_facts_removed() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      IF TG_OP = 'TRUNCATE' THEN TRUNCATE event_facts; ELSE DELETE FROM event_facts f USING removed r WHERE f.seq = r.seq; END IF;
      RETURN NULL;
    END $f$;
    CREATE TABLE event_users (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text COLLATE "C" NOT NULL UNIQUE);
    -- No foreign keys: the triggers keep the rows in step, a key would cost a lookup per event.
    CREATE TABLE event_facts (
      seq bigint PRIMARY KEY, u integer, ev text COLLATE "C", fl text COLLATE "C", sc text COLLATE "C",
      rs text COLLATE "C", ex text COLLATE "C", va text COLLATE "C", vid text, script boolean,
      day integer, us bigint);
    CREATE INDEX event_facts_exposures ON event_facts (ex, seq) WHERE ev = 'experiment_viewed';
    CREATE TRIGGER events_facts_added AFTER INSERT ON events REFERENCING NEW TABLE AS added
      FOR EACH STATEMENT EXECUTE FUNCTION wellflow_event_facts_added();
    CREATE TRIGGER events_facts_removed AFTER DELETE ON events REFERENCING OLD TABLE AS removed
      FOR EACH STATEMENT EXECUTE FUNCTION wellflow_event_facts_removed();
    CREATE TRIGGER events_facts_truncated AFTER TRUNCATE ON events
      FOR EACH STATEMENT EXECUTE FUNCTION wellflow_event_facts_removed();
    -- An event changed in place: its old facts removed, then its new ones added (triggers
    -- of one kind fire in order of name).
    CREATE TRIGGER events_facts_changed_1 AFTER UPDATE ON events REFERENCING OLD TABLE AS removed
      FOR EACH STATEMENT EXECUTE FUNCTION wellflow_event_facts_removed();
    CREATE TRIGGER events_facts_changed_2 AFTER UPDATE ON events REFERENCING NEW TABLE AS added
      FOR EACH STATEMENT EXECUTE FUNCTION wellflow_event_facts_added();
    \(insert(from: "events"))
    ANALYZE event_users;
    ANALYZE event_facts;
    END $do$
    """
  ]
}
