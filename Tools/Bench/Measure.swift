import Foundation

/// What a figure aims for: a floor (rates) or a ceiling (latencies, sizes).
enum Goal {
  case atLeast(Double)
  case atMost(Double)

  func isMet(by value: Double) -> Bool {
    switch self {
    case .atLeast(let floor): value >= floor
    case .atMost(let ceiling): value <= ceiling
    }
  }
}

/// One line of the final table: the samples of a figure (one per repetition, or one
/// per call for latencies) in `unit`, with its goal if it has one.
struct Figure {
  var name: String
  var unit: String
  var samples: [Double]
  var goal: Goal?
  /// Why the figure has no samples.
  var notMeasured: String?
  /// The value to report when it is not the samples' median (a ratio of pooled medians).
  var headline: Double?

  init(_ name: String, unit: String, samples: [Double], goal: Goal? = nil) {
    self.name = name
    self.unit = unit
    self.samples = samples
    self.goal = goal
  }

  static func missing(_ name: String, unit: String, goal: Goal? = nil, because reason: String) -> Figure {
    var figure = Figure(name, unit: unit, samples: [], goal: goal)
    figure.notMeasured = reason
    return figure
  }

  var median: Double { headline ?? medianOf(samples) }

  /// The number the name starts with (the figure's number in the issue).
  var number: Int { Int(name.prefix { $0.isNumber }) ?? Int.max }
}

/// The figures of a run, printed as one table at the end.
@MainActor
final class Report {
  private(set) var figures: [Figure] = []
  private(set) var notes: [String] = []

  func add(_ figure: Figure) {
    figures.append(figure)
    progress(
      "  \(figure.name): \(figure.samples.isEmpty ? "not measured" : format(figure.median, figure.unit))")
  }

  func note(_ text: String) { notes.append(text) }

  func printTable() {
    let header = ["figure", "median", "min–max", "goal", "met?"]
    var rows: [[String]] = []
    // In the order of their numbers (stable: a figure's detail lines stay under it).
    let ordered = figures.enumerated().sorted { a, b in
      (a.element.number, a.offset) < (b.element.number, b.offset)
    }.map(\.element)
    for figure in ordered {
      guard !figure.samples.isEmpty else {
        rows.append([figure.name, "n/a", "", goal(figure), "not measured"])
        continue
      }
      let median = figure.median
      let met = figure.goal.map { $0.isMet(by: median) ? "yes" : "NO" } ?? "—"
      rows.append([
        figure.name, format(median, figure.unit),
        "\(format(figure.samples.min()!, figure.unit, withUnit: false))–\(format(figure.samples.max()!, figure.unit))",
        goal(figure), met,
      ])
    }
    let widths = header.indices.map { column in
      ([header] + rows).map { $0[column].count }.max() ?? 0
    }
    func line(_ cells: [String]) -> String {
      cells.enumerated().map { column, cell in
        let pad = String(repeating: " ", count: widths[column] - cell.count)
        // Numbers read best right-aligned; names and verdicts left-aligned.
        return (1...2).contains(column) ? pad + cell : cell + pad
      }.joined(separator: " | ")
    }
    print(line(header))
    print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "-|-"))
    for row in rows { print(line(row)) }
    for figure in figures where figure.notMeasured != nil {
      print("not measured: \(figure.name): \(figure.notMeasured!)")
    }
    for note in notes { print("note: \(note)") }
  }

  private func goal(_ figure: Figure) -> String {
    switch figure.goal {
    case .atLeast(let floor): "≥ \(format(floor, figure.unit))"
    case .atMost(let ceiling): "≤ \(format(ceiling, figure.unit))"
    case nil: "—"
    }
  }
}

/// A number for the table: about three significant digits, thousands grouped.
func format(_ value: Double, _ unit: String, withUnit showUnit: Bool = true) -> String {
  let text: String
  if !value.isFinite {
    text = "\(value)"
  } else if abs(value) >= 100 {
    text = grouped(value)
  } else if abs(value) >= 10 {
    text = String(format: "%.1f", value)
  } else if abs(value) >= 1 {
    text = String(format: "%.2f", value)
  } else {
    text = String(format: "%.3g", value)
  }
  guard showUnit, !unit.isEmpty else { return text }
  return unit == "×" ? text + "×" : text + " " + unit
}

/// "12,345" for a console table.
func grouped(_ value: Double) -> String {
  let formatter = NumberFormatter()
  formatter.numberStyle = .decimal
  formatter.maximumFractionDigits = 0
  return formatter.string(from: NSNumber(value: value)) ?? String(Int(value))
}

func medianOf(_ samples: [Double]) -> Double {
  let sorted = samples.sorted()
  guard !sorted.isEmpty else { return .nan }
  return sorted.count % 2 == 1
    ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func seconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

/// Wall and CPU time of the whole process (every thread: GRDB's readers included).
struct Stopwatch {
  let wallStart = ContinuousClock.now
  let cpuStart = processCPUSeconds()

  var wall: Double { seconds(ContinuousClock.now - wallStart) }
  var cpu: Double { processCPUSeconds() - cpuStart }
}

/// CPU seconds this process has used (CLOCK_PROCESS_CPUTIME_ID).
func processCPUSeconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

/// Progress for long steps, on standard error so the table on standard output stays clean.
func progress(_ text: String) {
  FileHandle.standardError.write(Data((text + "\n").utf8))
}

struct BenchmarkError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// What the command line chose.
struct Settings {
  var quick: Bool
  var scale: Double
  var locations: Locations

  /// `full` times --scale, or `small` with --quick.
  func count(_ full: Int, quick small: Int) -> Int {
    quick ? small : max(1, Int((Double(full) * scale).rounded()))
  }

  /// Repetitions of a figure: `full`, or `small` with --quick.
  func repetitions(_ full: Int, quick small: Int = 3) -> Int { quick ? small : full }
}
