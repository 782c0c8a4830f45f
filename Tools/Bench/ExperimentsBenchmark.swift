import Experiments
import FlowKit
import Foundation
import Onboarding
import Storage
import StrictJSON
import WellflowComposition
import WellflowCore
import WellflowScript

/// Figure 7: experiment assignment as the app does it when a flow starts without a
/// variant, with a targeting condition, on distinct users.
///
/// The experiment is read from an experiment file by the app's own loader
/// (`ExperimentFile.load`), with a condition on the attributes the app provides.
/// Two figures: `FlowExperiment.assign(attributes:)` — GrowthBook's algorithm per call
/// (the same code as `GrowthBook.run`) on the experiment as prepared once when loaded:
/// the condition evaluated on each user's own attributes, the hash, the bucket choice —
/// on attributes shaped as `ExperimentAssigner.attributes` builds them; and
/// `ExperimentAssigner.assignment(for:environment:)`, what the host's variant
/// resolver calls per flow start, which first reads those attributes from the
/// user's SQLite settings.
@MainActor
enum ExperimentsBenchmark {
  static let file = """
    experiments:
      - key: checkin-length-targeted
        flow: checkin
        variations: [full, quick]
        weights: [0.5, 0.5]
        condition:
          skill: {$in: [beginner, intermediate]}
          daysSinceFirstLaunch: {$gte: 1}
    """
  static let skills = ["beginner", "intermediate", "advanced"]

  static func run(_ settings: Settings, _ report: Report) throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("wellflow-experiments-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("targeted.yaml")
    try file.write(to: path, atomically: true, encoding: .utf8)
    let experiments: [FlowExperiment]
    switch ExperimentFile.load(path: path.path, registry: try WellflowApp.makeRegistry()) {
    case .success(let loaded): experiments = loaded.experiments
    case .failure(let failure):
      throw BenchmarkError("the benchmark's experiment file is refused: \(failure.problems)")
    }
    let experiment = experiments[0]
    let repetitions = settings.repetitions(7)

    // Distinct users, attributes as the assigner builds them: id, skill, days since first launch.
    let userCount = 10_000
    let attributes: [[String: JSONValue]] = (0..<userCount).map { index in
      [
        "id": .string("user-\(index + 1)"), "skill": .string(skills[index % skills.count]),
        "daysSinceFirstLaunch": .number(Double(index % 30)),
      ]
    }
    let calls = settings.count(500_000, quick: 20_000)
    progress("[7] FlowExperiment.assign with a condition: \(repetitions) × \(grouped(Double(calls))) calls")
    var checksum = 0
    var included = 0
    for index in 0..<userCount where experiment.assign(attributes: attributes[index]).inExperiment {
      included += 1
    }
    var rates: [Double] = []
    var cpuRates: [Double] = []
    var python = GrowthBookPythonBenchmark(settings)
    for _ in 0..<repetitions {
      let watch = Stopwatch()
      for call in 0..<calls {
        checksum &+= experiment.assign(attributes: attributes[call % userCount]).variationId
      }
      rates.append(Double(calls) / watch.wall / 1e6)
      cpuRates.append(Double(calls) / watch.cpu / 1e6)
      python.measureOnce()
    }
    report.add(
      Figure(
        "7 assignments/s, FlowExperiment.assign with a condition", unit: "M/s", samples: rates,
        goal: .atLeast(5)))
    // On a loaded machine the wall rate drops with the share of a core the loop gets; per
    // CPU-second it does not (one thread: its CPU time is the loop's).
    report.add(
      Figure("7   the same per CPU-second of the loop (load-independent)", unit: "M/s", samples: cpuRates))
    report.add(python.figure())

    // What the variant resolver calls per flow start, with the users' settings in SQLite.
    let database = try WellflowDatabase.open(
      directory: directory.appendingPathComponent("app"), schema: WellflowFeatures.schema)
    let assigner = ExperimentAssigner(
      experiments: experiments, targeting: try WellflowFeatures.makeRegistry().targetingAttributes)
    let now = Date(timeIntervalSince1970: 1_767_650_400)
    let clock = ManualClock(now: now, timeZone: TimeZone(identifier: "UTC")!)
    let environmentCount = 1_000
    var environments: [HostEnvironment] = []
    for index in 0..<environmentCount {
      let store = SQLiteKeyValueStore(database: database, userID: "user-\(index + 1)")
      try store.set(skills[index % skills.count], forKey: OnboardingKeys.skill)
      try AppKeys.recordFirstLaunch(in: store, at: now.addingTimeInterval(-Double(index % 30) * 86_400))
      environments.append(HostEnvironment(userID: "user-\(index + 1)", clock: clock, keyValueStore: store))
    }
    guard let sample = assigner.assignment(for: "checkin", environment: environments[1]), sample.inExperiment
    else {
      throw BenchmarkError(
        "the assigner leaves a targeted user out: its attributes are not what the benchmark set")
    }
    let flowStarts = settings.count(20_000, quick: 1_000)
    progress(
      "[7] ExperimentAssigner.assignment per flow start: \(repetitions) × \(grouped(Double(flowStarts))) calls"
    )
    var starts: [Double] = []
    for _ in 0..<repetitions {
      let start = ContinuousClock.now
      for call in 0..<flowStarts {
        checksum &+=
          assigner.assignment(for: "checkin", environment: environments[call % environmentCount])?
          .variationId ?? -1
      }
      starts.append(Double(flowStarts) / seconds(ContinuousClock.now - start) / 1e6)
    }
    report.add(
      Figure(
        "7   assignments/s per flow start, ExperimentAssigner (attributes read from SQLite)", unit: "M/s",
        // No goal: the 5 M/s one is for the assignment call; this adds two reads of the
        // user's settings from a database file and calendar arithmetic, once per flow start.
        samples: starts))
    report.note(
      "7 \(included) of \(userCount) users pass the condition and are hashed into a variation (checksum \(checksum))"
    )
  }
}
