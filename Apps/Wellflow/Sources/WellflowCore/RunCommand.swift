import ArgumentParser
import FlowKit
import Foundation
import ProgressBackend
import Sync
import WellflowComposition
import WellflowReports
import WellflowScript
import YAMLTree

/// Everything `wellflow run` takes, declared once: the command line parses it.
public struct RunConfiguration: ParsableArguments, Sendable {
  public enum Format: String, Sendable, CaseIterable, ExpressibleByArgument { case text, json }

  @Argument(help: "Script files or folders.")
  public var paths: [String]

  @Option(help: "Output format: text (a transcript) or json.")
  public var format: Format = .text

  @Option(
    name: .customLong("junit"),
    help: ArgumentHelp("Write a JUnit XML report to this file.", valueName: "junit"))
  public var junitPath: String?

  /// `--html FILE`: one self-contained HTML report with the screen after each step.
  @Option(
    name: .customLong("html"),
    help: ArgumentHelp(
      "Write one self-contained HTML report to this file: failures first, each step with the screen after it.",
      valueName: "FILE"))
  public var htmlPath: String?

  /// `--quiet`: no transcripts, only the failures and the summary.
  @Flag(help: "Print only the failures and the summary, not each script's transcript.")
  public var quiet = false

  @Option(
    name: .customLong("data-dir"),
    help: ArgumentHelp("Keep the app's data in this folder, shared by every script.", valueName: "data-dir"))
  public var dataDirectory: String?

  @Option(help: "Run only part I of N of the selected scripts (I/N, e.g. 1/4).")
  public var shard: String?

  @Option(
    name: .customLong("include-tags"), help: "Run only scripts with one of these tags (comma-separated).")
  public var includeTags: [String] = []

  @Option(name: .customLong("exclude-tags"), help: "Skip scripts with one of these tags (comma-separated).")
  public var excludeTags: [String] = []

  @Option(help: "Run each script once per user user-1…user-N, replacing its `user:`.")
  public var users: Int?

  @Option(
    name: .customLong("events"),
    help: ArgumentHelp(
      "Write every analytics event of the run to this NDJSON file, emptied first (stamped at a person's pace), or to a PostgreSQL URL.",
      valueName: "events"))
  public var eventsPath: String?

  /// `--append`: add to the events file instead of starting it anew.
  @Flag(name: .customLong("append"), help: "With --events: add to the file instead of starting it anew.")
  public var appendEvents = false

  /// `--jobs N`: worker processes a population's users are split among; nil for the
  /// machine's cores (`RunJobs.swift`).
  @Option(
    help:
      "Run the users of --users N in this many processes at once (default: the cores); the same events and output, in the same order, as one."
  )
  public var jobs: Int?

  /// A worker of --jobs: the users it runs and the folder of its outputs (FIRST:LAST:OUTPUTS:DIR).
  @Option(name: .customLong("worker"), help: .hidden)
  public var workerArgument: String?

  /// `--experiments FILE`: experiments that choose variants, and variants without code.
  @Option(
    name: .customLong("experiments"),
    help: ArgumentHelp(
      "Assign flow variants from this experiment file (see `wellflow run --help`); checked before anything runs.",
      valueName: "FILE"))
  public var experimentsPath: String?

  /// `--growthbook FILE`: a GrowthBook SDK payload whose `wellflow.<flow>` features choose variants.
  @Option(
    name: .customLong("growthbook"),
    help: ArgumentHelp(
      "Choose flow variants with this GrowthBook SDK payload's wellflow.<flow> features (sticky per user).",
      valueName: "FILE"))
  public var growthBookPath: String?

  /// `--seed N`: draws of `maybe:` steps (with the user id).
  @Option(
    help:
      "The seed that, with each user id, draws the `maybe:` steps and the event stamps' pace (deterministic for --users N)."
  )
  public var seed: UInt64 = 0

  /// `-e KEY=VALUE`, overriding the top-level script's env.
  @Option(
    name: .customShort("e"),
    help: ArgumentHelp("Set a script variable, overriding the script's env.", valueName: "KEY=VALUE"))
  public var variables: [String] = []

  /// `--backend URL --api-key K --token T`; without them an embedded server serves `sync`.
  @Option(
    name: .customLong("backend"),
    help: ArgumentHelp(
      "Sync with this backend (e.g. http://127.0.0.1:8080) instead of an embedded one.", valueName: "backend")
  )
  public var backendURL: String?

  @Option(name: .customLong("api-key"), help: "The backend's API key (with --backend).")
  public var apiKey: String?

  @Option(help: "A bearer token for the backend (with --backend; `wellflow token USER` prints one).")
  public var token: String?

  /// `--locale L`: the language of scripts that name none.
  @Option(help: "The language screens show in (en, de) for scripts that name none with `locale:`.")
  public var locale: String?

  /// `--scripts-root DIR`: the folder sub-scripts (run:) may lie in (or below); by default
  /// each top-level script's own folder.
  @Option(
    name: .customLong("scripts-root"),
    help: ArgumentHelp(
      "The folder sub-scripts (run:) may lie in or below; by default each script's own folder.",
      valueName: "DIR"))
  public var scriptsRoot: String?

  /// The `wellflow` binary workers run; without it everything runs in this process. Not
  /// an option: the command line sets it to its own binary.
  public var executable: String? = nil

  public init() {}

  /// The defaults for `paths`, as `wellflow run PATHS` gives them.
  public init(paths: [String]) { self = .parsed(["--"] + paths) }

  /// Set in a worker process: the users it runs and where it writes (`--worker`).
  public var worker: Worker? { workerArgument.flatMap(Worker.init(argument:)) }

  public func validate() throws {
    if let workerArgument, Worker(argument: workerArgument) == nil {
      throw ValidationError("--worker takes FIRST:LAST:OUTPUTS:DIR")
    }
  }
}

extension ParsableCommand {
  /// What `wellflow SUB ARGUMENTS` runs, parsed with `SUB` as the root: nil for anything
  /// but this command (help, a completion script) or arguments that do not parse, which
  /// the command line then parses from its root to answer as it always did. The root's
  /// parse also parses the whole command line twice more looking for
  /// `--generate-completion-script`, about a tenth of a script run's start-up; a command
  /// whose configuration names a super-command (`wellflow`) is spared that here, and only
  /// here: below the root, the root's configuration is read.
  public static func parsedAlone(_ arguments: [String]) -> Self? {
    (try? parseAsRoot(arguments)) as? Self
  }
}

/// Where `wellflow run` writes: standard output and standard error in the app,
/// buffers in tests.
public struct Console: Sendable {
  public var out: @Sendable (String) -> Void
  public var err: @Sendable (String) -> Void

  public init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void) {
    self.out = out
    self.err = err
  }

  /// Output that cannot be written ends the process (`StandardStreams`).
  public static let standard = Console(
    out: { text in StandardStreams.out(text + "\n") },
    err: { text in StandardStreams.err(text + "\n") })
}

/// `wellflow run`: loads and checks every script first, then runs them.
/// Exit 0 all passed, 1 some failed, 2 nothing ran.
@MainActor
public enum RunCommand {
  /// Users a run may simulate: each gets its own app, so this bounds time and memory.
  public static let maxUsers = 1_000_000
  /// Worker processes `--jobs` may start.
  public static let maxJobs = 64

  public static func execute(_ configuration: RunConfiguration, console: Console = .standard) async -> Int32 {
    if let url = configuration.eventsPath, PostgresLocation.isURL(url) {
      return await EventsInPostgres.execute(configuration, url: url, console: console) { configuration in
        await execute(configuration, console: console, afterEachRun: nil)
      }
    }
    return await execute(configuration, console: console, afterEachRun: nil)
  }

  static func execute(
    _ configuration: RunConfiguration, console: Console, afterEachRun: ((RunMemory) -> Void)?
  ) async -> Int32 {
    // Messages quote what the command line and the files said: shown, never acted on.
    func usage(_ message: String) -> Int32 {
      console.err("error: \(terminalSafe(message))")
      return 2
    }
    if let problem = WellflowLocalization.problem(with: configuration.locale) { return usage("\(problem)") }
    let registry: FlowRegistry
    let experimentFile: ExperimentFile?
    let payload: GrowthBookPayload?
    switch VariantSources.load(
      experimentsPath: configuration.experimentsPath, growthBookPath: configuration.growthBookPath)
    {
    case .success(let sources):
      registry = sources.registry
      experimentFile = sources.experimentFile
      payload = sources.payload
    case .failure(let error):
      for problem in error.problems { console.err(terminalSafe(problem)) }
      console.err(error.problems.isEmpty ? error.summary : error.summary + "; no script ran")
      return 2
    }
    var overrides: [String: String] = [:]
    for assignment in configuration.variables {
      guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
        return usage("-e takes KEY=VALUE, got '\(terminalSafe(assignment, limit: 80))'")
      }
      overrides[String(assignment[..<equals])] = String(assignment[assignment.index(after: equals)...])
    }
    var shard: (index: Int, count: Int)?
    if let text = configuration.shard {
      let parts = text.split(separator: "/").compactMap { Int($0) }
      guard parts.count == 2, parts[1] >= 1, (1...parts[1]).contains(parts[0]) else {
        return usage("--shard takes I/N with 1 ≤ I ≤ N (e.g. 2/4), got '\(text)'")
      }
      shard = (parts[0], parts[1])
    }
    if let users = configuration.users, !(1...Self.maxUsers).contains(users) {
      return usage("--users takes a number from 1 to \(Self.maxUsers), got \(users)")
    }
    if let jobs = configuration.jobs, !(1...Self.maxJobs).contains(jobs) {
      return usage("--jobs takes a number from 1 to \(Self.maxJobs), got \(jobs)")
    }
    if let worker = configuration.worker, worker.users.upperBound > configuration.users ?? 1 {
      return usage("--worker names users beyond --users")
    }
    if let path = configuration.dataDirectory, let problem = DataDirectory.problem(with: path) {
      return usage(problem)
    }
    var backend = BackendChoice.embedded
    if let text = configuration.backendURL {
      guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme),
        url.host != nil
      else {
        return usage("--backend takes an http(s) URL such as http://127.0.0.1:8080, got '\(text)'")
      }
      guard let apiKey = configuration.apiKey, let token = configuration.token else {
        return usage("--backend needs --api-key and --token (wellflow token USER prints one)")
      }
      backend = .remote(BackendCredentials(baseURL: url, apiKey: apiKey, token: token))
    } else if configuration.apiKey != nil || configuration.token != nil {
      return usage("--api-key and --token go with --backend URL")
    }

    if let root = configuration.scriptsRoot {
      var isFolder: ObjCBool = false
      guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder), isFolder.boolValue else {
        return usage("--scripts-root takes a folder, got '\(root)'")
      }
    }
    let files: [String]
    do {
      files = try scriptFiles(configuration.paths)
    } catch {
      return usage("\(error)")
    }
    guard !files.isEmpty else {
      return usage(
        "no scripts found in \(configuration.paths.joined(separator: ", ")) (a folder runs the *.yaml and *.yml directly in it)"
      )
    }

    let vocabulary = ScriptVocabulary(
      registry: registry,
      experimentVariations: experimentFile == nil && payload == nil
        ? nil
        : (experimentFile?.variationsByExperiment ?? [:]).merging(payload?.variationsByExperiment ?? [:]) {
          file, served in file + served.filter { !file.contains($0) }
        })
    var scripts: [Script] = []
    var problems: [ScriptProblem] = []
    for file in files {
      switch ScriptLoader.load(
        path: file, vocabulary: vocabulary, overrides: overrides, scriptsRoot: configuration.scriptsRoot)
      {
      case .success(let script): scripts.append(script)
      case .failure(let failure): problems += failure.problems
      }
    }
    guard problems.isEmpty else {
      for problem in problems { console.err(terminalSafe(problem.description)) }
      console.err("\(problems.count) problem\(problems.count == 1 ? "" : "s") found; no script ran")
      return 2
    }

    let include = Set(configuration.includeTags.flatMap { $0.split(separator: ",").map(String.init) })
    let exclude = Set(configuration.excludeTags.flatMap { $0.split(separator: ",").map(String.init) })
    var selected = scripts.filter { script in
      (include.isEmpty || !include.isDisjoint(with: script.tags)) && exclude.isDisjoint(with: script.tags)
    }
    if let shard {
      selected = selected.enumerated().filter { $0.offset % shard.count == shard.index - 1 }.map(\.element)
    }
    guard !selected.isEmpty else {
      return usage("no script left to run: \(scripts.count) found, none selected by the tags and shard given")
    }

    var sinks: [any AnalyticsSink] = []
    if configuration.appendEvents, configuration.eventsPath == nil {
      return usage("--append adds to the file of --events FILE; give --events too")
    }
    var eventsFile: NDJSONAnalyticsSink?
    if let eventsPath = configuration.eventsPath {
      do {
        let file = try NDJSONAnalyticsSink(
          path: eventsPath, append: configuration.appendEvents, tags: ["source": .string("script")])
        eventsFile = file
        sinks.append(file)
      } catch {
        return usage("\(error)")
      }
    }
    let jobs = configuration.parallelJobs()
    if jobs > 1 {
      return await runInWorkers(
        configuration, scripts: selected.count, jobs: jobs, events: eventsFile, console: console)
    }
    // A worker writes what each script's runs print and record to files of its own, its
    // parts of the reports too.
    let workerOutput = configuration.worker.map { _ in WorkerOutput() }
    let writesJUnit = configuration.junitPath != nil || configuration.worker?.junit == true
    let writesHTML = configuration.htmlPath != nil || configuration.worker?.html == true
    let console = workerOutput?.console ?? console
    let showsTranscript = configuration.format == .text && !configuration.quiet
    // Each output keeps only what it needs: the HTML report the runs it draws, JSON and
    // JUnit each run's text (spooled to a file when large), the rest counts.
    let runner = ScriptRunner(
      registry: registry,
      options: ScriptRunner.Options(
        dataDirectory: configuration.dataDirectory.map { URL(fileURLWithPath: $0) },
        analytics: FanOutAnalyticsSink(sinks), experiments: experimentFile?.experiments ?? [],
        growthBook: payload, backend: backend, capturesScreens: writesHTML,
        keepsSteps: configuration.format == .json || writesJUnit || writesHTML,
        locale: configuration.locale, seed: configuration.seed))
    let transcript = showsTranscript ? TranscriptStream(console: console) : nil
    if let transcript { runner.onStep = { transcript.step($0) } }
    var html = configuration.htmlPath.map { _ in RunHTMLReport.Builder() }
    let json = configuration.format == .json && workerOutput == nil ? Spool() : nil
    let junit = configuration.junitPath != nil && workerOutput == nil ? Spool() : nil
    let encoder = TranscriptFormatter.encoder()
    var runs = 0
    var failures: [(name: String, headline: String)] = []
    // A spool that cannot write (the temporary folder full) fails its report at the end.
    var spoolError: (json: (any Error)?, junit: (any Error)?) = (nil, nil)

    let started = ContinuousClock.now
    let userIndices = configuration.worker?.users ?? 1...(configuration.users ?? 1)
    for (scriptIndex, script) in selected.enumerated() {
      if let worker = configuration.worker, let workerOutput {
        do throws(WriteFailure) {
          try workerOutput.begin(script: scriptIndex, of: worker, json: configuration.format == .json)
          if worker.events {
            eventsFile = try NDJSONAnalyticsSink(
              path: worker.path(scriptIndex, "events"), tags: ["source": .string("script")])
            runner.options.analytics = eventsFile!
          }
        } catch {
          return usage(error.description)
        }
      }
      // Each user's id made as its run starts: a million users are not a million names held.
      for index in userIndices {
        let user = configuration.users == nil ? nil : "user-\(index)"
        // Screens cost time and memory: only a run the report may still draw keeps them.
        if let html { runner.options.capturesScreens = html.drawsNext }
        if let workerOutput, configuration.worker?.html == true {
          runner.options.capturesScreens = workerOutput.drawsNext
        }
        transcript?.begin(name: script.name, file: script.file, user: user ?? script.user)
        let result = await runner.run(script, as: user)
        // Each run's events reach the file as it ends, so a crash later loses none of them.
        eventsFile?.flush()
        transcript?.end(result)
        if !result.passed { console.err(TranscriptFormatter.failure(result)) }
        if let failure = result.failure {
          failures.append((result.name, failure.headline))
          workerOutput?.failed(name: result.name, headline: failure.headline)
        }
        workerOutput?.record(result, encoder: encoder)
        if let json, spoolError.json == nil {
          do {
            try json.append(TranscriptFormatter.jsonScript(result, first: runs == 0, encoder: encoder))
          } catch { spoolError.json = error }
        }
        if let junit, spoolError.junit == nil {
          do { try junit.append(JUnitReport.testcase(result)) } catch { spoolError.junit = error }
        }
        runs += 1
        html?.add(result)
        afterEachRun?(
          RunMemory(
            runs: runs, heldRuns: html?.retained.runs ?? 0,
            heldSteps: (html?.retained.steps ?? 0) + runner.retainedSteps, heldRows: html?.retained.rows ?? 0,
            spooledInMemory: [json, junit].compactMap { $0 }.allSatisfy(\.isInMemory)))
        // Events that cannot be written make the run's data incomplete: it stops here.
        if let failure = eventsFile?.failure { return usage(failure.description) }
      }
    }
    if let workerOutput {
      // The parent joins the files and prints the summary.
      workerOutput.close()
      if let failure = workerOutput.failure { return usage(failure.description) }
      return failures.isEmpty ? 0 : 1
    }
    let elapsed = ContinuousClock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    return finish(
      configuration, runs: runs, failures: failures, seconds: seconds, json: json, junit: junit, html: html,
      spoolError: spoolError, console: console)
  }

  /// The summary or the JSON document, then the JUnit and HTML reports, from what a run
  /// (or the workers of `--jobs`, joined) gathered. Exit 0 all passed, 1 some failed, 2
  /// when a report cannot be written.
  static func finish(
    _ configuration: RunConfiguration, runs: Int, failures: [(name: String, headline: String)],
    seconds: Double, json: Spool?, junit: Spool?, html: RunHTMLReport.Builder?,
    spoolError: (json: (any Error)?, junit: (any Error)?) = (nil, nil), console: Console
  ) -> Int32 {
    switch configuration.format {
    case .text: console.out(TranscriptFormatter.summary(runs: runs, failures: failures, seconds: seconds))
    case .json:
      do {
        if let error = spoolError.json { throw error }
        try SpooledReport.print(
          head: TranscriptFormatter.jsonHead(
            passed: runs - failures.count, failed: failures.count, seconds: seconds),
          body: json!, tail: TranscriptFormatter.jsonTail, to: console.out)
      } catch {
        console.err("error: cannot write the JSON document: \(error.localizedDescription)")
        return 2
      }
    }
    if let junitPath = configuration.junitPath {
      do {
        if let error = spoolError.junit { throw error }
        try SpooledReport.write(
          head: JUnitReport.head(tests: runs, failures: failures.count, seconds: seconds), body: junit!,
          tail: JUnitReport.tail, to: junitPath, as: "the JUnit report")
      } catch let failure as WriteFailure {
        console.err("error: \(failure)")
        return 2
      } catch {
        console.err("error: cannot write the JUnit report to '\(junitPath)': \(error.localizedDescription)")
        return 2
      }
    }
    if let htmlPath = configuration.htmlPath, let html {
      do {
        try OutputFile.write(html.html(seconds: seconds), toFile: htmlPath, as: "the HTML report")
      } catch {
        console.err("error: \(error)")
        return 2
      }
    }
    return failures.isEmpty ? 0 : 1
  }

  /// What a run holds after each script run ends, for tests of its memory: the runs and
  /// steps the outputs keep, the rows of the HTML tables, and whether the spooled JSON
  /// and JUnit are still in memory.
  struct RunMemory: Sendable {
    var runs: Int
    var heldRuns: Int
    var heldSteps: Int
    var heldRows: Int
    var spooledInMemory: Bool
  }

  /// The transcript printed as a run goes: its lines are gathered and printed in pieces
  /// of whole lines, each run's last piece when it ends, so a run of millions of steps
  /// holds at most a piece.
  final class TranscriptStream {
    static let pieceLimit = 1 << 16
    private let console: Console
    private var pending = ""
    private var steps = 0

    init(console: Console) { self.console = console }

    func begin(name: String, file: String, user: String) {
      steps = 0
      add(TranscriptFormatter.header(name: name, file: file, user: user))
    }

    func step(_ step: StepResult) {
      steps += 1
      add(TranscriptFormatter.line(step))
      if pending.utf8.count >= Self.pieceLimit { flush() }
    }

    func end(_ result: ScriptResult) {
      add(TranscriptFormatter.footer(passed: result.passed, steps: steps, seconds: result.durationSeconds))
      flush()
    }

    private func add(_ line: String) {
      if !pending.isEmpty { pending += "\n" }
      pending += line
    }

    private func flush() {
      guard !pending.isEmpty else { return }
      console.out(pending)
      pending = ""
    }
  }

  struct PathError: Error, CustomStringConvertible {
    var description: String
  }

  /// Files as given; a folder gives the `*.yaml` and `*.yml` directly in it (not hidden
  /// ones), in name order.
  static func scriptFiles(_ paths: [String]) throws -> [String] {
    var files: [String] = []
    for path in paths {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw PathError(description: "no such file or folder: \(path)")
      }
      if isDirectory.boolValue {
        let names = try FileManager.default.contentsOfDirectory(atPath: path)
          .filter { !$0.hasPrefix(".") && ($0.hasSuffix(".yaml") || $0.hasSuffix(".yml")) }.sorted()
        files += names.map { (path as NSString).appendingPathComponent($0) }
      } else {
        files.append(path)
      }
    }
    return files
  }
}
