import Foundation

/// Figure 10: the path an experiment takes, each as the release `wellflow` process (wait4's
/// CPU, wall and peak RSS of the whole process, its workers included):
///
/// - a population's CPU with `--events FILE` against the same population without
///   (`--jobs 1`, rounds interleaved; goal ≤ 1.3×);
/// - `--jobs 2` wall against `--jobs 1` for the same population with events (goal ≤ 0.65×,
///   meant for an idle 2-core machine: the load average is printed beside it);
/// - `wellflow report` over about 1M and 10M events of real populations of the example
///   experiments (generated once into `.build/bench-data/experiments`), against a plain
///   Python `json.loads` loop over the same file (goal ≤ 0.5× its CPU), its peak RSS (goal
///   ≤ 100 MB), and 10M's CPU over 1M's (goal ≤ 12×: linear).
@MainActor
enum ExperimentPipelineBenchmark {
  static let checkinScript = "Apps/Wellflow/Scripts/experiment-checkin.yaml"
  static let checkinExperiments = "Apps/Wellflow/Experiments/checkin-length.yaml"
  static let onboardingScript = "Apps/Wellflow/Scripts/experiment-onboarding.yaml"
  static let onboardingExperiments = "Apps/Wellflow/Experiments/onboarding-length.yaml"

  static func run(_ settings: Settings, _ report: Report) throws {
    let wellflow = settings.locations.wellflow.path
    guard FileManager.default.isExecutableFile(atPath: wellflow) else {
      report.add(
        .missing(
          "10 population CPU, --events ÷ without", unit: "×", goal: .atMost(1.3),
          because: "no wellflow binary at \(wellflow)"))
      return
    }
    let previous = FileManager.default.currentDirectoryPath
    guard FileManager.default.changeCurrentDirectoryPath(settings.locations.root.path) else {
      throw BenchmarkError("cannot enter \(settings.locations.root.path)")
    }
    defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
    let folder = settings.locations.benchData.appendingPathComponent("experiments")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try events(wellflow, settings, report, folder)
    try jobs(wellflow, settings, report, folder)
    try reports(wellflow, settings, report, folder)
  }

  static func load() -> String {
    var load = [0.0, 0.0, 0.0]
    getloadavg(&load, 3)
    return String(format: "%.1f", load[0])
  }

  static func population(_ users: Int, _ extra: [String]) -> [String] {
    [
      "run", checkinScript, "--experiments", checkinExperiments, "--users", "\(users)", "--quiet", "--seed",
      "1",
    ]
      + extra
  }

  static func runChecked(_ wellflow: String, _ arguments: [String]) throws -> ChildProcess.Usage {
    let usage = try ChildProcess.run(wellflow, arguments)
    // The example script ends some journeys on purpose: exit 1 is a failing run, not a
    // failing benchmark.
    guard usage.exitedNormally, usage.exitCode <= 1 else {
      throw BenchmarkError("wellflow \(arguments.joined(separator: " ")) exited with status \(usage.status)")
    }
    return usage
  }

  /// CPU with and without `--events`, one job, interleaved.
  static func events(_ wellflow: String, _ settings: Settings, _ report: Report, _ folder: URL) throws {
    let users = settings.count(1_500, quick: 200)
    let rounds = settings.repetitions(5, quick: 2)
    let file = folder.appendingPathComponent("population.ndjson").path
    progress(
      "[10] --users \(users) with and without --events: \(rounds) rounds, interleaved (load \(load()))")
    var without: [Double] = []
    var with: [Double] = []
    var ratios: [Double] = []
    for round in 0..<rounds {
      var pair = [0.0, 0.0]
      for offset in 0..<2 {
        let side = (offset + round) % 2
        let usage = try runChecked(
          wellflow, population(users, ["--jobs", "1"] + (side == 1 ? ["--events", file] : [])))
        pair[side] = usage.cpu
      }
      without.append(pair[0] / Double(users) * 1_000)
      with.append(pair[1] / Double(users) * 1_000)
      ratios.append(pair[1] / pair[0])
    }
    report.add(
      Figure(
        "10 population CPU, --events ÷ without (--users \(grouped(Double(users))), whole process)", unit: "×",
        samples: ratios, goal: .atMost(1.3)))
    report.add(Figure("10   CPU per user without --events", unit: "ms", samples: without))
    report.add(Figure("10   CPU per user with --events", unit: "ms", samples: with))
  }

  /// `--jobs 2` against `--jobs 1`, wall, interleaved.
  static func jobs(_ wellflow: String, _ settings: Settings, _ report: Report, _ folder: URL) throws {
    let users = settings.count(3_000, quick: 200)
    let rounds = settings.repetitions(5, quick: 2)
    let file = folder.appendingPathComponent("population-jobs.ndjson").path
    let before = load()
    progress("[10] --users \(users) --events, --jobs 2 and --jobs 1: \(rounds) rounds (load \(before))")
    var ratios: [Double] = []
    var walls = [[Double](), [Double]()]
    for round in 0..<rounds {
      var pair = [0.0, 0.0]
      for offset in 0..<2 {
        let side = (offset + round) % 2
        let usage = try runChecked(
          wellflow, population(users, ["--jobs", side == 0 ? "1" : "2", "--events", file]))
        pair[side] = usage.wall
        walls[side].append(usage.wall)
      }
      ratios.append(pair[1] / pair[0])
    }
    report.add(
      Figure(
        "10 population wall, --jobs 2 ÷ --jobs 1 (--users \(grouped(Double(users))) --events; load \(before)–\(load()))",
        unit: "×", samples: ratios, goal: .atMost(0.65)))
    report.add(Figure("10   wall, --jobs 1", unit: "s", samples: walls[0]))
    report.add(Figure("10   wall, --jobs 2", unit: "s", samples: walls[1]))
  }

  /// An events file of about `events` events, from populations of both example experiments
  /// (check-in first, then onboarding appended), made once.
  static func eventsFile(
    _ wellflow: String, events target: Int, in folder: URL, label: String
  ) throws -> (path: String, lines: Int) {
    let path = folder.appendingPathComponent("report-\(label).ndjson").path
    if let lines = try? countLines(path), lines >= target * 9 / 10 { return (path, lines) }
    // Events per user of each script, from a small population.
    let probe = folder.appendingPathComponent("probe.ndjson").path
    _ = try runChecked(wellflow, population(200, ["--events", probe]))
    let checkinPerUser = Double(try countLines(probe)) / 200
    _ = try runChecked(
      wellflow,
      [
        "run", onboardingScript, "--experiments", onboardingExperiments, "--users", "200", "--quiet",
        "--events",
        probe,
      ])
    let onboardingPerUser = Double(try countLines(probe)) / 200
    // Four fifths of the events from the check-in experiment, a fifth from onboarding.
    let checkinUsers = min(1_000_000, Int(Double(target) * 0.8 / checkinPerUser))
    let onboardingUsers = min(1_000_000, Int(Double(target) * 0.2 / onboardingPerUser))
    progress(
      "[10] generating \(path): \(checkinUsers) check-in users, \(onboardingUsers) onboarding users (once)")
    _ = try runChecked(wellflow, population(checkinUsers, ["--events", path]))
    _ = try runChecked(
      wellflow,
      [
        "run", onboardingScript, "--experiments", onboardingExperiments, "--users", "\(onboardingUsers)",
        "--quiet", "--seed", "1", "--events", path, "--append",
      ])
    return (path, try countLines(path))
  }

  static func countLines(_ path: String) throws -> Int {
    guard let handle = FileHandle(forReadingAtPath: path) else { throw BenchmarkError("cannot read \(path)") }
    defer { try? handle.close() }
    var lines = 0
    while let data = try handle.read(upToCount: 1 << 22), !data.isEmpty {
      lines += data.reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
    }
    return lines
  }

  static func reports(_ wellflow: String, _ settings: Settings, _ report: Report, _ folder: URL) throws {
    let small = try eventsFile(
      wellflow, events: settings.count(1_000_000, quick: 20_000), in: folder,
      label: settings.quick ? "quick-small" : "1M\(settings.scale == 1 ? "" : "x\(settings.scale)")")
    let large = try eventsFile(
      wellflow, events: settings.count(10_000_000, quick: 200_000), in: folder,
      label: settings.quick ? "quick-large" : "10M\(settings.scale == 1 ? "" : "x\(settings.scale)")")
    let python = folder.appendingPathComponent("json_loads.py")
    try Data(
      """
      import json, sys
      with open(sys.argv[1], "rb") as f:
          for line in f:
              json.loads(line)

      """.utf8
    ).write(to: python)
    let reportArguments = { (path: String) in
      [
        "report", path, "--experiment", "checkin-length", "--experiments", checkinExperiments, "--format",
        "json",
      ]
    }
    let rounds = settings.repetitions(5, quick: 2)
    progress(
      "[10] report over \(grouped(Double(small.lines))) and \(grouped(Double(large.lines))) events, Python json.loads loop: \(rounds) rounds (load \(load()))"
    )
    var smallCPU: [Double] = []
    var smallPeak: [Double] = []
    var pythonCPU: [Double] = []
    var ratios: [Double] = []
    var largeCPU: [Double] = []
    var largePeak: [Double] = []
    var linear: [Double] = []
    for round in 0..<rounds {
      var cpu = [0.0, 0.0, 0.0]
      for offset in 0..<3 {
        let which = (offset + round) % 3
        switch which {
        case 0:
          let usage = try ChildProcess.run(wellflow, reportArguments(small.path))
          guard usage.exitedNormally, usage.exitCode == 0 else {
            throw BenchmarkError("wellflow report exited with status \(usage.status)")
          }
          cpu[0] = usage.cpu
          smallPeak.append(usage.peakMegabytes)
        case 1:
          let usage = try ChildProcess.run("/usr/bin/env", ["python3", python.path, small.path])
          guard usage.exitedNormally, usage.exitCode == 0 else {
            throw BenchmarkError("python3 json.loads loop exited with status \(usage.status)")
          }
          cpu[1] = usage.cpu
        default:
          let usage = try ChildProcess.run(wellflow, reportArguments(large.path))
          guard usage.exitedNormally, usage.exitCode == 0 else {
            throw BenchmarkError("wellflow report exited with status \(usage.status)")
          }
          cpu[2] = usage.cpu
          largePeak.append(usage.peakMegabytes)
        }
      }
      smallCPU.append(cpu[0])
      pythonCPU.append(cpu[1])
      largeCPU.append(cpu[2])
      ratios.append(cpu[0] / cpu[1])
      linear.append(cpu[2] / cpu[0])
    }
    let smallName = grouped(Double(small.lines))
    report.add(
      Figure(
        "10 report CPU ÷ Python json.loads loop, \(smallName) events", unit: "×", samples: ratios,
        goal: .atMost(0.5)))
    report.add(Figure("10   report CPU, \(smallName) events", unit: "s", samples: smallCPU))
    report.add(Figure("10   Python json.loads loop CPU, \(smallName) events", unit: "s", samples: pythonCPU))
    report.add(
      Figure("10 report peak RSS, \(smallName) events", unit: "MB", samples: smallPeak, goal: .atMost(100)))
    report.add(
      Figure(
        "10 report CPU, \(grouped(Double(large.lines))) ÷ \(smallName) events", unit: "×", samples: linear,
        goal: .atMost(12 * Double(large.lines) / Double(small.lines) / 10)))
    report.add(
      Figure("10   report CPU, \(grouped(Double(large.lines))) events", unit: "s", samples: largeCPU))
    report.add(
      Figure("10   report peak RSS, \(grouped(Double(large.lines))) events", unit: "MB", samples: largePeak))
  }
}
