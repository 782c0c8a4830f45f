import Foundation

/// Figure 9: what `wellflow run` holds in memory and writes, by output, as a process
/// (the release binary beside this benchmark): peak RSS from wait4 of the example
/// experiment script for a population (`--users 100000`) with `--quiet`, with
/// `--junit FILE`, and with `--html --junit --events` (and the size of its HTML page),
/// and of a script of ten million steps (`repeat`) with `--quiet`. The commands take
/// turns, so load on the machine falls on all of them alike.
@MainActor
enum MemoryBenchmark {
  static let experimentScript = "Apps/Wellflow/Scripts/experiment-checkin.yaml"
  static let experiments = "Apps/Wellflow/Experiments/checkin-length.yaml"

  static func run(_ settings: Settings, _ report: Report) throws {
    let wellflow = settings.locations.wellflow.path
    let users = settings.count(100_000, quick: 2_000)
    let repetitions = settings.repetitions(3, quick: 1)
    let folder = settings.locations.benchData.appendingPathComponent("memory")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let manySteps = try writeManyStepScript(in: folder, rounds: settings.count(100_000, quick: 2_000))
    let junit = folder.appendingPathComponent("junit.xml").path
    let html = folder.appendingPathComponent("report.html").path
    let events = folder.appendingPathComponent("events.ndjson").path
    let population = [experimentScript, "--experiments", experiments, "--users", "\(users)"]
    let commands: [(name: String, arguments: [String], goal: Goal?)] = [
      ("--users \(grouped(Double(users))) --quiet", ["run"] + population + ["--quiet"], .atMost(100)),
      (
        "--users \(grouped(Double(users))) --quiet --junit FILE",
        ["run"] + population + ["--quiet", "--junit", junit],
        .atMost(150)
      ),
      (
        "--users \(grouped(Double(users))) --quiet --html --junit --events",
        ["run"] + population + ["--quiet", "--html", html, "--junit", junit, "--events", events], nil
      ),
      (
        "\(grouped(Double(manySteps.steps))) steps (repeat) --quiet", ["run", manySteps.path, "--quiet"],
        .atMost(100)
      ),
    ]
    guard FileManager.default.isExecutableFile(atPath: wellflow) else {
      let reason =
        "no wellflow binary at \(wellflow) (swift build -c \(settings.locations.configuration) --product wellflow)"
      for command in commands {
        report.add(.missing("9 peak RSS, \(command.name)", unit: "MB", goal: command.goal, because: reason))
      }
      return
    }
    progress("[8] peak RSS of wellflow run: \(commands.count) commands × \(repetitions), taking turns")
    let previous = FileManager.default.currentDirectoryPath
    guard FileManager.default.changeCurrentDirectoryPath(settings.locations.root.path) else {
      throw BenchmarkError("cannot enter \(settings.locations.root.path)")
    }
    defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }

    var peak = Array(repeating: [Double](), count: commands.count)
    var perJourney: [Double] = []
    var htmlSizes: [Double] = []
    for run in 0..<repetitions {
      for offset in commands.indices {
        let which = (offset + run) % commands.count
        let usage = try ChildProcess.run(wellflow, commands[which].arguments)
        // The experiment script ends some journeys on purpose (exit 1 is a failing run,
        // not a failing benchmark); 2 and signals are.
        guard usage.exitedNormally, usage.exitCode <= 1 else {
          throw BenchmarkError("wellflow run \(commands[which].name) exited with status \(usage.status)")
        }
        peak[which].append(usage.peakMegabytes)
        if which == 0 { perJourney.append(usage.wall / Double(users) * 1_000) }
        if which == 2 {
          let size =
            (try FileManager.default.attributesOfItem(atPath: html)[.size] as? NSNumber)?.doubleValue ?? 0
          htmlSizes.append(size / 1_048_576)
        }
      }
    }
    for (index, command) in commands.enumerated() {
      report.add(
        Figure(
          "9 peak RSS, wellflow run \(command.name)", unit: "MB", samples: peak[index], goal: command.goal))
    }
    report.add(
      Figure(
        "9 HTML report of --users \(grouped(Double(users)))", unit: "MB", samples: htmlSizes,
        goal: .atMost(50)))
    report.add(
      Figure(
        "9 wall per journey, --users \(grouped(Double(users))) --quiet (whole process)", unit: "ms",
        samples: perJourney))
  }

  /// A script of `rounds` × 100 steps at most the language allows (10,000,000 run steps),
  /// each a clock step that needs no app.
  static func writeManyStepScript(in folder: URL, rounds: Int) throws -> (path: String, steps: Int) {
    let body = String(repeating: "        - advance: 1s\n", count: 100)
    let text = """
      name: ten million steps
      steps:
        - repeat:
            times: \(rounds)
            steps:

      """ + body
    let url = folder.appendingPathComponent("many-steps.yaml")
    try Data(text.utf8).write(to: url)
    return (url.path, rounds * 100 + 1)
  }
}
