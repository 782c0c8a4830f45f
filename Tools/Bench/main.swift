import Foundation

// Benchmarks print figures (medians with min–max against their goals); tests never
// time anything. Each figure measures what the product does: the real runner with
// SQLite and every feature registered, parsing included; the release binary as a
// process; history on realistic data shapes; sync to a separate server process.
//
// Usage: swift run -c release wellflow-bench [NAME…] [--quick] [--scale X]
//   (Tools/bench.sh builds both release products first, which `process` and `sync` need.)
let usage =
  "usage: wellflow-bench [onboarding|process|mood|sync|experiments|events|reminders|memory …] [--quick] [--scale X]"
let arguments = Array(CommandLine.arguments.dropFirst())
var settings = Settings(quick: false, scale: 1, locations: Locations.find())
var names: [String] = []
var index = 0
while index < arguments.count {
  switch arguments[index] {
  case "--scale":
    guard index + 1 < arguments.count, let value = Double(arguments[index + 1]), value > 0 else {
      progress("--scale takes a positive number\n\(usage)")
      exit(2)
    }
    settings.scale = value
    index += 2
  case "--quick":
    settings.quick = true
    index += 1
  case "-h", "--help":
    print(usage)
    exit(0)
  default:
    names.append(arguments[index])
    index += 1
  }
}
let all = [
  "onboarding", "process", "mood", "sync", "experiments", "events", "reminders", "memory",
]
let unknown = names.filter { !all.contains($0) }
guard unknown.isEmpty else {
  progress(
    "unknown benchmark \(unknown.joined(separator: ", ")); known: \(all.joined(separator: ", "))\n\(usage)")
  exit(2)
}

let report = Report()
progress(
  "wellflow-bench (\(settings.locations.configuration) build\(settings.quick ? ", --quick" : "")"
    + "\(settings.scale == 1 ? "" : ", --scale \(settings.scale)"), \(ProcessInfo.processInfo.activeProcessorCount) CPUs)"
)
var load = [0.0, 0.0, 0.0]
getloadavg(&load, 3)
report.note(
  "\(ProcessInfo.processInfo.activeProcessorCount) CPUs; load average at start "
    + String(format: "%.1f", load[0])
    + " (other work on the machine inflates wall times; CPU figures less so)")
if settings.locations.configuration != "release" {
  report.note("this is a \(settings.locations.configuration) build: the figures are not the product's")
}
if settings.quick { report.note("--quick: small N, few repetitions; a smoke run, not figures to quote") }
var stopped = false
for name in names.isEmpty ? all : names {
  do {
    switch name {
    case "onboarding": try await OnboardingBenchmark.run(settings, report)
    case "process": try ProcessBenchmark.run(settings, report)
    case "mood": try await MoodBenchmark.run(settings, report)
    case "sync": try await SyncBenchmark.run(settings, report)
    case "experiments": try ExperimentsBenchmark.run(settings, report)
    case "events": try ExperimentPipelineBenchmark.run(settings, report)
    case "reminders": try await RemindersBenchmark.run(settings, report)
    case "memory": try MemoryBenchmark.run(settings, report)
    default: break
    }
  } catch {
    report.note("\(name) stopped: \(error)")
    stopped = true
  }
}
print()
report.printTable()
// Missed goals are figures, not failures; a benchmark that could not run is one.
exit(stopped ? 1 : 0)
