import Experiments
import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore
import WellflowScript
import YAMLTree

/// Seeded fuzzing of the two loaders `wellflow run` reads user files with: thousands of
/// mutants of the example scripts and experiment files (see `Mutator`), each loaded, and
/// those that load run through the real runner. For every mutant: nothing traps, loading
/// and running finish, and every rejection names a position (line and column ≥ 1) with a
/// one-line message.
///
/// The same seed gives the same mutants everywhere. A trap kills the test process; to find
/// which mutant trapped, dump the mutants and replay them in child processes:
/// `WELLFLOW_FUZZ_DUMP=/tmp/mutants swift test --filter FuzzTests`, then
/// `Tools/Fuzz/replay-mutants.sh /tmp/mutants` (see Tools/Fuzz/README.md).
/// `WELLFLOW_FUZZ_MUTANTS=N` and `WELLFLOW_FUZZ_SEED=S` change the run's size and seed;
/// `WELLFLOW_FUZZ_SKIP=s240,sx52` leaves mutants out while their fix is under way.
///
/// Each test prints its counts and where the time went (`fuzz: …`). Measured in a debug
/// build on a shared 2-core machine: 4,461 mutants (2,250 scripts, 2,211 experiment
/// files), 394 of them run, in 10 s with the machine quiet and 55 s at a load average of 11
/// (13 s of CPU either way; the two tests share the main actor).
@MainActor
@Suite("Fuzzing the script and experiment loaders")
struct FuzzTests {
  static let repository = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let scriptsFolder = repository.appendingPathComponent("Apps/Wellflow/Scripts")
  static let experimentsFolder = repository.appendingPathComponent("Apps/Wellflow/Experiments")

  static let environment = ProcessInfo.processInfo.environment
  static let seed = environment["WELLFLOW_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0x5745_4C4C_464C_4F57
  static let dumpFolder = environment["WELLFLOW_FUZZ_DUMP"]
  /// Mutants not to check, by manifest id (`s240,e17`): those that trap while a fix is pending.
  static let skipped = Set((environment["WELLFLOW_FUZZ_SKIP"] ?? "").split(separator: ",").map(String.init))
  /// Random mutants per loader (the sweep comes on top).
  static let mutants = environment["WELLFLOW_FUZZ_MUTANTS"].flatMap { Int($0) } ?? 2_000
  /// Steps a loaded mutant may run (repeats multiplied out); bigger ones are checked, not run,
  /// so `repeat: {times: 1e15, …}` cannot hang the suite.
  static let runBudget = 2_000

  let workspace = Workspace()

  // MARK: scripts

  @Test func scriptMutantsLoadOrAreRejectedWithPositions() async throws {
    var run = FuzzRun(what: "script")
    let registry = try WellflowApp.makeRegistry()
    let seeds = try Self.scriptSeeds()
    // The example tree, so `run: common/…` resolves next to the mutant.
    for seed in seeds { workspace.write("scripts/" + seed.name, String(decoding: seed.bytes, as: UTF8.self)) }
    let experimentFiles = try [
      "checkin": ExperimentFile.load(
        path: Self.experimentsFolder.appendingPathComponent("checkin-length.yaml").path, registry: registry
      ).get(),
      "onboarding": ExperimentFile.load(
        path: Self.experimentsFolder.appendingPathComponent("onboarding-length.yaml").path, registry: registry
      ).get(),
    ]
    let cases = run.timed(.generate) { Self.scriptCases(seeds) }
    var manifest: [String] = []

    for item in cases where !Self.skipped.contains(item.id) {
      if let dumpFolder = Self.dumpFolder {
        manifest.append(try Self.dumpScript(item, seeds: seeds, into: dumpFolder))
        continue
      }
      let path: String
      if item.asSubScript {
        try Data(item.mutant.bytes).write(
          to: URL(fileURLWithPath: workspace.path("scripts/" + item.seed.name)))
        path = workspace.write("scripts/fuzz-wrapper.yaml", Self.wrapper(for: item.seed.name))
      } else {
        path = workspace.path("scripts/fuzz-mutant.yaml")
        try Data(item.mutant.bytes).write(to: URL(fileURLWithPath: path))
      }
      defer {
        if item.asSubScript {
          workspace.write("scripts/" + item.seed.name, String(decoding: item.seed.bytes, as: UTF8.self))
        }
      }
      let experiments = item.experiment.flatMap { experimentFiles[$0] }
      let vocabulary = ScriptVocabulary(
        registry: experiments?.registry ?? registry, experimentVariations: experiments?.variationsByExperiment
      )

      switch run.timed(.load, { ScriptLoader.load(path: path, vocabulary: vocabulary) }) {
      case .failure(let failure):
        run.rejected += 1
        run.check(failure.problems, item.label)
        // Now and then the whole command, as people run it: exit 2 and positioned lines.
        if run.rejected % 16 == 0 {
          await run.checkCommand(path: path, experiments: experiments?.path, item.label)
        }
      case .success(let script):
        run.loaded += 1
        // Every sweep mutant runs, every other random one (the runs dominate the time).
        guard item.isSweep || run.loaded % 2 == 1 else { continue }
        let workload = Self.workload(script.steps)
        guard workload <= Self.runBudget else {
          run.notRun.append("\(item.label) (\(workload) steps)")
          continue
        }
        let runner = ScriptRunner(
          registry: experiments?.registry ?? registry,
          options: ScriptRunner.Options(storage: .sqliteScratch, experiments: experiments?.experiments ?? []))
        let started = ContinuousClock.now
        run.check(await runner.run(script), item.label)
        run.add(.run, since: started)
        run.ran += 1
        if run.loaded % 40 == 1 {
          await run.checkCommand(path: path, experiments: experiments?.path, item.label)
        }
      }
    }
    try finish(run, manifest: manifest)
  }

  // MARK: experiment files

  @Test func experimentMutantsLoadOrAreRejectedWithPositions() async throws {
    var run = FuzzRun(what: "experiment file")
    let registry = try WellflowApp.makeRegistry()
    let seeds = try Self.experimentSeeds()
    let scripts = ["experiment-checkin.yaml", "experiment-onboarding.yaml"].map {
      Self.scriptsFolder.appendingPathComponent($0).path
    }
    let cases = run.timed(.generate) { Self.experimentCases(seeds) }
    var manifest: [String] = []
    let path = workspace.path("experiments.yaml")

    for item in cases where !Self.skipped.contains(item.id) {
      if let dumpFolder = Self.dumpFolder {
        let file = "\(dumpFolder)/experiments/\(item.id).yaml"
        try FileManager.default.createDirectory(
          atPath: "\(dumpFolder)/experiments", withIntermediateDirectories: true)
        try Data(item.mutant.bytes).write(to: URL(fileURLWithPath: file))
        manifest.append(
          [item.id, scripts.joined(separator: " "), file, Self.oneLine(item.label)].joined(separator: "\t"))
        continue
      }
      try Data(item.mutant.bytes).write(to: URL(fileURLWithPath: path))

      switch run.timed(.load, { ExperimentFile.load(path: path, registry: registry) }) {
      case .failure(let failure):
        run.rejected += 1
        run.check(failure.problems, item.label)
        if run.rejected % 16 == 0 {
          await run.checkCommand(path: scripts[0], experiments: path, item.label)
        }
      case .success(let file):
        run.loaded += 1
        guard item.isSweep || run.loaded % 2 == 1 else { continue }
        // An experiment script, with the mutant choosing the user's variant.
        let script = scripts[run.loaded % scripts.count]
        let vocabulary = ScriptVocabulary(
          registry: file.registry, experimentVariations: file.variationsByExperiment)
        switch ScriptLoader.load(path: script, vocabulary: vocabulary) {
        case .failure(let failure): run.check(failure.problems, item.label + " (loading \(script))")
        case .success(let loaded):
          let runner = ScriptRunner(
            registry: file.registry,
            options: ScriptRunner.Options(storage: .sqliteScratch, experiments: file.experiments))
          let started = ContinuousClock.now
          // A different user each time, so hashing puts them in different variations.
          run.check(await runner.run(loaded, as: "user-\(run.loaded)"), item.label)
          run.add(.run, since: started)
        }
        run.ran += 1
        if run.loaded % 40 == 1 {
          await run.checkCommand(path: script, experiments: path, item.label)
        }
      }
    }
    try finish(run, manifest: manifest)
  }

  // MARK: mutants

  /// One input to check: a mutant of a seed, and how to load it.
  struct Case {
    /// `s12`/`e12` for random mutants, `sx12`/`ex12` for the sweep (the manifest id).
    var id: String
    var seed: Seed
    var mutant: Mutant
    /// A mutated sub-script, run from a wrapper script.
    var asSubScript = false
    /// The example experiment file to load the script with (`checkin`, `onboarding`).
    var experiment: String?

    var label: String { "\(id) (\(seed.name)): \(mutant.operations.joined(separator: "; "))" }
    var isSweep: Bool { id.hasPrefix("sx") || id.hasPrefix("ex") }
  }

  /// Random mutants of every seed in turn, then the sweep.
  static func scriptCases(_ seeds: [Seed]) -> [Case] {
    var mutator = Mutator(seed: seed, donors: seeds.map(\.bytes))
    var cases: [Case] = []
    for number in 0..<mutants {
      let seed = seeds[number % seeds.count]
      var item = Case(id: "s\(number)", seed: seed, mutant: mutator.mutate(seed.bytes, for: .script))
      // Scripts about experiments get their file; others now and then, so `experiments:` is reachable.
      if seed.name.hasPrefix("experiment-") || mutator.rng.chance(15) {
        item.experiment = seed.name.contains("onboarding") ? "onboarding" : "checkin"
      }
      item.asSubScript = seed.name.hasPrefix("common/") && mutator.rng.chance(50)
      cases.append(item)
    }
    return cases + scriptSweep(seeds)
  }

  static func experimentCases(_ seeds: [Seed]) -> [Case] {
    var mutator = Mutator(seed: seed ^ 0xE8, donors: seeds.map(\.bytes))
    var cases = (0..<mutants).map { number in
      let seed = seeds[number % seeds.count]
      return Case(id: "e\(number)", seed: seed, mutant: mutator.mutate(seed.bytes, for: .experiment))
    }
    cases += experimentSweep(seeds)
    return cases
  }

  /// Every extreme value in the slots where it can do harm, in files that otherwise load and
  /// run: random mutants seldom reach the runtime with one, since most are rejected for
  /// something else.
  static func scriptSweep(_ seeds: [Seed]) -> [Case] {
    var cases: [Case] = []
    func add(_ seedName: String, _ what: String, _ change: (String) -> String) {
      guard let seed = seeds.first(where: { $0.name == seedName }) else { return }
      let text = change(String(decoding: seed.bytes, as: UTF8.self))
      cases.append(
        Case(id: "sx\(cases.count)", seed: seed, mutant: Mutant(bytes: Array(text.utf8), operations: [what])))
    }
    func firstStep(_ step: String) -> (String) -> String {
      {
        $0.replacingOccurrences(
          of: "steps:\n", with: "steps:\n  - \(step)\n", options: [], range: $0.range(of: "steps:\n"))
      }
    }
    func replacing(_ pattern: String, _ replacement: String) -> (String) -> String {
      { text in
        guard let range = text.range(of: pattern, options: .regularExpression) else { return text }
        return text.replacingCharacters(in: range, with: replacement)
      }
    }
    let timed = [
      "checkin-first-day.yaml", "mood-several-days.yaml", "checkin-saved-data.yaml", "sync-journal.yaml",
    ]
    for (index, date) in Mutator.dates.enumerated() {
      // In place of the script's own start, or added where it has none.
      add(timed[index % timed.count], "start: \(date)") { text in
        text.contains("\nstart: ")
          ? replacing("(?m)^start: .*$", "start: \(date)")(text) : "start: \(date)\n" + text
      }
      add("sync-mood-offline-days.yaml", "start: \(date) added", { "start: \(date)\n" + $0 })
    }
    for (index, duration) in Mutator.durations.enumerated() {
      add(timed[index % timed.count], "advance: \(duration) first", firstStep("advance: \(duration)"))
      add("checkin-second-day.yaml", "advance: \(duration) first", firstStep("advance: \(duration)"))
    }
    for number in Mutator.numbers {
      add(
        "mood-several-days.yaml", "repeat \(number) times",
        firstStep("repeat: {times: \(number), steps: [{advance: 1d}]}"))
      add(
        "checkin-first-day.yaml", "set score \(number)",
        replacing("set: \\{score: [0-9]+\\}", "set: {score: \(number)}"))
      add(
        "mood-backdated.yaml", "expect mood.count \(number)",
        replacing("mood.count: 1", "mood.count: \(number)"))
    }
    for date in Mutator.dates + [
      "0001-01-01", "9999-12-31", "2026-02-30", "99999-01-01", "2026-13-01", "-1-01-01",
    ] {
      add("mood-backdated.yaml", "enter date \(date)", replacing("date: \"[^\"]*\"", "date: \"\(date)\""))
    }
    return cases
  }

  static func experimentSweep(_ seeds: [Seed]) -> [Case] {
    var cases: [Case] = []
    guard let seed = seeds.first(where: { $0.name == "every-field.yaml" }) else { return [] }
    let text = String(decoding: seed.bytes, as: UTF8.self)
    func add(_ what: String, _ old: String, _ new: String) {
      let changed = text.replacingOccurrences(of: old, with: new)
      cases.append(
        Case(
          id: "ex\(cases.count)", seed: seed, mutant: Mutant(bytes: Array(changed.utf8), operations: [what])))
    }
    for number in Mutator.numbers {
      add("coverage: \(number)", "coverage: 0.9", "coverage: \(number)")
      add("weights [\(number), 0.6]", "weights: [0.4, 0.6]", "weights: [\(number), 0.6]")
      add("hashVersion: \(number)", "hashVersion: 2", "hashVersion: \(number)")
      add(
        "namespace [n, \(number), 1]", "namespace: [onboarding, 0, 0.5]",
        "namespace: [onboarding, \(number), 1]")
      add("daysSinceFirstLaunch >= \(number)", "$gte: 0", "$gte: \(number)")
    }
    for condition in Mutator.conditions {
      add(
        "condition: \(condition)", "condition: {skill: {$exists: false}, id: {$regex: \"^user-[0-9]+$\"}}",
        "condition: \(condition)")
    }
    return cases
  }

  // MARK: support

  private func finish(_ run: FuzzRun, manifest: [String]) throws {
    if let dumpFolder = Self.dumpFolder {
      let file = "\(dumpFolder)/manifest-\(run.what.replacingOccurrences(of: " ", with: "-")).tsv"
      try Data((manifest.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: file))
      print("fuzz: wrote \(manifest.count) \(run.what) mutants to \(dumpFolder)")
      return
    }
    print(run.summary())
    // One issue a kind of violation, with its count and first example.
    let kinds = Dictionary(grouping: run.violations, by: \.kind)
    for (kind, examples) in kinds.sorted(by: { $0.value.count > $1.value.count }).prefix(30) {
      Issue.record(Comment(rawValue: "\(examples.count)× \(kind)\n  first: \(examples[0].detail)"))
    }
    #expect(
      run.violations.isEmpty,
      "\(run.violations.count) \(run.what) mutants broke a rule, \(kinds.count) kinds (recorded above)")
  }

  struct Seed {
    var name: String
    var bytes: [UInt8]
  }

  /// Every example script (sub-scripts as `common/…`), plus one that uses every command.
  static func scriptSeeds() throws -> [Seed] {
    let enumerator = FileManager.default.enumerator(atPath: scriptsFolder.path)
    var names: [String] = []
    while let name = enumerator?.nextObject() as? String {
      if name.hasSuffix(".yaml") { names.append(name) }
    }
    var seeds = try names.sorted().map { name in
      Seed(name: name, bytes: Array(try Data(contentsOf: scriptsFolder.appendingPathComponent(name))))
    }
    seeds.append(Seed(name: "every-command.yaml", bytes: Array(everyCommand.utf8)))
    return seeds
  }

  static func experimentSeeds() throws -> [Seed] {
    let names = try FileManager.default.contentsOfDirectory(atPath: experimentsFolder.path)
      .filter { $0.hasSuffix(".yaml") }.sorted()
    var seeds = try names.map { name in
      Seed(name: name, bytes: Array(try Data(contentsOf: experimentsFolder.appendingPathComponent(name))))
    }
    seeds.append(Seed(name: "every-field.yaml", bytes: Array(everyField.utf8)))
    return seeds
  }

  static let everyCommand = """
    name: Every command once
    tags: [fuzz]
    user: fuzz
    start: 2026-03-29T01:30
    timezone: Europe/Berlin
    env: {SKILL: beginner, SCORE: 6}
    steps:
      - launch
      - run: {file: common/complete-onboarding.yaml, env: {SKILL: "${SKILL}"}}
      - expect: {screen: checkin.pet, flow: checkin, idle: false, alert: null}
      - tap: begin
      - set: {score: 8}
      - expect: {value: {score: {min: 1, max: 10}}, text: "Pleasant"}
      - tap: continue
      - select: {labels: [grateful, calm]}
      - select: {emotion: happy}
      - back
      - close
      - label: maybe an alert
        optional: true
        tap: exit
      - advance: 90m
      - advance: 1d
      - network: offline
      - relaunch: {clearState: false}
      - repeat:
          times: 2
          steps:
            - start: {flow: mood.log, trigger: manual}
            - set:
                score: ${SCORE}
            - tap: save
            - advance: 1d
      - if: {data: {mood.count: 2}}
        then: [sync]
        else: [{expect: {data: {mood.count: {min: 0}}}}]
      - network: online
      - sync
      - expect: {data: {mood.count: 2, outbox.pending: 0}}
      - run: {file: common/log-mood.yaml, env: {SCORE: 4, DAY: "2026-03-01"}}
      - relaunch
    """

  static let everyField = """
    variants:
      onboarding:
        brief: {steps: [skill, finale]}
      checkin:
        mini: {steps: [sensing, acting]}
    experiments:
      - key: onboarding-length
        flow: onboarding
        variations: [standard, brief]
        weights: [0.4, 0.6]
        coverage: 0.9
        hashVersion: 2
        condition: {skill: {$exists: false}, id: {$regex: "^user-[0-9]+$"}}
        hashAttribute: id
        seed: s1
        namespace: [onboarding, 0, 0.5]
      - key: checkin-length
        flow: checkin
        variations: [full, quick, mini]
        weights: [0.34, 0.33, 0.33]
        condition: {$or: [{daysSinceFirstLaunch: {$gte: 0}}, {skill: {$in: [beginner, experienced]}}]}
    """

  /// A top-level script that runs the sub-script `name` (mutated in place).
  static func wrapper(for name: String) -> String {
    """
    name: Runs a mutated sub-script
    steps:
      - launch
      - run: {file: \(name), env: {SCORE: 7, DAY: "2026-01-04", SKILL: beginner, EMOTION: happy}}
    """
  }

  /// The mutant as files a child process can run, and its manifest line:
  /// id, scripts to run, experiment file or `-`, what it is.
  static func dumpScript(_ item: Case, seeds: [Seed], into folder: String) throws -> String {
    let directory = item.asSubScript ? "\(folder)/scripts/\(item.id)" : "\(folder)/scripts"
    let manager = FileManager.default
    if item.asSubScript || !manager.fileExists(atPath: "\(directory)/common") {
      try manager.createDirectory(atPath: "\(directory)/common", withIntermediateDirectories: true)
      for common in seeds where common.name.hasPrefix("common/") {
        try Data(common.bytes).write(to: URL(fileURLWithPath: "\(directory)/\(common.name)"))
      }
    }
    let script: String
    if item.asSubScript {
      try Data(item.mutant.bytes).write(to: URL(fileURLWithPath: "\(directory)/\(item.seed.name)"))
      script = "\(directory)/wrapper.yaml"
      try Data(wrapper(for: item.seed.name).utf8).write(to: URL(fileURLWithPath: script))
    } else {
      script = "\(directory)/\(item.id).yaml"
      try Data(item.mutant.bytes).write(to: URL(fileURLWithPath: script))
    }
    let experimentFile = item.experiment.map {
      experimentsFolder.appendingPathComponent("\($0)-length.yaml").path
    }
    return [item.id, script, experimentFile ?? "-", oneLine(item.label)].joined(separator: "\t")
  }

  /// The text on one line, at most 1,000 characters (for the manifest).
  static func oneLine(_ text: String) -> String {
    String(
      text.unicodeScalars.prefix(1_000).map {
        $0.properties.isWhitespace || $0.value < 32 ? " " : Character($0)
      })
  }

  /// How many steps a script runs, repeats multiplied out (saturating), an empty repeat
  /// body counted as one step a round.
  static func workload(_ steps: [Step]) -> Int { Step.workload(of: steps) }
}

/// What one fuzz test saw, and the rules every mutant must keep.
@MainActor
struct FuzzRun {
  enum Phase: String, CaseIterable { case generate, load, run, command }

  /// A broken rule: its kind (the rule and the message's first words, for grouping) and
  /// the mutant with the whole problem.
  struct Violation {
    var kind: String
    var detail: String
  }

  let what: String
  let started = ContinuousClock.now
  var loaded = 0
  var rejected = 0
  var ran = 0
  var commands = 0
  var notRun: [String] = []
  var violations: [Violation] = []
  var time: [Phase: Duration] = [:]

  init(what: String) { self.what = what }

  mutating func timed<T>(_ phase: Phase, _ body: () throws -> T) rethrows -> T {
    let started = ContinuousClock.now
    defer { add(phase, since: started) }
    return try body()
  }

  mutating func add(_ phase: Phase, since started: ContinuousClock.Instant) {
    time[phase, default: .zero] += ContinuousClock.now - started
  }

  func summary() -> String {
    func seconds(_ duration: Duration) -> String {
      let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
      return String(format: "%.1f s", value)
    }
    let phases = Phase.allCases.map { "\($0.rawValue) \(seconds(time[$0] ?? .zero))" }.joined(separator: ", ")
    return
      "fuzz: \(loaded + rejected) \(what) mutants in \(seconds(ContinuousClock.now - started)) (\(phases))"
      + ": \(rejected) rejected, \(loaded) loaded, \(ran) run, \(commands) through `wellflow run`,"
      + " \(notRun.count) too long to run, \(violations.count) broke a rule"
      + notRun.prefix(3).map { "\n  not run: \($0)" }.joined()
  }

  mutating func violation(_ rule: String, _ message: String, _ label: String) {
    // The message's words up to the first quoted or numbered part name its kind.
    let shape = message.prefix { $0 != "'" && $0 != "\"" && !$0.isNumber && !$0.isNewline }.prefix(70)
    violations.append(
      Violation(kind: "\(rule): \(shape)", detail: "\(Self.short(label)) → \(Self.short(message))"))
  }

  /// A rejection names a place and says what is wrong, on one line.
  mutating func check(_ problems: [ScriptProblem], _ label: String) {
    if problems.isEmpty { violation("rejected without naming a problem", "", label) }
    for problem in problems {
      let position = problem.position
      if position.line < 1 || position.column < 1 || position.file.isEmpty {
        violation("problem without a position", "\(position): \(problem.message)", label)
      }
      if problem.message.trimmingCharacters(in: .whitespaces).isEmpty {
        violation("problem without a message", "\(position)", label)
      }
      if let newline = problem.message.unicodeScalars.first(where: { Character($0).isNewline }) {
        violation(
          "message spans lines (U+\(String(newline.value, radix: 16, uppercase: true)))", problem.message,
          label)
      }
    }
  }

  /// A run that fails says where.
  mutating func check(_ result: ScriptResult, _ label: String) {
    if let failure = result.failure {
      if failure.position.line < 1 || failure.position.column < 1 {
        violation("run failed without a position", failure.headline, label)
      }
      if failure.message.isEmpty { violation("run failed without a message", "", label) }
    }
    for step in result.steps where step.position.line < 1 || step.position.column < 1 {
      violation("step without a position", step.summary, label)
    }
  }

  /// `wellflow run` in-process: exit 2 with one `file:line:column: message` line per problem
  /// and a count, or 0/1 when the mutant loads.
  mutating func checkCommand(path: String, experiments: String?, _ label: String) async {
    commands += 1
    let started = ContinuousClock.now
    let outcome = await wellflowRun([path]) { $0.experimentsPath = experiments }
    add(.command, since: started)
    switch outcome.code {
    case 0, 1: return
    case 2:
      guard let last = outcome.err.last, last.contains("found") else {
        violation("`wellflow run` exited 2 without a problem count", outcome.errText, label)
        return
      }
      for line in outcome.err.dropLast() where !Self.isPositioned(line) {
        violation("`wellflow run` printed a line that is not file:line:column: message", line, label)
      }
    default:
      violation("`wellflow run` exited \(outcome.code)", outcome.errText, label)
    }
  }

  /// `file:line:column: message`, line and column ≥ 1, on one line.
  static func isPositioned(_ line: String) -> Bool {
    guard !line.contains(where: \.isNewline) else { return false }
    let parts = line.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
    guard parts.count == 4, !parts[0].isEmpty, let row = Int(parts[1]), let column = Int(parts[2]),
      row >= 1, column >= 1, parts[3].hasPrefix(" "), parts[3].count > 1
    else { return false }
    return true
  }

  /// The text quoted, with every line break and control character escaped (so it shows,
  /// and the report stays one line an issue), at most 300 characters.
  static func short(_ text: String) -> String {
    var escaped = "\""
    for scalar in text.unicodeScalars.prefix(300) {
      if scalar.properties.generalCategory == .control || Character(scalar).isNewline
        || scalar.properties.generalCategory == .format
      {
        escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
      } else {
        escaped.unicodeScalars.append(scalar)
      }
    }
    return escaped + (text.unicodeScalars.count > 300 ? "…\"" : "\"")
  }
}
