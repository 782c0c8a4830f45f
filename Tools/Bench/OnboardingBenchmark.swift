import FlowKit
import Foundation
import Onboarding
import WellflowCore

/// Runs the standard onboarding journey N times through the script interpreter and
/// through direct coordinator calls, in memory, and prints journeys per second.
@MainActor
enum OnboardingBenchmark {
  static let script = """
    name: Onboarding journey (benchmark)
    steps:
      - launch
      - expect: {screen: onboarding.welcome}
      - tap: continue
      - expect: {screen: onboarding.features}
      - tap: continue
      - expect: {screen: onboarding.skill, disabled: continue}
      - select: {skill: intermediate}
      - tap: continue
      - expect: {screen: onboarding.finale}
      - tap: continue
      - expect: {idle: true, flow: onboarding, outcome: completed}
      - expect: {data: {onboarding.completed: true, onboarding.skill: intermediate}}
    """

  static func run(scale: Double) async throws {
    let journeys = max(100, Int(10_000 * scale))
    // The feature on its own, as a team developing it would run it: with the whole app
    // the daily check-in follows onboarding and the journey would measure two flows.
    var registry = FlowRegistry()
    try registry.register(OnboardingFeature.self)
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("wellflow-bench-onboarding.yaml")
    try script.write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    let loaded = try ScriptLoader.load(path: file.path, vocabulary: ScriptVocabulary(registry: registry))
      .get()
    let runner = ScriptRunner(registry: registry, options: ScriptRunner.Options(storage: .memory))

    var failures = 0
    let scripted = await measureMedianAsync(runs: 5) {
      for _ in 0..<journeys where await !runner.run(loaded).passed { failures += 1 }
    }
    let direct = try measureMedian(runs: 5) {
      for _ in 0..<journeys where try !directJourney() { failures += 1 }
    }
    guard failures == 0 else {
      print("onboarding benchmark: \(failures) journeys failed; figures are meaningless")
      return
    }
    let scriptedRate = Double(journeys) / scripted
    let directRate = Double(journeys) / direct
    print(
      "onboarding journey, \(grouped(Double(journeys))) journeys per run, median of 5 runs (in memory, one core)"
    )
    print(
      "  script interpreter: \(grouped(scriptedRate)) journeys/s (\(String(format: "%.1f", scripted / Double(journeys) * 1e6)) µs each)  target ≥ 10,000/s"
    )
    print(
      "  direct calls:       \(grouped(directRate)) journeys/s (\(String(format: "%.1f", direct / Double(journeys) * 1e6)) µs each)"
    )
    print("  interpreter / direct: \(String(format: "%.2f", scripted / direct))×  target ≤ 3×")
  }

  /// The same journey and checks, calling the coordinator directly.
  static func directJourney() throws -> Bool {
    let store = InMemoryKeyValueStore()
    guard store.string(forKey: OnboardingKeys.completed) == nil else { return false }
    let coordinator = OnboardingCoordinator(variant: .standard, store: store)
    var outcome: SkillLevel?
    coordinator.start { result in
      if case .completed(let skill) = result { outcome = skill }
    }
    guard coordinator.screen.id == "onboarding.welcome" else { return false }
    try coordinator.send(.tap("continue"))
    guard coordinator.screen.id == "onboarding.features" else { return false }
    try coordinator.send(.tap("continue"))
    guard coordinator.screen.id == "onboarding.skill",
      coordinator.screen.element("continue")?.isEnabled == false
    else { return false }
    try coordinator.send(.select("skill", ["intermediate"]))
    try coordinator.send(.tap("continue"))
    guard coordinator.screen.id == "onboarding.finale" else { return false }
    try coordinator.send(.tap("continue"))
    let completed = store.string(forKey: OnboardingKeys.completed) == "true"
    return outcome == .intermediate && completed
      && store.string(forKey: OnboardingKeys.skill) == "intermediate"
  }
}
