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

        wellflow run Scripts/experiment-checkin.yaml --users 1000 \\
          --experiments Experiments/checkin-length.yaml --events e.ndjson
        wellflow report e.ndjson --experiment checkin-length
      """,
    subcommands: [
      Run.self, Report.self, Flows.self, Play.self, Graph.self, Explore.self, Serve.self, Token.self,
    ])

  /// Usage errors exit 2, as every other "nothing ran" case does (SPEC §5).
  static func main() async {
    do {
      var command = try parseAsRoot()
      if var asyncCommand = command as? AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
    } catch {
      if exitCode(for: error) == .validationFailure {
        FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
        Foundation.exit(2)
      }
      exit(withError: error)
    }
  }
}

struct Run: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run scripts: files, or folders of *.yaml (not their subfolders), in name order.",
    discussion: """
      Every script (and every sub-script it runs) is checked before any step runs;
      problems are listed as file:line:column: message and nothing runs (exit 2).
      A failing step prints file:line:column:, what was expected, what was there and
      the current screen (exit 1). Each script gets a fresh app unless --data-dir is given.

      Examples:
        wellflow run Apps/Wellflow/Scripts
        wellflow run onboarding.yaml --format json --junit report.xml
        wellflow run Scripts --include-tags smoke --shard 1/2 -e NOTE="slept well"
        wellflow run experiment.yaml --experiments onboarding-length.yaml \\
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
      """)

  @Argument(help: "Script files or folders.")
  var paths: [String]

  @Option(help: "Output format: text (a transcript) or json.")
  var format: RunConfiguration.Format = .text

  @Option(help: "Write a JUnit XML report to this file.")
  var junit: String?

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

  @Option(help: "Append every analytics event of the run to this NDJSON file.")
  var events: String?

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

  @Option(help: "The seed that, with each user id, draws the `maybe:` steps (deterministic for --users N).")
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

  func run() async throws {
    var configuration = RunConfiguration(paths: paths)
    configuration.format = format
    configuration.junitPath = junit
    configuration.dataDirectory = dataDir
    configuration.shard = shard
    configuration.includeTags = includeTags
    configuration.excludeTags = excludeTags
    configuration.users = users
    configuration.eventsPath = events
    configuration.variables = variables
    configuration.experimentsPath = experiments
    configuration.growthBookPath = growthBook
    configuration.seed = seed
    configuration.backendURL = backend
    configuration.apiKey = apiKey
    configuration.token = token
    let code = await RunCommand.execute(configuration)
    if code != 0 { throw ExitCode(code) }
  }
}

extension RunConfiguration.Format: ExpressibleByArgument {}

struct Report: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
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
      mismatch` and marks the results untrustworthy. Events written by `wellflow
      run` carry source: script, and the report then says they are simulated.

      The first variation is the control: the first in the experiment file given with
      --experiments, otherwise the one exposures number 0.

      Exit 0 with a report; 2 when the file cannot be read, a line is not an event
      (file:line: message) or no exposure names the experiment.

      Example:
        wellflow report /tmp/e.ndjson --experiment onboarding-length --format json
      """)

  @Argument(help: ArgumentHelp("The NDJSON events file.", valueName: "EVENTS"))
  var events: String

  @Option(help: ArgumentHelp("The experiment's key.", valueName: "KEY"))
  var experiment: String

  @Option(help: "Output format: text (tables), json or csv (html is not available yet).")
  var format: ReportConfiguration.Format = .text

  @Option(
    help: ArgumentHelp(
      "The experiment file: variations in its order (control first), its weights and metrics.",
      valueName: "FILE"))
  var experiments: String?

  @MainActor
  func run() async throws {
    var configuration = ReportConfiguration(eventsPath: events, experiment: experiment)
    configuration.format = format
    configuration.experimentsPath = experiments
    let code = ReportCommand.execute(configuration)
    if code != 0 { throw ExitCode(code) }
  }
}

extension ReportConfiguration.Format: ExpressibleByArgument {}

struct Flows: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the registered flows with their variants and screens, the queries and the launch rules.")

  @OptionGroup var sources: VariantOptions

  @MainActor
  func run() async throws {
    let loaded = try sources.load()
    print(([FlowsListing.text(loaded.registry)] + loaded.featureLines).joined(separator: "\n"))
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

/// The settings `serve` and `token` share when none are given, for local use only.
enum BackendDefaults {
  static let apiKey = "wellflow-dev-key"
  static let jwtSecret = "wellflow-dev-secret"
}

struct Serve: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Serve the progress API (moods, journal, batch) on 127.0.0.1 until interrupted.",
    discussion: """
      Rows are kept in a SQLite file (--db) or in memory. Every request needs the API
      key in X-API-Key and a bearer token from `wellflow token USER` signed with the
      same --jwt-secret.

      Example:
        wellflow serve --port 8080 --db backend.sqlite --api-key k --jwt-secret s &
        wellflow run Apps/Wellflow/Scripts --backend http://127.0.0.1:8080 --api-key k \\
          --token "$(wellflow token user-1 --jwt-secret s)"
      """)

  @Option(help: "The port to listen on (0 picks a free one).")
  var port: Int = 8080

  @Option(help: "Keep the rows in this SQLite file (default: in memory).")
  var db: String?

  @Option(name: .customLong("api-key"), help: "The API key clients must send.")
  var apiKey: String = BackendDefaults.apiKey

  @Option(name: .customLong("jwt-secret"), help: "The secret bearer tokens are signed with (HS256).")
  var jwtSecret: String = BackendDefaults.jwtSecret

  @Option(help: "The address to bind.")
  var host: String = "127.0.0.1"

  func validate() throws {
    guard (0...65_535).contains(port) else { throw ValidationError("--port takes 0…65535, got \(port)") }
    guard !apiKey.isEmpty, !jwtSecret.isEmpty else {
      throw ValidationError("--api-key and --jwt-secret must not be empty")
    }
  }

  func run() async throws {
    let server = try ProgressServer(
      configuration: ProgressServer.Configuration(
        host: host, port: port, databasePath: db, apiKey: apiKey, jwtSecret: jwtSecret))
    try await server.runUntilSignalled { url in
      FileHandle.standardOutput.write(
        Data("serving the progress API on \(url.absoluteString) (Ctrl-C stops)\n".utf8))
    }
  }
}

struct Token: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print a bearer token for USER: an HS256 JWT whose sub is the user.")

  @Argument(help: "The user id the token names.")
  var user: String

  @Option(name: .customLong("jwt-secret"), help: "The secret the server was started with.")
  var jwtSecret: String = BackendDefaults.jwtSecret

  @Option(help: "How long the token lasts: a number and s, m, h or d (e.g. 90m, 1h, 7d).")
  var ttl: String = "1h"

  func validate() throws {
    guard JWT.parseTTL(ttl) != nil else {
      throw ValidationError("--ttl takes e.g. 90s, 30m, 1h or 7d (at most 3660d), got '\(ttl)'")
    }
    guard !user.isEmpty else { throw ValidationError("USER must not be empty") }
  }

  func run() throws {
    let now = Date()
    print(
      JWT.sign(
        subject: user, secret: jwtSecret, issuedAt: now, expiresAt: now.addingTimeInterval(JWT.parseTTL(ttl)!)
      ))
  }
}

struct Play: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
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
      A refused action prints its error and the prompt goes on; the session ends when
      the flow ends (its outcome is printed), on quit or at the end of the input, so
      it works with a pipe:

        printf 'tap continue\\ntap continue\\n' | wellflow play onboarding
      """)

  @Argument(help: "The flow to play (see `wellflow flows`).")
  var flow: String

  @Option(help: "The variant to play; the flow's default when omitted.")
  var variant: String?

  @OptionGroup var sources: VariantOptions

  @MainActor
  func run() async throws {
    let loaded = try sources.load()
    // At a terminal a prompt shows; from a pipe each command is echoed instead.
    var prompt: (@Sendable (String) -> Void)?
    if isatty(STDIN_FILENO) == 1 {
      prompt = { text in FileHandle.standardOutput.write(Data(text.utf8)) }
    }
    let code = await PlayCommand.execute(
      PlayConfiguration(flow: flow, variant: sources.variant(variant, of: flow, in: loaded)),
      registry: loaded.registry, readLine: { Swift.readLine(strippingNewline: true) },
      prompt: prompt)
    if code != 0 { throw ExitCode(code) }
  }
}

struct Graph: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
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
