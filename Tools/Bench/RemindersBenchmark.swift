import FlowKit
import Foundation
import WellflowCore

/// Figure 8: a hundred years of daily reminders. A script turns the daily check-in
/// reminder on and moves the clock by the longest single `advance` (36600d, a hundred
/// years) in Berlin, across every DST change, then checks `notifications.delivered` and
/// `notifications.pending` (every day's reminder, none opened). Run through
/// `RunCommand.execute` in process, as figure 1 (SQLite in memory, every feature, parse
/// incl.); wall and process CPU time of each run, and CPU per delivery.
@MainActor
enum RemindersBenchmark {
  static func script(days: Int) -> String {
    """
    name: A hundred years of daily reminders
    start: 2026-01-05T09:00
    timezone: Europe/Berlin
    steps:
      - start: reminders
      - toggle: {enabled: true}
      - enter: {time: "20:00"}
      - tap: save
      - expect: {idle: true, data: {notifications.delivered: 0}}
      - advance: \(days)d
      - expect: {notification: checkin.reminder, data: {notifications.delivered: \(days), notifications.pending: \(days)}}
    """
  }

  static func run(_ settings: Settings, _ report: Report) async throws {
    // The longest legal single step (ScriptLoader: 100 years, 36600d); --quick: ten years.
    let days = settings.quick ? 3_650 : 36_600
    let repetitions = settings.repetitions(5, quick: 1)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "wellflow-bench-reminders-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("reminders-\(days)d.yaml")
    try script(days: days).write(to: path, atomically: true, encoding: .utf8)
    progress(
      "[8] daily reminders over \(days) days (advance: \(days)d) through RunCommand.execute: \(repetitions) runs"
    )

    let configuration = RunConfiguration(paths: [path.path])
    // The transcript, kept to say why a run failed.
    let output = Locked<[String]>([])
    let console = Console(
      out: { line in output.withLock { $0.append(line) } },
      err: { line in output.withLock { $0.append(line) } })
    var wall: [Double] = []
    var cpu: [Double] = []
    for _ in 0..<repetitions {
      output.withLock { $0 = [] }
      let watch = Stopwatch()
      let status = await RunCommand.execute(configuration, console: console)
      let (elapsed, used) = (watch.wall, watch.cpu)
      guard status == 0 else {
        throw BenchmarkError(
          "the reminders script failed:\n\(output.current.suffix(8).joined(separator: "\n"))")
      }
      wall.append(elapsed)
      cpu.append(used)
    }
    let years = days == 36_600 ? "100 years" : "\(days / 365) years"
    report.add(
      Figure(
        "8 \(years) of daily reminders (advance: \(days)d, wellflow run in process), wall", unit: "s",
        samples: wall, goal: days == 36_600 ? .atMost(5) : nil))
    report.add(Figure("8   the same, process CPU", unit: "s", samples: cpu))
    report.add(
      Figure("8   CPU per delivery", unit: "µs", samples: cpu.map { $0 / Double(days) * 1_000_000 }))
  }
}
