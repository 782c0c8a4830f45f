import FlowKit
import Foundation
import WellflowScript
import YAMLTree

/// What the libFuzzer entry points do with an input. The loaders read paths, so each input
/// is written to a file in a private folder that also holds the example sub-scripts
/// (`run: common/…` resolves there).
///
/// Environment (read once):
/// - `WELLFLOW_FUZZ_STRICT=1`: a rejection without a position, or with an empty or
///   multi-line message, traps too, so libFuzzer saves the input.
/// - `WELLFLOW_FUZZ_RUN=1`: inputs that load are also run through the real runner (in
///   memory), as `wellflow run` would; slower, and reaches the runtime.
public enum Harness {
  static let environment = ProcessInfo.processInfo.environment
  static let strict = environment["WELLFLOW_FUZZ_STRICT"] == "1"
  static let runs = environment["WELLFLOW_FUZZ_RUN"] == "1"
  /// Steps (repeats multiplied out) a loaded script may run; a longer one is not run, so
  /// libFuzzer's timeout reports real hangs, not `repeat: {times: 1e9}`.
  static let runBudget = 2_000

  /// The repository the harness was built from (Tools/Fuzz/Sources/WellflowFuzz/Harness.swift).
  static let repository = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  static let registry: FlowRegistry = {
    do { return try WellflowApp.makeRegistry() } catch {
      fatalError("the app's features do not register: \(error)")
    }
  }()

  /// A private folder with the example sub-scripts in `common/`.
  static let folder: String = {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("wellflow-fuzz-\(ProcessInfo.processInfo.processIdentifier)")
    let common = repository.appendingPathComponent("Apps/Wellflow/Scripts/common")
    try? FileManager.default.createDirectory(
      at: folder.appendingPathComponent("common"), withIntermediateDirectories: true)
    for name in (try? FileManager.default.contentsOfDirectory(atPath: common.path)) ?? [] {
      try? FileManager.default.copyItem(
        at: common.appendingPathComponent(name), to: folder.appendingPathComponent("common/\(name)"))
    }
    atexit { try? FileManager.default.removeItem(atPath: Harness.folder) }
    return folder.path
  }()

  /// The example experiment file, so a script may force its variations.
  static let checkinExperiments: ExperimentFile? = {
    let path = repository.appendingPathComponent("Apps/Wellflow/Experiments/checkin-length.yaml").path
    return try? ExperimentFile.load(path: path, registry: registry).get()
  }()

  static let experimentScript = repository.appendingPathComponent(
    "Apps/Wellflow/Scripts/experiment-checkin.yaml"
  )
  .path

  /// A script: loaded (with the check-in experiment file when it forces experiments), and
  /// run when `WELLFLOW_FUZZ_RUN=1`.
  public static func fuzzScript(_ input: UnsafeBufferPointer<UInt8>) {
    let path = folder + "/input.yaml"
    write(input, to: path)
    let experiments = contains(input, "experiments") ? checkinExperiments : nil
    let vocabulary = ScriptVocabulary(
      registry: experiments?.registry ?? registry, experimentVariations: experiments?.variationsByExperiment)
    switch ScriptLoader.load(path: path, vocabulary: vocabulary) {
    case .failure(let failure): check(failure.problems)
    case .success(let script):
      guard runs, workload(script.steps) <= runBudget else { return }
      let runRegistry = experiments?.registry ?? registry
      let experimentList = experiments?.experiments ?? []
      runOnMainActor {
        let runner = ScriptRunner(
          registry: runRegistry,
          options: ScriptRunner.Options(storage: .sqliteScratch, experiments: experimentList))
        check(await runner.run(script))
      }
    }
  }

  /// An experiment file: loaded, and when `WELLFLOW_FUZZ_RUN=1` the check-in experiment
  /// script run as two users with it.
  public static func fuzzExperimentFile(_ input: UnsafeBufferPointer<UInt8>) {
    let path = folder + "/experiments.yaml"
    write(input, to: path)
    switch ExperimentFile.load(path: path, registry: registry) {
    case .failure(let failure): check(failure.problems)
    case .success(let file):
      guard runs else { return }
      let vocabulary = ScriptVocabulary(
        registry: file.registry, experimentVariations: file.variationsByExperiment)
      switch ScriptLoader.load(path: experimentScript, vocabulary: vocabulary) {
      case .failure(let failure): check(failure.problems)
      case .success(let script):
        runOnMainActor {
          let runner = ScriptRunner(
            registry: file.registry,
            options: ScriptRunner.Options(storage: .sqliteScratch, experiments: file.experiments))
          for user in ["user-1", "user-2"] { check(await runner.run(script, as: user)) }
        }
      }
    }
  }

  static func write(_ input: UnsafeBufferPointer<UInt8>, to path: String) {
    guard FileManager.default.createFile(atPath: path, contents: Data(buffer: input)) else {
      fatalError("cannot write the input to \(path)")
    }
  }

  static func contains(_ input: UnsafeBufferPointer<UInt8>, _ word: String) -> Bool {
    let needle = Array(word.utf8)
    guard input.count >= needle.count else { return false }
    return (0...(input.count - needle.count)).contains { start in
      needle.indices.allSatisfy { input[start + $0] == needle[$0] }
    }
  }

  /// Every rejection names a position and says, on one line, what is wrong.
  static func check(_ problems: [ScriptProblem]) {
    guard strict else { return }
    if problems.isEmpty { fatalError("rejected without naming a problem") }
    for problem in problems {
      let position = problem.position
      if position.line < 1 || position.column < 1 || position.file.isEmpty {
        fatalError("problem without a position: \(position): \(problem.message.debugDescription)")
      }
      if problem.message.isEmpty { fatalError("problem without a message at \(position)") }
      if problem.message.contains(where: \.isNewline) {
        fatalError("message spans lines: \(position): \(problem.message.debugDescription)")
      }
    }
  }

  static func check(_ result: ScriptResult) {
    guard strict, let failure = result.failure else { return }
    if failure.position.line < 1 || failure.position.column < 1 {
      fatalError("run failed without a position: \(failure.headline.debugDescription)")
    }
  }

  /// Steps a script runs, repeats multiplied out (saturating); an empty repeat body counts
  /// one step a round.
  static func workload(_ steps: [Step]) -> Int { Step.workload(of: steps) }

  /// Runs `body` on the main actor and waits for it, turning the main run loop (libFuzzer
  /// calls us on the main thread, which the main actor needs).
  static func runOnMainActor(_ body: @escaping @MainActor @Sendable () async -> Void) {
    let done = Flag()
    Task { @MainActor in
      await body()
      done.set()
    }
    while !done.isSet { _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01)) }
  }
}

final class Flag: @unchecked Sendable {
  private let lock = NSLock()
  private var value = false

  var isSet: Bool { lock.withLock { value } }
  func set() { lock.withLock { value = true } }
}
