import ArgumentParser
import FlowKit
import Foundation
import ProgressBackend
import WellflowCore

@main
struct Wellflow: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "wellflow",
    abstract: "Build and test wellness-app flows headlessly: run YAML scripts against the registered flows.",
    discussion: """
      Scripts drive the app's flows without a UI, on a clock the runner
      controls, so a journey of many days runs in milliseconds. Start with:

        wellflow flows                      flows, screens and queries
        wellflow run Apps/Wellflow/Scripts  every script in a folder
        wellflow explore onboarding         check a flow's contract

      A/B-test a flow: run a script for many users with an experiment
      file, then read the funnel per variation:

        wellflow run Apps/Wellflow/Scripts/experiment-checkin.yaml \\
          --experiments Apps/Wellflow/Experiments/checkin-length.yaml \\
          --users 1000 --events e.ndjson
        wellflow report e.ndjson --experiment checkin-length
      """,
    subcommands: [
      Run.self, Report.self, Plan.self, Flows.self, Schema.self, Play.self, Preview.self, Graph.self,
      Explore.self,
      Serve.self,
      Token.self, Export.self,
    ])

  /// Usage errors exit 2, as every other "nothing ran" case does (exit 0: all passed,
  /// 1: some failed, 2: nothing ran).
  static func main() async {
    do {
      var command = try parseAsRoot()
      if var asyncCommand = command as? AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
    } catch {
      // Help goes through the one writer too, so a full disk is told as for any output.
      if exitCode(for: error) == .success {
        let text = fullMessage(for: error)
        if !text.isEmpty { StandardStreams.out(text + "\n") }
        Foundation.exit(0)
      }
      if exitCode(for: error) == .validationFailure {
        StandardStreams.err(fullMessage(for: error) + "\n")
        Foundation.exit(2)
      }
      exit(withError: error)
    }
  }
}

struct Run: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run",
    abstract: "Run scripts: files, or folders of *.yaml (not their subfolders), in name order.",
    discussion: """
      Every script (and every sub-script it runs) is checked before any step runs;
      problems are listed as file:line:column: message and nothing runs (exit 2).
      A sub-script (run:) is a .yaml or .yml file in the folder of the script given
      on the command line or below it (--scripts-root DIR names another folder).
      A failing step prints file:line:column:, what was expected, what was there and
      the current screen (exit 1). Each script gets a fresh app unless --data-dir is given.

      Examples:
        wellflow run Apps/Wellflow/Scripts
        wellflow run Apps/Wellflow/Scripts/onboarding-standard.yaml \\
          --format json --junit report.xml
        wellflow run Apps/Wellflow/Scripts --quiet --html report.html
        wellflow run Apps/Wellflow/Scripts --include-tags smoke --shard 1/2 \\
          -e NOTE="slept well"
        wellflow run Apps/Wellflow/Scripts/experiment-onboarding.yaml \\
          --experiments Apps/Wellflow/Experiments/onboarding-length.yaml \\
          --users 1000 --events e.ndjson

      With --experiments FILE, a flow started without a variant (by a launch
      rule, or `start` without `variant`) shows the variation GrowthBook's
      algorithm assigns the user; users outside an experiment's coverage or
      condition see the flow's default. A script's `experiments: {KEY: NAME}`
      forces a variation (and, as in GrowthBook, records no exposure).
      hashVersion defaults to 1, GrowthBook's default, so users keep their
      variation if the experiment moves to GrowthBook. The file may declare
      variants made of a flow's steps, and may declare nothing else:
        variants: {onboarding: {brief: {steps: [skill, finale]}}}

      With --growthbook FILE (a GrowthBook SDK payload, {"features": {…}}, as
      GrowthBook's API serves it unencrypted), a feature named wellflow.<flow>
      whose value is a variant name chooses that flow's variant through
      GrowthBook's feature rules (force, rollout, experiment, conditions,
      prerequisites). It wins over --experiments for its flow. Assignments are
      sticky: kept in the user's store (with --data-dir, across runs), so
      changing weights or coverage does not move a user already exposed;
      raising a rule's bucketVersion re-buckets, and minBucketVersion leaves out
      users bucketed by an older version. Sticky lookups need the rule's meta
      keys, as GrowthBook payloads carry them.

      --events FILE starts the file anew (--append adds to it instead) and
      writes each event as one JSON line, stamped `ts` in UTC to the
      millisecond. The script's clock only moves on `advance:`, so the stamps
      add a person's pace: each launch, tap, select, enter, … takes a few
      seconds (typing longer), drawn from --seed, the user and the step, so the
      same run writes the same stamps. Events of one step are a millisecond
      apart. Only the stamps move: what the app does by time is unchanged.
      --events postgres://user@host:port/db adds them to that database's events
      table instead, when the runs are done.
      """)

  @Argument(help: "Script files or folders.")
  var paths: [String]

  @Option(help: "Output format: text (a transcript) or json.")
  var format: RunConfiguration.Format = .text

  @Option(help: "Write a JUnit XML report to this file.")
  var junit: String?

  @Option(
    help: ArgumentHelp(
      "Write one self-contained HTML report to this file: failures first, each step with the screen after it.",
      valueName: "FILE"))
  var html: String?

  @Flag(help: "Print only the failures and the summary, not each script's transcript.")
  var quiet = false

  @Option(name: .customLong("data-dir"), help: "Keep the app's data in this folder, shared by every script.")
  var dataDir: String?

  @Option(help: "Run only part I of N of the selected scripts (I/N, e.g. 1/4).")
  var shard: String?

  @Option(
    name: .customLong("include-tags"), help: "Run only scripts with one of these tags (comma-separated).")
  var includeTags: [String] = []

  @Option(name: .customLong("exclude-tags"), help: "Skip scripts with one of these tags (comma-separated).")
  var excludeTags: [String] = []

  @Option(help: "Run each script once per user user-1…user-N, replacing its `user:`.")
  var users: Int?

  @Option(
    help:
      "Write every analytics event of the run to this NDJSON file, emptied first (stamped at a person's pace), or to a PostgreSQL URL."
  )
  var events: String?

  @Flag(help: "With --events: add to the file instead of starting it anew.")
  var append = false

  @Option(
    help:
      "Run the users of --users N in this many processes at once (default: the cores); the same events and output, in the same order, as one."
  )
  var jobs: Int?

  /// A worker of --jobs: the users it runs and the folder of its outputs (FIRST:LAST:EVENTS:DIR).
  @Option(help: .hidden)
  var worker: String?

  @Option(
    help: ArgumentHelp(
      "Assign flow variants from this experiment file (see `wellflow run --help`); checked before anything runs.",
      valueName: "FILE"))
  var experiments: String?

  @Option(
    name: .customLong("growthbook"),
    help: ArgumentHelp(
      "Choose flow variants with this GrowthBook SDK payload's wellflow.<flow> features (sticky per user).",
      valueName: "FILE"))
  var growthBook: String?

  @Option(
    help:
      "The seed that, with each user id, draws the `maybe:` steps and the event stamps' pace (deterministic for --users N)."
  )
  var seed: UInt64 = 0

  @Option(
    name: .customShort("e"),
    help: ArgumentHelp("Set a script variable, overriding the script's env.", valueName: "KEY=VALUE"))
  var variables: [String] = []

  @Option(help: "Sync with this backend (e.g. http://127.0.0.1:8080) instead of an embedded one.")
  var backend: String?

  @Option(name: .customLong("api-key"), help: "The backend's API key (with --backend).")
  var apiKey: String?

  @Option(help: "A bearer token for the backend (with --backend; `wellflow token USER` prints one).")
  var token: String?

  @Option(help: "The language screens show in (en, de) for scripts that name none with `locale:`.")
  var locale: String?

  @Option(
    name: .customLong("scripts-root"),
    help: ArgumentHelp(
      "The folder sub-scripts (run:) may lie in or below; by default each script's own folder.",
      valueName: "DIR"))
  var scriptsRoot: String?

  func run() async throws {
    var configuration = RunConfiguration(paths: paths)
    configuration.format = format
    configuration.junitPath = junit
    configuration.htmlPath = html
    configuration.quiet = quiet
    configuration.dataDirectory = dataDir
    configuration.shard = shard
    configuration.includeTags = includeTags
    configuration.excludeTags = excludeTags
    configuration.users = users
    configuration.eventsPath = events
    configuration.appendEvents = append
    configuration.jobs = jobs
    configuration.executable = Bundle.main.executablePath
    if let worker {
      guard let slice = RunConfiguration.Worker(argument: worker) else {
        throw ValidationError("--worker takes FIRST:LAST:EVENTS:DIR")
      }
      configuration.worker = slice
    }
    configuration.variables = variables
    configuration.experimentsPath = experiments
    configuration.growthBookPath = growthBook
    configuration.seed = seed
    configuration.backendURL = backend
    configuration.apiKey = apiKey
    configuration.token = token
    configuration.locale = locale
    configuration.scriptsRoot = scriptsRoot
    let code = await RunCommand.execute(configuration)
    if code != 0 { throw ExitCode(code) }
  }
}

extension RunConfiguration.Format: ExpressibleByArgument {}

enum PlayFormat: String, ExpressibleByArgument, CaseIterable { case text, json }

struct Report: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "report",
    abstract: "Print an experiment's funnel per variation from an events file.",
    discussion: """
      Reads the NDJSON events of `wellflow run --events FILE`. A user belongs to the
      variation of their first experiment_viewed event; their first run of the
      experiment's flow after it decides their outcome. Per variation:

        exposed          users with experiment_viewed
        started          exposed users who then started the flow
        completed, cancelled (by the person), terminated (ended by the host, e.g. a
                         failed script), abandoned (started but never ended)
        median steps     screens viewed in completed runs (median)
        top exit screen  the screen where most users who did not complete left

      Then each rate, completion (completed / started) first and the metrics the
      experiment file lists under `metrics:` (a share of exposed users: an event,
      optionally on a screen or in a flow, after exposure; or returned_next_day),
      with its 95% Wilson interval, the difference from the control, the p-value of
      a two-proportion z-test Holm-corrected across the variations, and the chance
      to beat control (Beta(1, 1) priors).

      The exposures are checked against the weights (chi-square; equal weights
      without --experiments): below p 0.001 the report starts with `sample ratio
      mismatch` and marks the results untrustworthy. A user exposed in two runs
      (their events go back in time, as after `wellflow run --append`) counts in
      the first, and the report starts by saying how many there are. Events
      written by `wellflow run` carry source: script, and the report then says
      they are simulated. Text output escapes control characters in names from
      the events file and clips them to 64 characters.

      The first variation is the control: the first in the experiment file given with
      --experiments, otherwise the one exposures number 0.

      Each non-control variation also gets its difference to the control in points
      and relative, each with a 95% interval, and one verdict line on completion
      (quick beats full on completion: +44.1 pp [41.8, 46.4]); p-values below 0.001
      print as < 0.001. The file is read once, a block at a time.

      Exit 0 with a report; 2 when the file cannot be read, a line is not an event
      (file:line: message) or no exposure names the experiment. A last line without
      a line end that is not an event (a file cut short) is a warning: it is left
      out and the rest counted.

      Example:
        wellflow report e.ndjson --experiment onboarding-length --format json
      """)

  @Argument(
    help: ArgumentHelp(
      "The NDJSON events file, or the PostgreSQL database of run --events (postgres://user@host:port/db).",
      valueName: "EVENTS"))
  var events: String

  @Option(help: ArgumentHelp("The experiment's key.", valueName: "KEY"))
  var experiment: String

  @Option(
    help: "Output format: text (tables), json, csv or html (one self-contained page on standard output).")
  var format: ReportConfiguration.Format = .text

  @Option(
    help: ArgumentHelp(
      "The experiment file: variations in its order (control first), its weights and metrics.",
      valueName: "FILE"))
  var experiments: String?

  @Option(
    help: ArgumentHelp(
      "Also write the funnels and completion intervals, drawn as SVG, to this HTML file.", valueName: "FILE"))
  var html: String?

  @MainActor
  func run() async throws {
    var configuration = ReportConfiguration(eventsPath: events, experiment: experiment)
    configuration.format = format
    configuration.experimentsPath = experiments
    configuration.htmlPath = html
    let code = await ReportFromPostgres.execute(configuration)
    if code != 0 { throw ExitCode(code) }
  }
}

extension ReportConfiguration.Format: ExpressibleByArgument {}

struct Plan: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "plan",
    abstract:
      "Print how many users each variation of an experiment needs (and, given a daily count, the days).",
    discussion: """
      For a two-sided test of an absolute difference --mde from the control's rate
      --baseline, with unpooled variances:
        n = (z(1 − α′/2) + z(power))² · (P(1 − P) + (P + D)(1 − P − D)) / D²
      per variation, where α′ = α / (variations − 1) splits α over the comparisons
      with the control (Bonferroni). A figure outside its range is one line, exit 2.

      Example:
        wellflow plan --baseline 0.1 --mde 0.02 --users-per-day 500
      """)

  @Option(help: ArgumentHelp("The control's rate, above 0 and below 1 (0.1 for 10%).", valueName: "P"))
  var baseline: Double

  @Option(
    help: ArgumentHelp("The absolute difference to detect, above 0 (0.02 for 2 points).", valueName: "D"))
  var mde: Double

  @Option(help: "The two-sided significance level.")
  var alpha = 0.05

  @Option(help: "The chance of finding a difference of --mde when there is one.")
  var power = 0.8

  @Option(help: ArgumentHelp("Variations, the control included.", valueName: "K"))
  var variations = 2

  @Option(
    name: .customLong("users-per-day"),
    help: ArgumentHelp("Users exposed a day: also print the days.", valueName: "N"))
  var usersPerDay: Int?

  @Option(help: "Output format: text or json.")
  var format: PlanConfiguration.Format = .text

  func run() throws {
    var configuration = PlanConfiguration(baseline: baseline, mde: mde)
    configuration.alpha = alpha
    configuration.power = power
    configuration.variations = variations
    configuration.usersPerDay = usersPerDay
    configuration.format = format
    let code = PlanCommand.execute(configuration)
    if code != 0 { throw ExitCode(code) }
  }
}

extension PlanConfiguration.Format: ExpressibleByArgument {}

struct Flows: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "flows",
    abstract:
      "List the registered flows with their variants and screens (each element's kind, label, options and range), the queries and the launch rules.",
    discussion: """
      The kinds, labels, options and ranges are read off the screens each variant
      shows when explored; an element on a screen not reached is listed as unknown.

      Examples:
        wellflow flows
        wellflow flows --format json \\
          --experiments Apps/Wellflow/Experiments/checkin-length.yaml
      """)

  @Option(help: "Output format: text or json.")
  var format: FlowsListing.Format = .text

  @OptionGroup var sources: VariantOptions

  @MainActor
  func run() async throws {
    let loaded = try sources.load()
    let catalog = await FlowsListing.catalog(loaded.registry)
    StandardStreams.out(
      (format == .json
        ? FlowsListing.json(catalog)
        : ([FlowsListing.text(catalog)] + loaded.featureLines).joined(separator: "\n")) + "\n")
  }
}

struct Schema: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "schema",
    abstract: "Print a JSON Schema (draft 2020-12) of scripts or experiment files, made from the registry.",
    discussion: """
      Flow, screen, element, alert, query and option ids are enums, and every
      script command is described, so an editor that reads JSON Schemas
      (yaml-language-server, in VS Code's YAML extension) completes them and
      flags typos as you type. Save the output and name it in a script's first
      line: # yaml-language-server: $schema=wellflow-script.schema.json
      `wellflow run` still checks what a schema cannot: variables, sub-scripts,
      forced variations and variants an experiment file declares.

      Examples:
        wellflow schema
        wellflow schema --experiments
      """)

  @Flag(help: "Print the schema of experiment files (--experiments FILE) instead of scripts.")
  var experiments = false

  @MainActor
  func run() async throws {
    guard
      let sources = VariantSources.load(experimentsPath: nil, growthBookPath: nil, console: .standard)
    else { throw ExitCode(2) }
    StandardStreams.out(
      (experiments
        ? ScriptSchema.experimentFiles(sources.registry) : ScriptSchema.scripts(sources.registry)) + "\n")
  }
}

/// `--experiments` and `--growthbook` for the commands that name flows.
struct VariantOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "An experiment file: its declared variants can be named (a file may declare only variants:).",
      valueName: "FILE"))
  var experiments: String?

  @Option(
    name: .customLong("growthbook"),
    help: ArgumentHelp(
      "A GrowthBook SDK payload: without --variant, its wellflow.<flow> feature chooses the variant for --user.",
      valueName: "FILE"))
  var growthBook: String?

  @Option(help: "The user whose variant --growthbook or --experiments choose when --variant is omitted.")
  var user: String = "user-1"

  /// The registry with the files' variants; problems are printed and exit 2.
  @MainActor
  func load() throws -> VariantSources {
    guard
      let sources = VariantSources.load(
        experimentsPath: experiments, growthBookPath: growthBook, console: .standard)
    else { throw ExitCode(2) }
    return sources
  }

  /// `--variant` when given, else what the files give the user, else the flow's default.
  @MainActor
  func variant(_ given: String?, of flow: String, in sources: VariantSources) -> String? {
    given ?? sources.variant(for: flow, user: user)
  }
}

extension FlowsListing.Format: ExpressibleByArgument {}

struct Export: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export",
    abstract: "Write a user's mood and journal entries from an app data folder as CSV or JSON.",
    discussion: """
      Reads the folder `wellflow run --data-dir DIR` keeps its data in and writes the
      user's entries to standard output, oldest first.

      Moods: date, kind, score, valence, labels, associations and notes. Journal
      entries: date, primary, secondary, strategy and who started it. Times are
      ISO 8601 with their offset (2026-03-02T08:00:00+01:00) in --timezone, which
      also places the --from and --to days (both included).

      CSV follows RFC 4180: one header line, CRLF line ends, a field with a comma, a
      quote or a line break in quotes (quotes doubled); labels and associations are
      separated by `;`. JSON is one array, an object a line, absent values null.

      Exit 0 when exported (an empty range too), 2 when nothing could be read (a
      missing folder, a day that is not a day, --from after --to).

      Examples:
        wellflow run Apps/Wellflow/Scripts/mood-edit.yaml --data-dir /tmp/wf
        wellflow export --data-dir /tmp/wf --user alice \\
          --from 2026-03-01 --to 2026-03-31
        wellflow export --data-dir /tmp/wf --format json > moods.json
      """)

  @Option(name: .customLong("data-dir"), help: "The app's data folder.")
  var dataDir: String

  @Option(help: "Whose entries (a script's `user:`).")
  var user: String = "user-1"

  @Option(help: ArgumentHelp("The first day to export, YYYY-MM-DD.", valueName: "DATE"))
  var from: String?

  @Option(help: ArgumentHelp("The last day to export, YYYY-MM-DD.", valueName: "DATE"))
  var to: String?

  @Option(help: "Output format: csv or json.")
  var format: ExportConfiguration.Format = .csv

  @Option(help: ArgumentHelp("The time zone of times and days (default: this machine's).", valueName: "ZONE"))
  var timezone: String?

  func run() async throws {
    var configuration = ExportConfiguration(dataDirectory: dataDir)
    configuration.userID = user
    configuration.from = from
    configuration.to = to
    configuration.format = format
    if let timezone {
      guard let zone = TimeZone(identifier: timezone) else {
        throw ValidationError("--timezone '\(timezone)' is not a time zone (e.g. Europe/Berlin, UTC)")
      }
      configuration.timeZone = zone
    }
    let code = await ExportCommand.execute(
      configuration, write: { StandardStreams.out($0) }, console: .standard)
    if code != 0 { throw ExitCode(code) }
  }
}

extension ExportConfiguration.Format: ExpressibleByArgument {}

/// The settings `serve` and `token` share when none are given, for local use only.
struct Serve: AsyncParsableCommand {
  /// A request's log line on standard output.
  static let printLine: @Sendable (String) -> Void = { line in StandardStreams.out(line + "\n") }

  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Serve the progress API (moods, journal, batch) on 127.0.0.1 until interrupted.",
    discussion: """
      Rows are kept in a SQLite file (--db or --database FILE), in PostgreSQL
      (--database postgres://user@host:port/db; several serve processes on one
      database act as one server) or in memory. Every request needs the API
      key in X-API-Key and a bearer token from `wellflow token USER` signed with the
      same JWT secret.

      Secrets come from --api-key-file/--jwt-secret-file, --api-key/--jwt-secret
      (readable by others on the machine; a warning), $WELLFLOW_API_KEY and
      $WELLFLOW_JWT_SECRET, else development defaults. With a --host beyond
      loopback, serve needs its own key and a JWT secret of 32 bytes or more, from
      the environment or a file, and refuses to start otherwise.

      Example:
        wellflow serve --port 8080 --db backend.sqlite --api-key k --jwt-secret s &
        wellflow run Apps/Wellflow/Scripts --backend http://127.0.0.1:8080 \\
          --api-key k --token "$(wellflow token user-1 --jwt-secret s)"
      """)

  @Option(help: "The port to listen on (0 picks a free one).")
  var port: Int = 8080

  @Option(help: "Keep the rows in this SQLite file (default: in memory).")
  var db: String?

  @Option(help: "Keep the rows in this SQLite file or PostgreSQL database (postgres://user@host:port/db).")
  var database: String?

  @Option(name: .customLong("api-key"), help: "The API key clients must send.")
  var apiKey: String?

  @Option(name: .customLong("api-key-file"), help: "Read the API key from this file.")
  var apiKeyFile: String?

  @Option(name: .customLong("jwt-secret"), help: "The secret bearer tokens are signed with (HS256).")
  var jwtSecret: String?

  @Option(name: .customLong("jwt-secret-file"), help: "Read the JWT secret from this file.")
  var jwtSecretFile: String?

  @Option(help: "The address to bind.")
  var host: String = "127.0.0.1"

  @Option(name: .customLong("jwt-issuer"), help: "Accept only tokens whose iss is this.")
  var jwtIssuer: String?

  @Flag(help: "Log no line per request (method, path, status, milliseconds; never a header or body).")
  var quiet = false

  @Option(name: .customLong("jwt-audience"), help: "Accept only tokens whose aud names this.")
  var jwtAudience: String?

  @Option(
    name: .customLong("metrics-port"),
    help: """
      Also answer GET /metrics (Prometheus, no auth) on this port of --host. On a loopback \
      --host the API's port answers it too.
      """)
  var metricsPort: Int?

  func validate() throws {
    guard (0...65_535).contains(port) else { throw ValidationError("--port takes 0…65535, got \(port)") }
    if let metricsPort, !(1...65_535).contains(metricsPort) {
      throw ValidationError("--metrics-port takes 1…65535, got \(metricsPort)")
    }
    guard jwtIssuer?.isEmpty != true, jwtAudience?.isEmpty != true else {
      throw ValidationError("--jwt-issuer and --jwt-audience must not be empty")
    }
    if db != nil, database != nil { throw ValidationError("give --db or --database, not both") }
  }

  func run() async throws {
    let store: BackendDatabase
    do {
      store = try database.map(BackendDatabase.init(argument:)) ?? .sqlite(path: db)
    } catch {
      StandardStreams.err("wellflow serve: \(error)\n")
      throw ExitCode(2)
    }
    let secrets: ServerSecrets
    do {
      secrets = try ServerSecrets.resolve(
        apiKey: .init(value: apiKey, file: apiKeyFile),
        jwtSecret: .init(value: jwtSecret, file: jwtSecretFile),
        host: host, environment: ProcessInfo.processInfo.environment)
    } catch {
      StandardStreams.err("wellflow serve: \(error)\n")
      throw ExitCode(2)
    }
    for warning in secrets.warnings {
      StandardStreams.err("warning: \(warning)\n")
    }
    var configuration = ProgressServer.Configuration(
      host: host, port: port, apiKey: secrets.apiKey, jwtSecret: secrets.jwtSecret,
      jwtIssuer: jwtIssuer, jwtAudience: jwtAudience, requestLog: quiet ? nil : Self.printLine,
      servesMetrics: ServerSecrets.isLoopback(host), metricsPort: metricsPort)
    configuration.database = store
    let server = try ProgressServer(configuration: configuration)
    do {
      try await server.runUntilSignalled { url in
        StandardStreams.out("serving the progress API on \(url.absoluteString) (Ctrl-C stops)\n")
      }
    } catch let failure as PostgresFailure {
      StandardStreams.err("wellflow serve: \(failure)\n")
      throw ExitCode(2)
    }
  }
}

struct Token: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "token",
    abstract: "Print a bearer token for USER: an HS256 JWT whose sub is the user.")

  @Argument(help: "The user id the token names.")
  var user: String

  @Option(name: .customLong("jwt-secret"), help: "The secret the server was started with.")
  var jwtSecret: String?

  @Option(
    name: .customLong("jwt-secret-file"),
    help: "Read the secret from this file (else --jwt-secret, $WELLFLOW_JWT_SECRET, the default).")
  var jwtSecretFile: String?

  @Option(help: "How long the token lasts: a number and s, m, h or d (e.g. 90m, 1h, 7d).")
  var ttl: String = "1h"

  @Option(name: .customLong("jwt-issuer"), help: "The iss to put in the token (serve --jwt-issuer).")
  var jwtIssuer: String?

  @Option(name: .customLong("jwt-audience"), help: "The aud to put in the token (serve --jwt-audience).")
  var jwtAudience: String?

  func validate() throws {
    guard JWT.parseTTL(ttl) != nil else {
      throw ValidationError("--ttl takes e.g. 90s, 30m, 1h or 7d (at most 3660d), got '\(ttl)'")
    }
    // The server refuses a token for such a user, so none is printed.
    if let problem = UserID.problem(with: user) {
      throw ValidationError("USER \(problem) (\(UserID.rule))")
    }
  }

  func run() throws {
    let secrets: ServerSecrets
    do {
      secrets = try ServerSecrets.resolve(
        apiKey: .init(), jwtSecret: .init(value: jwtSecret, file: jwtSecretFile), host: nil,
        environment: ProcessInfo.processInfo.environment)
    } catch {
      throw ValidationError("\(error)")
    }
    StandardStreams.out(
      try JWT.issue(
        subject: user, secret: secrets.jwtSecret, now: Date(), ttl: JWT.parseTTL(ttl)!, issuer: jwtIssuer,
        audience: jwtAudience) + "\n")
  }
}

struct Play: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "play",
    abstract: "Run one flow by hand in the terminal, in a fresh in-memory app.",
    discussion: """
      Prints the screen and reads one command a line, in the script vocabulary:
        tap continue
        select skill beginner
        select labels calm,proud      (a multiple choice takes the whole list)
        enter response slept well     (enter response "" clears it)
        set score 8
        toggle reminders true
        back, close, screen, help, quit
      Screens show each element's label beside its id, choices' options (long lists
      once per screen; `screen` lists them again), slider ranges and captions, and an
      alert's message and buttons. At a terminal, up and down walk the lines typed
      before and left, right, Home and End edit the line. A refused action prints its
      error and the prompt goes on; the exit status is then 1. When the flow ends and
      the app presents another (a check-in asking for the journal), play goes on in it;
      the session ends when no flow is left, on quit or at the end of the input, so it
      works with a pipe:

        printf 'tap continue\\ntap continue\\n' | wellflow play onboarding
      """)

  @Argument(help: "The flow to play (see `wellflow flows`).")
  var flow: String

  @Option(help: "The variant to play; the flow's default (or the experiment's choice) when omitted.")
  var variant: String?

  @OptionGroup var sources: VariantOptions

  @Option(help: "The language screens show in: en (the default) or de.")
  var locale: String?

  @Option(
    help: "How screens are printed: text, or json (one line each, with accessibility labels and values).")
  var format: PlayFormat = .text

  @MainActor
  func run() async throws {
    let loaded = try sources.load()
    let configuration = PlayConfiguration(
      flow: flow, variant: sources.variant(variant, of: flow, in: loaded), locale: locale,
      json: format == .json)
    // At a terminal the line editor shows the prompt and keeps a history (arrow keys);
    // from a pipe each command is echoed instead.
    let code: Int32
    if TerminalLineReader.isTerminal {
      let reader = TerminalLineReader()
      code = await PlayCommand.execute(
        configuration, registry: loaded.registry, readLine: { reader.readLine(prompt: "> ") },
        prompt: { _ in })
    } else {
      code = await PlayCommand.execute(
        configuration, registry: loaded.registry, readLine: { Swift.readLine(strippingNewline: true) })
    }
    if code != 0 { throw ExitCode(code) }
  }
}

struct Graph: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "graph",
    abstract: "Print a flow's screen graph, as the explorer finds it.",
    discussion: """
      Nodes are screen ids, `screen + alert` while an alert is up, and the endings
      completed and cancelled; edges are labelled with the action (`tap continue`).
      A choice is one edge per target, labelled with the first class of options
      the flow cannot tell apart (`select emotion calm (+37 alike)`); options it
      tells apart that lead the same way elsewhere are counted as more
      (`select layer 0 (+10 more)`). `advance 90s` moves the clock to a flow's
      next timer. The order is deterministic, so the output can be kept under
      version control.

      The graph is explored as `wellflow explore` does. When a declared screen or a
      completed ending was not reached, the graph found is printed, what is missing
      goes to standard error, and the exit status is 1.

      Examples:
        wellflow graph onboarding > onboarding.mmd
        wellflow graph journal --format dot | dot -Tsvg > journal.svg
      """)

  @Argument(help: "The flow to draw (see `wellflow flows`).")
  var flow: String

  @Option(help: "The variant to draw; the flow's default when omitted.")
  var variant: String?

  @OptionGroup var sources: VariantOptions

  @Option(help: "Output format: mermaid or dot.")
  var format: GraphConfiguration.Format = .mermaid

  @Option(help: "How many actions deep to explore.")
  var depth = FlowExplorer.defaultDepth

  @Option(
    name: .customLong("max-states"),
    help: "Stop after finding this many states (the graph is then incomplete).")
  var maxStates: Int?

  func validate() throws {
    guard depth >= 1 else { throw ValidationError("--depth must be at least 1, got \(depth)") }
    if let maxStates, maxStates < 1 {
      throw ValidationError("--max-states must be at least 1, got \(maxStates)")
    }
  }

  @MainActor
  func run() async throws {
    let loaded = try sources.load()
    var configuration = GraphConfiguration(flow: flow)
    configuration.variant = sources.variant(variant, of: flow, in: loaded)
    configuration.format = format
    configuration.depth = depth
    configuration.maxStates = maxStates
    let code = await GraphCommand.execute(configuration, registry: loaded.registry)
    if code != 0 { throw ExitCode(code) }
  }
}

extension GraphConfiguration.Format: ExpressibleByArgument {}

struct Explore: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "explore",
    abstract: "Explore every state of a flow up to a depth and check the flow contract.",
    discussion: """
      From the flow's first screen the explorer tries what each screen offers:
      every enabled button and alert button, each option of a choice (and none
      for a multiple choice), sliders at min/mid/max, text short and empty,
      toggles both ways, back and close where available, the clock moved to the
      next timer a flow scheduled, plus actions the screen must refuse (an
      element not on screen, a disabled element, anything but the alert's
      buttons while an alert is up).

      It searches breadth-first over states: a state is what the screen shows
      after settling (or the ending), explored once from the shortest sequence
      that reaches it, replayed in a fresh in-memory app. Options the flow
      cannot tell apart are one class, explored through the first of them:
      every option is tried once, and options whose screens differ only in the
      chosen value and text, and whose buttons, back and close lead to the same
      screens, are alike.

      After every step it checks: refused actions change nothing, alert buttons
      answer, the flow ends at most once, its coordinator is released after it
      ended, screen, element and alert ids are unique and declared. Each
      violation is listed with the shortest sequence that shows it, as script
      steps to paste into a script.

      Then it reports as problems every declared screen of the variant it never
      reached and a flow with no completed ending, and says whether every
      reachable state was explored or more lie beyond the depth. Progress goes
      to standard error every few seconds; --max-sequences and --max-states
      bound a run and the report says where it stopped. Exit 0 without
      violations or problems, 1 with either, 2 on usage errors.

      Examples:
        wellflow explore checkin
        wellflow explore journal --depth 5 --format json
      """)

  @Argument(help: "The flow to explore (see `wellflow flows`).")
  var flow: String

  @Option(help: "The variant to explore; the flow's default when omitted.")
  var variant: String?

  @OptionGroup var sources: VariantOptions

  @Option(help: "How many actions deep to explore.")
  var depth = FlowExplorer.defaultDepth

  @Option(help: "Output format: text or json.")
  var format: ExploreConfiguration.Format = .text

  @Option(
    name: .customLong("max-sequences"), help: "Stop after this many sequences (the report says it stopped).")
  var maxSequences: Int?

  @Option(
    name: .customLong("max-states"), help: "Stop after finding this many states (the report says it stopped)."
  )
  var maxStates: Int?

  func validate() throws {
    guard depth >= 1 else { throw ValidationError("--depth must be at least 1, got \(depth)") }
    if let maxSequences, maxSequences < 1 {
      throw ValidationError("--max-sequences must be at least 1, got \(maxSequences)")
    }
    if let maxStates, maxStates < 1 {
      throw ValidationError("--max-states must be at least 1, got \(maxStates)")
    }
  }

  @MainActor
  func run() async throws {
    let loaded = try sources.load()
    var configuration = ExploreConfiguration(flow: flow)
    configuration.variant = sources.variant(variant, of: flow, in: loaded)
    configuration.depth = depth
    configuration.format = format
    configuration.maxSequences = maxSequences
    configuration.maxStates = maxStates
    let code = await ExploreCommand.execute(configuration, registry: loaded.registry)
    if code != 0 { throw ExitCode(code) }
  }
}

extension ExploreConfiguration.Format: ExpressibleByArgument {}

struct Preview: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "preview",
    abstract: "Preview the flows in a browser: a local page that renders and drives any flow and variant.",
    discussion: """
      Serves a page on 127.0.0.1 (never another address) that shows the app's current
      screen as a phone, with its labels, captions, progress and alert. Pick a flow and a
      variant and press Start (or Launch to apply the launch rules), then click the
      screen to act: buttons tap, options select, text fields enter when they lose
      focus, sliders set. Panels move the clock (to the next timer or by an amount such
      as 90m or 1d), relaunch the app, show every query's value and the events so far.
      "Copy as script" gives the steps taken as a script that `wellflow run` passes.
      The page loads nothing from the internet; the app pushes each change to it.

      Examples:
        wellflow preview                   then open http://127.0.0.1:8300
        wellflow preview --port 0 \\
          --experiments Apps/Wellflow/Experiments/checkin-length.yaml
        wellflow preview \\
          --growthbook Apps/Wellflow/Experiments/growthbook-checkin.json
        wellflow preview --locale de       the screens in German

      With --experiments or --growthbook, a flow started without a variant
      (Launch, or Start with no variant picked) gets the variant they give the
      preview's user (user-1), as in `wellflow run`, and the copied script
      names the same file.
      """)

  @Option(help: "The port to listen on (0 picks a free one).")
  var port: Int = 8300

  @Option(
    help: ArgumentHelp(
      "Experiments and declared variants from this file (their variants can be started too).",
      valueName: "FILE"))
  var experiments: String?

  @Option(
    name: .customLong("growthbook"),
    help: ArgumentHelp(
      "A GrowthBook SDK payload: its wellflow.<flow> features choose the variant of flows started without one.",
      valueName: "FILE"))
  var growthBook: String?

  @Option(help: "The language screens show in: en (the default) or de.")
  var locale: String?

  func validate() throws {
    guard (0...65_535).contains(port) else { throw ValidationError("--port takes 0…65535, got \(port)") }
  }

  @MainActor
  func run() async throws {
    let session: PreviewSession
    do {
      session = try PreviewSession.make(
        experimentsPath: experiments, growthBookPath: growthBook, locale: locale)
    } catch {
      StandardStreams.err("\(error)\n")
      throw ExitCode(2)
    }
    let server = PreviewServer(session: session, port: port)
    try await server.runUntilSignalled { url in
      StandardStreams.out("previewing the flows on \(url.absoluteString) (Ctrl-C stops)\n")
    }
  }
}
