import Foundation

// `wellflow-bench [--scale X]`: X = 1.0 fills one user's history with 1,000,000 entries.
let arguments = CommandLine.arguments
let scale =
  arguments.firstIndex(of: "--scale").flatMap {
    arguments.indices.contains($0 + 1) ? Double(arguments[$0 + 1]) : nil
  } ?? 1.0
try await MoodBenchmark.run(scale: scale)
