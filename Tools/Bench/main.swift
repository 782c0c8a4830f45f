import Foundation

// Benchmarks print figures (medians and ratios); tests never time anything.
// Usage: swift run -c release wellflow-bench [NAME…] [--scale X]
let arguments = Array(CommandLine.arguments.dropFirst())
var scale = 1.0
var names: [String] = []
var index = 0
while index < arguments.count {
  if arguments[index] == "--scale", index + 1 < arguments.count, let value = Double(arguments[index + 1]) {
    scale = value
    index += 2
  } else {
    names.append(arguments[index])
    index += 1
  }
}
let all = ["onboarding", "experiments", "mood", "sync"]
let unknown = names.filter { !all.contains($0) }
guard unknown.isEmpty else {
  FileHandle.standardError.write(
    Data("unknown benchmark \(unknown.joined(separator: ", ")); known: \(all.joined(separator: ", "))\n".utf8)
  )
  exit(2)
}
for name in names.isEmpty ? all : names {
  switch name {
  case "onboarding": try await OnboardingBenchmark.run(scale: scale)
  case "experiments": ExperimentsBenchmark.run(scale: scale)
  case "mood": try await MoodBenchmark.run(scale: scale)
  case "sync": try await SyncBenchmark.run(scale: scale)
  default: break
  }
}
