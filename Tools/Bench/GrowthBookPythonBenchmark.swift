import Foundation

/// Figure 7's reference: GrowthBook's own Python SDK (`pip install growthbook`) running
/// the same experiment, with the same condition, on the same users
/// (`Tools/GrowthBookReference/reference.py bench`). One Python repetition runs after
/// each Swift repetition, so both see the same load on the machine.
struct GrowthBookPythonBenchmark {
  let script: URL
  let calls: Int
  private(set) var rates: [Double] = []
  /// Why there is no Python figure (python3 or the package missing).
  private(set) var unavailable: String?

  init(_ settings: Settings) {
    script = settings.locations.root.appendingPathComponent("Tools/GrowthBookReference/reference.py")
    calls = settings.count(20_000, quick: 2_000)
  }

  /// One repetition: `calls` assignments in a python3 process, timed inside Python.
  mutating func measureOnce() {
    guard unavailable == nil else { return }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script.path, "bench", String(calls), "1"]
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    do {
      try process.run()
    } catch {
      unavailable = "python3 could not be started: \(error)"
      return
    }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let problem = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0,
      let rate = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)), rate.isFinite, rate > 0
    else {
      unavailable =
        "GrowthBook's Python SDK did not run (\(problem.trimmingCharacters(in: .whitespacesAndNewlines))); pip install growthbook"
      return
    }
    rates.append(rate)
  }

  @MainActor
  func figure() -> Figure {
    let name = "7   GrowthBook Python SDK 4.0 (GrowthBook.run), same experiment and users"
    if let unavailable { return .missing(name, unit: "M/s", because: unavailable) }
    return Figure(name, unit: "M/s", samples: rates)
  }
}
