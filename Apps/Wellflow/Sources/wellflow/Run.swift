import ArgumentParser
import Foundation
import WellflowCore

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

  /// A worker of --jobs: the users it runs and the folder of its outputs (FIRST:LAST:OUTPUTS:DIR).
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
        throw ValidationError("--worker takes FIRST:LAST:OUTPUTS:DIR")
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
