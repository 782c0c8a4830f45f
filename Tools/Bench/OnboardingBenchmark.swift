import FlowKit
import Foundation
import WellflowCore
import WellflowScript

/// The onboarding example script through the real runner, and the same journey by
/// direct host calls.
///
/// Figure 1: `RunCommand.execute` on Apps/Wellflow/Scripts/onboarding-standard.yaml,
/// in process: what `wellflow run` does after parsing its arguments (the whole app's
/// registry, the script read and parsed, SQLite in memory as for any run without
/// --data-dir: a database an earlier run released, emptied back to the migrated template,
/// as in a folder of scripts or `--users N`; the transcript formatted), N times; journeys
/// per second and CPU per journey. A lone script's whole process is figure 2.
///
/// Figure 3: the scripted journey (ScriptLoader + ScriptRunner, parse included) and
/// the same steps and checks as direct `FlowHost` calls on an `AppSession` with the
/// same storage (SQLite in memory, as the runner uses), alternated one by one in one loop.
@MainActor
enum OnboardingBenchmark {
  static let scriptPath = "Apps/Wellflow/Scripts/onboarding-standard.yaml"

  static func run(_ settings: Settings, _ report: Report) async throws {
    let script = settings.locations.root.appendingPathComponent(scriptPath).path
    guard FileManager.default.fileExists(atPath: script) else {
      throw BenchmarkError("no \(scriptPath) under \(settings.locations.root.path)")
    }
    try await runner(script: script, settings, report)
    try await interpreterAgainstDirect(script: script, settings, report)
  }

  // MARK: Figure 1

  static func runner(script: String, _ settings: Settings, _ report: Report) async throws {
    let journeys = settings.count(40, quick: 5)
    let repetitions = settings.repetitions(7)
    progress("[1] onboarding through RunCommand.execute: \(repetitions) × \(journeys) journeys")
    let configuration = RunConfiguration(paths: [script])
    let console = Console(out: { _ in }, err: { _ in })
    for _ in 0..<3 {
      guard await RunCommand.execute(configuration, console: console) == 0 else {
        throw BenchmarkError("\(scriptPath) does not pass through RunCommand; nothing to time")
      }
    }
    var rates: [Double] = []
    var cpuPerJourney: [Double] = []
    var failed = 0
    for _ in 0..<repetitions {
      let watch = Stopwatch()
      for _ in 0..<journeys where await RunCommand.execute(configuration, console: console) != 0 {
        failed += 1
      }
      let (wall, cpu) = (watch.wall, watch.cpu)
      rates.append(Double(journeys) / wall)
      cpuPerJourney.append(cpu / Double(journeys) * 1_000)
    }
    guard failed == 0 else { throw BenchmarkError("\(failed) journeys failed; figures are meaningless") }
    report.add(
      Figure(
        "1 journeys/s, wellflow run in process (SQLite, all features, parse incl.)", unit: "/s",
        samples: rates,
        goal: .atLeast(2_000)))
    report.add(
      Figure(
        "1 CPU per journey (whole process, all threads)", unit: "ms", samples: cpuPerJourney,
        goal: .atMost(0.5)))
  }

  // MARK: Figure 3

  static func interpreterAgainstDirect(script path: String, _ settings: Settings, _ report: Report)
    async throws
  {
    let pairs = settings.count(20, quick: 4)
    let repetitions = settings.repetitions(5)
    progress("[3] onboarding scripted vs direct, interleaved: \(repetitions) × \(pairs) pairs")
    let registry = try WellflowApp.makeRegistry()
    // The script's user, start and calendar, for the direct side to start from the same place.
    let parsed = try ScriptLoader.load(path: path, vocabulary: ScriptVocabulary(registry: registry)).get()

    func scripted() async throws -> Bool {
      let script = try ScriptLoader.load(path: path, vocabulary: ScriptVocabulary(registry: registry)).get()
      return await ScriptRunner(registry: registry).run(script).passed
    }
    func direct() async throws -> Bool {
      try await directJourney(
        registry: registry, user: parsed.user, start: parsed.startDate, calendar: parsed.calendar)
    }
    for _ in 0..<3 {
      guard try await scripted(), try await direct() else {
        throw BenchmarkError("the scripted or the direct onboarding journey fails; nothing to compare")
      }
    }

    // Wall milliseconds and process CPU milliseconds of every journey, by side (0 scripted, 1 direct).
    var wall: [[Double]] = [[], []]
    var cpu: [[Double]] = [[], []]
    var wallRatios: [Double] = []
    var cpuRatios: [Double] = []
    for repetition in 0..<repetitions {
      var repetitionWall: [[Double]] = [[], []]
      var repetitionCPU: [[Double]] = [[], []]
      for pair in 0..<pairs {
        // Alternate which side goes first, so neither always follows the other.
        for side in (repetition + pair) % 2 == 0 ? [0, 1] : [1, 0] {
          let watch = Stopwatch()
          let passed = side == 0 ? try await scripted() : try await direct()
          let (elapsed, used) = (watch.wall, watch.cpu)
          guard passed else { throw BenchmarkError("an onboarding journey failed mid-benchmark") }
          repetitionWall[side].append(elapsed * 1_000)
          repetitionCPU[side].append(used * 1_000)
        }
      }
      for side in 0...1 {
        wall[side] += repetitionWall[side]
        cpu[side] += repetitionCPU[side]
      }
      wallRatios.append(medianOf(repetitionWall[0]) / medianOf(repetitionWall[1]))
      cpuRatios.append(medianOf(repetitionCPU[0]) / medianOf(repetitionCPU[1]))
    }
    var ratio = Figure(
      "3 interpreter ÷ direct, onboarding, wall (ratio of pooled medians; min–max per repetition)", unit: "×",
      samples: wallRatios, goal: .atMost(3))
    ratio.headline = medianOf(wall[0]) / medianOf(wall[1])
    report.add(ratio)
    // Each side over every journey timed.
    report.add(
      Figure("3   scripted journey, wall (load + parse + run, SQLite)", unit: "ms", samples: wall[0]))
    report.add(Figure("3   direct FlowHost journey, wall (same steps, SQLite)", unit: "ms", samples: wall[1]))
    // Wall time includes waiting on other threads and other work on the machine; CPU
    // time shows what the interpreter itself adds.
    var cpuRatio = Figure(
      "3   interpreter ÷ direct, process CPU time (same journeys)", unit: "×", samples: cpuRatios,
      goal: .atMost(3))
    cpuRatio.headline = medianOf(cpu[0]) / medianOf(cpu[1])
    report.add(cpuRatio)
    report.add(Figure("3   scripted journey, CPU", unit: "ms", samples: cpu[0]))
    report.add(Figure("3   direct FlowHost journey, CPU", unit: "ms", samples: cpu[1]))
  }

  /// onboarding-standard.yaml by hand: the same app (AppSession, SQLite in memory, the
  /// whole registry), the same actions, the same checks, and a settle
  /// after each step as the runner does. False when a check fails.
  static func directJourney(registry: FlowRegistry, user: String, start: Date, calendar: Calendar)
    async throws
    -> Bool
  {
    // The storage the runner gives a script without --data-dir: SQLite in memory from
    // the migrated template or reused from an earlier run (no directory is written).
    let session = AppSession(
      registry: registry, dataDirectory: URL(fileURLWithPath: "/dev/null"),
      clock: ManualClock(now: start, calendar: calendar), userID: user, analytics: DiscardingAnalyticsSink(),
      storage: .sqliteScratch, backend: EmbeddedBackend(databasePath: nil))
    defer { session.close() }
    let host = try session.open()
    func settled() async -> Bool {
      await host.settle()
      return host.takeProblems().isEmpty
    }
    func send(_ action: UserAction) async throws -> Bool {
      try host.send(action)
      return await settled()
    }
    func on(_ id: String) -> Bool { host.screen?.id == id }
    func shows(_ text: String) -> Bool { host.screen?.visibleText.contains { $0.contains(text) } == true }
    func element(_ id: String) -> Element? { host.screen?.element(id) }

    await host.launch()
    guard await settled(), on("onboarding.welcome"), host.top?.flow == "onboarding",
      shows("Welcome to Wellflow")
    else { return false }
    // Optional in the script: back is not available on the first page.
    do { _ = try await send(.back) } catch {}
    guard try await send(.tap("continue")), on("onboarding.features") else { return false }
    guard try await send(.tap("continue")), on("onboarding.skill"), element("continue")?.isEnabled == false,
      element("skill")?.value == ElementValue.none
    else { return false }
    guard try await send(.select("skill", ["intermediate"])), element("continue")?.isEnabled == true,
      element("skill")?.value == .text("intermediate")
    else { return false }
    guard try await send(.back), on("onboarding.features") else { return false }
    guard try await send(.tap("continue")), on("onboarding.skill"),
      element("skill")?.value == .text("intermediate"),
      element("continue")?.isEnabled == true
    else { return false }
    guard try await send(.tap("continue")), on("onboarding.finale"), shows("Let's make it a habit") else {
      return false
    }
    guard try await send(.tap("continue")), on("checkin.pet"),
      !host.stack.contains(where: { $0.flow == "onboarding" }),
      host.latestEndings["onboarding"]?.outcome == .completed
    else { return false }
    let completed = try await host.query("onboarding.completed")
    let skill = try await host.query("onboarding.skill")
    return completed == .bool(true) && skill == .text("intermediate")
  }
}
