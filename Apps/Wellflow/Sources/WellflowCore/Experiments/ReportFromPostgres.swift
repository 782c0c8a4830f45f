import Experiments
import FlowKit
import Foundation
import PostgresNIO
import ProgressBackend

/// `wellflow report postgres://… --experiment KEY`: the counting runs in SQL where the
/// events are, and only each variation's counts and sums come back; the report is made from
/// them by the same code as a file's (`ExperimentReport(variations:…)`), so it is the file's
/// report of the same events, number for number.
///
/// What makes the numbers equal, not just close: every sum of doubles is added in the order
/// the file's builder adds it (a user's values in event order, users in order of first
/// exposure: `sum(… ORDER BY …)`, which PostgreSQL adds one value at a time), starting from
/// 0 as `MetricSums` does.
public enum ReportFromPostgres {
  @MainActor
  public static func execute(_ configuration: ReportConfiguration, console: Console = .standard) async
    -> Int32
  {
    guard PostgresLocation.isURL(configuration.eventsPath) else {
      return ReportCommand.execute(configuration, console: console)
    }
    guard let setup = ReportCommand.setup(configuration, console: console) else { return 2 }
    let location: PostgresLocation
    let gathered: ReportSQL.Gathered
    do {
      location = try PostgresLocation(url: configuration.eventsPath)
      gathered = try await ReportSQL(experiment: configuration.experiment, setup: setup).run(on: location)
    } catch {
      console.err("error: \(terminalSafe(error.description))")
      return 2
    }
    var named = configuration
    // Problems name the database without its password.
    named.eventsPath = location.description
    switch gathered {
    case .refused(let error, let missing):
      if ReportCommand.refusesMetricsWithoutValues(missing, setup, named, console: console) { return 2 }
      console.err("error: \(ReportCommand.describe(error))")
      return 2
    case .badValue(let seq, let error):
      console.err(
        "error: \(location.description) (event seq \(seq)): \(terminalSafe("\(error)", limit: 4 * ReportCommand.nameLimit))"
      )
      return 2
    case .report(let report, let missing):
      if ReportCommand.refusesMetricsWithoutValues(missing, setup, named, console: console) { return 2 }
      return ReportCommand.emit(report, configuration, console: console)
    }
  }
}

/// The report's aggregation as SQL, mirroring `ExperimentReport.Builder` step by step, over
/// `event_facts` (each event's user as a number, name, flow, screen, reason, exposure and
/// stamp as numbers: see `EventFacts`), and over the `events` table only for the fields a
/// mean metric or a covariate names.
struct ReportSQL {
  let experiment: String
  let setup: ReportCommand.Setup

  enum Gathered {
    case report(ExperimentReport, metricsWithoutValues: [MetricDefinition])
    /// No report, and the mean metrics whose field no event held.
    case refused(ReportError, metricsWithoutValues: [MetricDefinition])
    /// A mean metric's or the covariate's field that is not a number, at the first event
    /// (in table order) that holds one.
    case badValue(seq: Int, ReportError)
  }

  /// Runs the queries on one connection, in one snapshot (REPEATABLE READ), so events added
  /// meanwhile are all left out or all in.
  func run(on location: PostgresLocation) async throws(PostgresFailure) -> Gathered {
    let connection = try await location.connect()
    defer { connection.closeInBackground() }
    do {
      // Events written before the facts existed gain them here, once.
      try await PostgresEvents.prepareFacts(connection)
      // Names from the experiment file are quoted by `literal`, which needs standard
      // strings (a backslash is a backslash): set here, whatever the server's default.
      // The temporary tables hold about one row per exposed user's later event: in memory
      // they are not written out and read back (temp_buffers counts before the first one
      // is touched; the connection is this report's). Sorts and hashes of a few million
      // rows stay in memory too (the server's memory, not this process's). Compiling the
      // plans (JIT) cost more than it saved on these scans.
      try await execute(
        "SET temp_buffers = '256MB'", "BEGIN ISOLATION LEVEL REPEATABLE READ",
        "SET LOCAL standard_conforming_strings = on", "SET LOCAL work_mem = '256MB'", "SET LOCAL jit = off",
        on: connection)
      let gathered = try await gather(connection)
      try await execute("ROLLBACK", on: connection)
      return gathered
    } catch {
      throw PostgresFailure(location: location.description, error: error)
    }
  }

  // MARK: SQL text

  /// A string literal (`run` sets standard_conforming_strings on for its transaction).
  static func literal(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
  }

  /// The event's field as text, as the file's reader keeps it (JSON null is no field).
  static func field(_ name: String, of row: String = "e") -> String { "(\(row).data->>\(literal(name)))" }

  /// Whether the field holds a finite number as `Double(text)` reads it: a JSON number, or
  /// text spelling a decimal number.
  static func numeric(_ name: String, of row: String = "e") -> String {
    """
    (CASE jsonb_typeof(\(row).data->\(literal(name))) WHEN 'number' THEN true \
    WHEN 'string' THEN \(field(name, of: row)) ~ \(decimal) ELSE false END)
    """
  }

  /// Text spelling a decimal number (a JSON number's text always does).
  static let decimal = "'^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$'"

  /// The fact's stamp in microseconds since 1970 (UTC): kept for stamps in wellflow's form,
  /// parsed from the event's text for others (an error if it is no date-time, as before).
  static func stamp(_ fact: String) -> String {
    """
    coalesce(\(fact).us, (SELECT (extract(epoch FROM e.ts::timestamptz) * 1000000)::bigint \
    FROM events e WHERE e.seq = \(fact).seq))
    """
  }

  /// The fact's UTC day number, as `stamp`.
  static func day(_ fact: String) -> String {
    """
    coalesce(\(fact).day, (SELECT floor(extract(epoch FROM e.ts::timestamptz) / 86400)::int \
    FROM events e WHERE e.seq = \(fact).seq))
    """
  }

  /// Whether the event (columns `ev`, `fl`, `sc` or the table's) matches an `.event` metric.
  static func matches(_ metric: MetricDefinition, event: String, flow: String, screen: String) -> String {
    var terms = ["\(event) = \(literal(metric.event ?? ""))"]
    if let wanted = metric.screen { terms.append("\(screen) = \(literal(wanted))") }
    if let wanted = metric.flow { terms.append("\(flow) = \(literal(wanted))") }
    return "(" + terms.joined(separator: " AND ") + ")"
  }

  /// Runs each statement (the extended protocol takes one at a time).
  private func execute(_ statements: String..., on connection: PostgresConnection) async throws {
    for sql in statements {
      try await connection.query(PostgresQuery(unsafeSQL: sql), logger: PostgresLocation.quietLogger)
    }
  }

  private func rows(_ sql: String, on connection: PostgresConnection) async throws -> PostgresRowSequence {
    try await connection.query(PostgresQuery(unsafeSQL: sql), logger: PostgresLocation.quietLogger)
  }

  // MARK: The aggregation

  private func gather(_ connection: PostgresConnection) async throws -> Gathered {
    let metrics = setup.metrics
    let meanMetrics = metrics.indices.filter { metrics[$0].value != nil }
    let key = Self.literal(experiment)
    // Exposures to this experiment, in table order (the partial index `event_facts_exposures`).
    try await execute(
      """
      CREATE TEMP TABLE wf_exposure AS
      SELECT f.seq, f.u, \(Self.day("f")) AS day, coalesce(f.va, '') AS v, f.va IS NULL AS unnamed,
        CASE WHEN f.vid ~ \(Self.decimal) THEN f.vid::float8 END AS vid, f.fl AS flow, f.script
      FROM event_facts f WHERE f.ev = 'experiment_viewed' AND f.ex = \(key)
      """, on: connection)
    var exposures = 0
    var simulated = false
    for try await (count, script) in try await rows(
      "SELECT count(*), coalesce(bool_or(script), false) FROM wf_exposure", on: connection
    ).decode((Int, Bool).self) {
      (exposures, simulated) = (count, script)
    }
    // As the file's report: a bad value stops the reading; fields no event held are
    // refused before the report is made (before even its lack of exposures).
    if let bad = try await firstBadValue(connection, meanMetrics: meanMetrics) { return bad }
    var valueSeen = Set<Int>()
    if !meanMetrics.isEmpty {
      let seen = meanMetrics.map { index in
        let metric = metrics[index]
        let matching = Self.matches(
          metric, event: "e.event", flow: Self.field("flow"), screen: Self.field("screen"))
        return "coalesce(bool_or(\(matching) AND \(Self.field(metric.value!)) IS NOT NULL), false)"
      }
      let events = Set(meanMetrics.map { Self.literal(metrics[$0].event ?? "") }).sorted()
      for try await flags in try await rows(
        """
        SELECT ARRAY[\(seen.joined(separator: ", "))]
        FROM events e WHERE e.event IN (\(events.joined(separator: ", ")))
        """, on: connection
      ).decode([Bool].self) {
        for (position, flag) in flags.enumerated() where flag { valueSeen.insert(meanMetrics[position]) }
      }
    }

    let missing = meanMetrics.filter { !valueSeen.contains($0) }.map { metrics[$0] }
    guard exposures > 0 else {
      var seen: [String] = []
      for try await name in try await rows(
        """
        SELECT DISTINCT ex FROM event_facts WHERE ev = 'experiment_viewed' AND ex IS NOT NULL
        """, on: connection
      ).decode(String.self) {
        seen.append(name)
      }
      return .refused(
        .noExposures(experiment: experiment, experimentsSeen: seen.sorted()), metricsWithoutValues: missing)
    }
    var flowCounts: [String: Int] = [:]
    for try await (flow, count) in try await rows(
      "SELECT flow, count(*) FROM wf_exposure WHERE flow IS NOT NULL GROUP BY flow", on: connection
    ).decode((String, Int).self) {
      flowCounts[flow] = count
    }
    // The flow most exposures name, ties to the least name (Swift's order, not the
    // database's collation).
    guard
      let flow = setup.flow
        ?? flowCounts.min(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key })?.key
    else { return .refused(.noFlow(experiment: experiment), metricsWithoutValues: missing) }

    let listed = try await variationsListed(connection)

    // Exposed users: the first exposure's variation and day, whether they saw others.
    try await execute(
      """
      CREATE TEMP TABLE wf_user AS
      SELECT DISTINCT ON (u) u, seq AS f, v, day,
        min(v) OVER users <> max(v) OVER users AS several_variations,
        count(*) OVER users AS exposures, max(seq) OVER users AS last_exposure
      FROM wf_exposure WINDOW users AS (PARTITION BY u)
      ORDER BY u, seq
      """, "CREATE UNIQUE INDEX ON wf_user (u)", "ANALYZE wf_user", on: connection)
    // Per user, in ONE pass over the facts from the first exposure on, in event order (a
    // sort by user and seq): what the builder's `update` sees of every later event but this
    // experiment's exposures (the metrics reached, the flow's first run), and whether the
    // stamps went back before a later exposure (`severalRuns`). Only the events one of
    // these can use are sorted.
    func later(joining events: Bool = false) -> String {
      """
      FROM event_facts f JOIN wf_user w ON w.u = f.u\(events ? " JOIN events e ON e.seq = f.seq" : "")
      WHERE f.seq > w.f AND NOT coalesce(f.ev = 'experiment_viewed' AND f.ex = \(key), false)
      """
    }
    let flowName = Self.literal(flow)
    // The run's events: its starts, ends and screens (a screen without a name is none).
    let start = "f.ev = 'flow_started' AND f.fl = \(flowName)"
    let end = "f.ev IN ('flow_completed', 'flow_cancelled') AND f.fl = \(flowName)"
    let screen = "f.ev = 'screen_viewed' AND f.fl = \(flowName) AND f.sc IS NOT NULL"
    var reached: [String] = []
    var needed = [
      "w.exposures > 1 AND f.seq <= w.last_exposure",
      "f.fl = \(flowName) AND f.ev IN "
        + "('flow_started', 'flow_completed', 'flow_cancelled', 'screen_viewed')",
    ]
    for (index, metric) in metrics.enumerated() {
      switch metric.kind {
      case .event:
        let matching = Self.matches(metric, event: "f.ev", flow: "f.fl", screen: "f.sc")
        needed.append(matching)
        reached.append("coalesce(bool_or(x.later AND x.m\(index)), false) AS r\(index)")
      case .returnedNextDay:
        needed.append("\(Self.day("f")) = w.day + 1")
        reached.append("coalesce(bool_or(x.later AND x.m\(index)), false) AS r\(index)")
      }
    }
    let matched = metrics.indices.map { index in
      switch metrics[index].kind {
      case .event:
        return "\(Self.matches(metrics[index], event: "f.ev", flow: "f.fl", screen: "f.sc")) AS m\(index)"
      case .returnedNextDay: return "\(Self.day("f")) = w.day + 1 AS m\(index)"
      }
    }
    // Over the user's events so far (a window in seq order): the starts of the flow after
    // exposure (cs), the last start (ms) and the last end (me). The first run is where
    // cs = 1; it ended at the second start or at the first end after the start; its screens
    // are those with cs = 1 and no end since the start (me < ms).
    // The kind of end as a number (sorted rows stay narrow): a new start, a completion,
    // a cancellation by the person, by the host.
    let kind = """
      CASE WHEN f.ev = 'flow_started' THEN 0 WHEN f.ev = 'flow_completed' THEN 1 \
      WHEN f.rs = 'terminated' THEN 3 ELSE 2 END
      """
    let inRun = "x.scr AND x.cs = 1 AND (x.me IS NULL OR x.me < x.ms)"
    try await execute(
      """
      CREATE TEMP TABLE wf_reached AS
      SELECT x.u, \((reached + [
        "min(x.seq) FILTER (WHERE x.st) AS s",
        "min(x.seq * 4 + x.k) FILTER (WHERE (x.st AND x.cs = 2) OR (x.en AND x.cs = 1)) AS ended",
        "count(*) FILTER (WHERE \(inRun)) AS n", "max(x.seq) FILTER (WHERE \(inRun)) AS last_screen",
        "coalesce(bool_or(x.back AND x.again), false) AS several_runs",
      ]).joined(separator: ", "))
      FROM (
        SELECT y.*,
          count(*) FILTER (WHERE y.st) OVER users AS cs, max(y.seq) FILTER (WHERE y.st) OVER users AS ms,
          max(y.seq) FILTER (WHERE y.en) OVER users AS me,
          y.t < lag(y.t) OVER users AS back
        FROM (
          SELECT f.u, f.seq, (\(kind))::int2 AS k, \(Self.stamp("f")) AS t,
            w.exposures > 1 AND f.seq <= w.last_exposure AS again,
            f.seq > w.f AND NOT coalesce(f.ev = 'experiment_viewed' AND f.ex = \(key), false) AS later,
            coalesce(\(start), false) AS st, coalesce(\(end), false) AS en, coalesce(\(screen), false) AS scr\(
              matched.isEmpty ? "" : ", " + matched.joined(separator: ", "))
          FROM event_facts f JOIN wf_user w ON w.u = f.u
          WHERE f.seq >= w.f AND (\(needed.map { "coalesce(\($0), false)" }.joined(separator: " OR ")))) y
        WINDOW users AS (PARTITION BY y.u ORDER BY y.seq)) x
      GROUP BY x.u
      """, "CREATE UNIQUE INDEX ON wf_reached (u)", "ANALYZE wf_reached", on: connection)

    // Mean metrics' sums per user, from the events their metrics name (a user's values in
    // event order).
    if meanMetrics.isEmpty {
      try await execute("CREATE TEMP TABLE wf_values (u integer PRIMARY KEY)", on: connection)
    } else {
      let values = meanMetrics.map { index in
        let metric = metrics[index]
        let value = Self.field(metric.value!)
        return """
          0::float8 + coalesce(sum(\(value)::float8 ORDER BY f.seq) FILTER (WHERE \
          \(Self.matches(metric, event: "f.ev", flow: "f.fl", screen: "f.sc")) AND \(value) IS NOT NULL), 0) AS y\(index)
          """
      }
      let events = Set(meanMetrics.map { Self.literal(metrics[$0].event ?? "") }).sorted()
      try await execute(
        """
        CREATE TEMP TABLE wf_values AS SELECT w.u, \(values.joined(separator: ", "))
        \(later(joining: true))
          AND f.ev IN (\(events.joined(separator: ", ")))
        GROUP BY w.u
        """, "CREATE UNIQUE INDEX ON wf_values (u)", on: connection)
    }

    // The flow's first run after exposure, from the pass above: its end (a new start:
    // abandoned; none: open, which counts as abandoned), its screens and the last of them
    // (looked up by seq, one row each: a join here was planned as a second scan).
    try await execute(
      """
      CREATE TEMP TABLE wf_run AS
      SELECT r.u,
        CASE WHEN r.ended IS NULL THEN 'abandoned' ELSE (ARRAY['abandoned', 'completed', 'cancelled', 'terminated'])[r.ended % 4 + 1] END AS state,
        r.n, (SELECT f.sc FROM event_facts f WHERE f.seq = r.last_screen) AS last
      FROM wf_reached r
      WHERE r.s IS NOT NULL
      """, "CREATE UNIQUE INDEX ON wf_run (u)", on: connection)

    // CUPED's covariate: per exposed user, the field summed over the covariate's events up
    // to and with the first exposure (the builder reads it before it exposes the user).
    if let covariate = setup.covariate {
      try await execute(
        """
        CREATE TEMP TABLE wf_covariate AS
        SELECT w.u, 0::float8 + sum(\(Self.field(covariate.value))::float8 ORDER BY e.seq) AS x
        FROM events e JOIN event_facts f ON f.seq = e.seq JOIN wf_user w ON w.u = f.u
        WHERE e.event = \(Self.literal(covariate.event)) AND e.seq <= w.f AND \(Self.field(covariate.value)) IS NOT NULL
        GROUP BY w.u
        """, "CREATE UNIQUE INDEX ON wf_covariate (u)", on: connection)
    } else {
      try await execute("CREATE TEMP TABLE wf_covariate (u integer PRIMARY KEY, x float8)", on: connection)
    }

    // Each variation's counts and sums, users added in order of first exposure.
    // Sums of 0s and 1s are whole numbers, the same in any order: sorting (each aggregate
    // its own sort in PostgreSQL 15) is for fractional values, a mean's or a covariate's.
    func sums(_ y: String, _ filter: String = "true", rate: Bool) -> String {
      let x = "coalesce(c.x, 0::float8)"
      let order = rate && setup.covariate == nil ? "" : " ORDER BY w.f"
      let ordered = "\(order)) FILTER (WHERE \(filter))"
      return [
        "(count(*) FILTER (WHERE \(filter)))::float8", "sum(\(y) \(ordered)",
        "sum((\(y)) * (\(y)) \(ordered)",
        "sum(\(x) \(ordered)", "sum(\(x) * \(x) \(ordered)", "sum(\(x) * (\(y)) \(ordered)",
      ].map { "0::float8 + coalesce(\($0), 0)" }.joined(separator: ", ")
    }
    var counts = [
      "count(*)", "count(*) FILTER (WHERE run.u IS NOT NULL)",
      "count(*) FILTER (WHERE run.state = 'cancelled')", "count(*) FILTER (WHERE run.state = 'terminated')",
      "count(*) FILTER (WHERE run.state = 'abandoned')",
      "count(*) FILTER (WHERE w.several_variations)",
      "count(*) FILTER (WHERE c.u IS NOT NULL)", "count(*) FILTER (WHERE coalesce(r.several_runs, false))",
    ]
    var doubles = [
      sums(
        "CASE WHEN run.state = 'completed' THEN 1::float8 ELSE 0::float8 END", "run.u IS NOT NULL", rate: true
      )
    ]
    for (index, metric) in metrics.enumerated() {
      counts.append("count(*) FILTER (WHERE coalesce(r.r\(index), false))")
      doubles.append(
        sums(
          metric.value == nil
            ? "CASE WHEN coalesce(r.r\(index), false) THEN 1::float8 ELSE 0::float8 END"
            : "coalesce(vals.y\(index), 0::float8)", rate: metric.value == nil))
    }
    var totals: [String: (counts: [Int], sums: [Double])] = [:]
    for try await (variation, countRow, sumRow) in try await rows(
      """
      SELECT w.v, ARRAY[\(counts.joined(separator: ", "))]::int8[], ARRAY[\(doubles.joined(separator: ", "))]::float8[]
      FROM wf_user w LEFT JOIN wf_reached r USING (u) LEFT JOIN wf_values vals USING (u)
        LEFT JOIN wf_run run USING (u) LEFT JOIN wf_covariate c USING (u)
      GROUP BY w.v
      """, on: connection
    ).decode((String, [Int], [Double]).self) {
      totals[variation] = (countRow, sumRow)
    }
    var steps: [String: [Int]] = [:]
    for try await (variation, count, users) in try await rows(
      """
      SELECT w.v, run.n, count(*) FROM wf_user w JOIN wf_run run USING (u)
      WHERE run.state = 'completed' GROUP BY w.v, run.n ORDER BY w.v, run.n
      """, on: connection
    ).decode((String, Int, Int).self) {
      steps[variation, default: []] += Array(repeating: count, count: users)
    }
    var exits: [String: [String: Int]] = [:]
    for try await (variation, screen, users) in try await rows(
      """
      SELECT w.v, run.last, count(*) FROM wf_user w JOIN wf_run run USING (u)
      WHERE run.state <> 'completed' AND run.last IS NOT NULL GROUP BY w.v, run.last
      """, on: connection
    ).decode((String, String, Int).self) {
      exits[variation, default: [:]][screen] = users
    }

    var gathered: [VariationTotals] = []
    var severalVariations = 0
    var usersWithCovariate = 0
    var severalRuns = 0
    for name in listed {
      var variation = VariationTotals(name: name, metricCount: metrics.count)
      if let row = totals[name] {
        let c = row.counts
        variation.exposed = c[0]
        variation.started = c[1]
        variation.cancelled = c[2]
        variation.terminated = c[3]
        variation.abandoned = c[4]
        severalVariations += c[5]
        usersWithCovariate += c[6]
        severalRuns += c[7]
        func metricSums(_ group: Int) -> MetricSums {
          let s = row.sums[(group * 6)..<(group * 6 + 6)].map { $0 }
          return MetricSums(
            count: Int(s[0]), sum: s[1], sumOfSquares: s[2], covariateSum: s[3], covariateSumOfSquares: s[4],
            sumOfProducts: s[5])
        }
        variation.completion = metricSums(0)
        for index in metrics.indices {
          variation.conversions[index] = c[8 + index]
          variation.metrics[index] = metricSums(1 + index)
        }
        variation.completedSteps = steps[name] ?? []
        variation.exitScreens = exits[name] ?? [:]
      }
      gathered.append(variation)
    }
    let report = ExperimentReport(
      experiment: experiment, flow: flow, variations: gathered, metrics: metrics, weights: setup.weights,
      usersInSeveralVariations: severalVariations, usersInSeveralRuns: severalRuns, simulated: simulated,
      sequential: setup.sequential,
      cuped: setup.covariate.map { CupedSummary(covariate: $0, usersWithCovariate: usersWithCovariate) })
    return .report(
      report, metricsWithoutValues: meanMetrics.filter { !valueSeen.contains($0) }.map { metrics[$0] })
  }

  /// The variations in the report's order: as the builder lists them, from each
  /// variation's first exposure and first `variation_id`.
  private func variationsListed(_ connection: PostgresConnection) async throws -> [String] {
    // (name, unnamed, first seq, first variation_id)
    var seen: [(name: String, unnamed: Bool, first: Int, id: Double?)] = []
    for try await (name, unnamed, first, id) in try await rows(
      """
      SELECT v, unnamed, min(seq), (array_agg(vid ORDER BY seq) FILTER (WHERE vid IS NOT NULL))[1]
      FROM wf_exposure GROUP BY v, unnamed ORDER BY min(seq)
      """, on: connection
    ).decode((String, Bool, Int, Double?).self) {
      seen.append((name, unnamed, first, id))
    }
    var order = setup.order.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
    for variation in seen where !order.contains(variation.name) { order.append(variation.name) }
    guard setup.order.isEmpty else { return order }
    let named = seen.filter { !$0.unnamed }
    var listed = named.enumerated().sorted { a, b in
      (a.element.id ?? .infinity, a.offset) < (b.element.id ?? .infinity, b.offset)
    }.map(\.element.name)
    if seen.contains(where: \.unnamed), !listed.contains("") { listed.append("") }
    return listed
  }

  /// The first event, in table order, whose mean metric's field or covariate's field is
  /// not a number, as the file's report stops at it (a metric's before the covariate's).
  private func firstBadValue(_ connection: PostgresConnection, meanMetrics: [Int]) async throws -> Gathered? {
    let metrics = setup.metrics
    var checks: [(sql: String, error: (String) -> ReportError)] = []
    for index in meanMetrics {
      let metric = metrics[index]
      let field = metric.value!
      checks.append(
        (
          "\(Self.matches(metric, event: "e.event", flow: Self.field("flow"), screen: Self.field("screen"))) AND \(Self.field(field)) IS NOT NULL AND NOT \(Self.numeric(field))",
          { .nonNumericValue(metric: metric.name, field: field, value: $0) }
        ))
    }
    var join = ""
    if let covariate = setup.covariate {
      join = "LEFT JOIN event_users n ON n.name = e.user_id LEFT JOIN wf_user_first w ON w.u = n.id"
      try await execute(
        "CREATE TEMP TABLE wf_user_first AS SELECT u, min(seq) AS f FROM wf_exposure GROUP BY u",
        on: connection)
      checks.append(
        (
          "e.event = \(Self.literal(covariate.event)) AND \(Self.field(covariate.value)) IS NOT NULL AND NOT \(Self.numeric(covariate.value)) AND (w.f IS NULL OR e.seq <= w.f)",
          { .nonNumericCovariate(event: covariate.event, field: covariate.value, value: $0) }
        ))
    }
    guard !checks.isEmpty else { return nil }
    var firsts: [Int] = []
    for try await row in try await rows(
      // seq counts from 1: 0 is none.
      """
      SELECT ARRAY[\(checks.map { "coalesce(min(e.seq) FILTER (WHERE \($0.sql)), 0)" }.joined(separator: ", "))]::int8[]
      FROM events e \(join)
      """,
      on: connection
    ).decode([Int].self) {
      firsts = row
    }
    guard let seq = firsts.filter({ $0 > 0 }).min(), let check = firsts.firstIndex(of: seq) else {
      return nil
    }
    let field: String
    if check < meanMetrics.count {
      field = metrics[meanMetrics[check]].value!
    } else {
      field = setup.covariate!.value
    }
    var text = ""
    for try await value in try await rows(
      "SELECT \(Self.field(field)) FROM events e WHERE e.seq = \(seq)", on: connection
    ).decode(String.self) {
      text = value
    }
    return .badValue(seq: seq, checks[check].error(text))
  }
}
