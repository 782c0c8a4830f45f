import Foundation

/// Figure 2: `wellflow run SCRIPT` as a whole process, as a person or CI runs it: the
/// release binary next to this benchmark, spawned N times; wall time and the child's
/// CPU time from wait4. `wellflow --help` and `wellflow flows` give the start-up cost.
/// The three commands take turns in one loop.
@MainActor
enum ProcessBenchmark {
  static func run(_ settings: Settings, _ report: Report) throws {
    let wellflow = settings.locations.wellflow.path
    let runs = settings.count(15, quick: 3)
    // The start-up goal is for running a script (and holds for the help, the floor);
    // `flows` explores every flow to list what it shows, so it has none.
    let commands: [(name: String, arguments: [String], goal: Goal?)] = [
      ("wellflow run onboarding-standard.yaml", ["run", OnboardingBenchmark.scriptPath], .atMost(15)),
      ("wellflow --help", ["--help"], .atMost(15)),
      ("wellflow flows (explores every flow)", ["flows"], nil),
    ]
    guard FileManager.default.isExecutableFile(atPath: wellflow) else {
      let reason =
        "no wellflow binary at \(wellflow) (swift build -c \(settings.locations.configuration) --product wellflow)"
      for command in commands {
        report.add(.missing("2 \(command.name): CPU", unit: "ms", goal: command.goal, because: reason))
      }
      return
    }
    progress("[2] \(commands.count) commands × \(runs) processes each, taking turns")
    // Relative paths as a person types them: the child runs in the package root.
    let previous = FileManager.default.currentDirectoryPath
    guard FileManager.default.changeCurrentDirectoryPath(settings.locations.root.path) else {
      throw BenchmarkError("cannot enter \(settings.locations.root.path)")
    }
    defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }

    for command in commands {
      let usage = try ChildProcess.run(wellflow, command.arguments)
      guard usage.exitedNormally, usage.exitCode == 0 else {
        throw BenchmarkError("\(command.name) exited with status \(usage.status)")
      }
    }
    var wall = Array(repeating: [Double](), count: commands.count)
    var cpu = Array(repeating: [Double](), count: commands.count)
    for run in 0..<runs {
      for offset in commands.indices {
        let which = (offset + run) % commands.count
        let usage = try ChildProcess.run(wellflow, commands[which].arguments)
        guard usage.exitedNormally, usage.exitCode == 0 else {
          throw BenchmarkError("\(commands[which].name) exited with status \(usage.status)")
        }
        wall[which].append(usage.wall * 1_000)
        cpu[which].append(usage.cpu * 1_000)
      }
    }
    for (index, command) in commands.enumerated() {
      report.add(
        Figure("2 \(command.name): CPU (child rusage)", unit: "ms", samples: cpu[index], goal: command.goal))
      report.add(Figure("2 \(command.name): wall", unit: "ms", samples: wall[index]))
    }
  }
}
