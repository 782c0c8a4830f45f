import Experiments
import FlowKit
import Foundation

/// Everything `wellflow report` takes.
public struct ReportConfiguration: Sendable {
  public enum Format: String, Sendable, CaseIterable { case text, json, csv, html }

  public var eventsPath: String
  public var experiment: String
  public var format: Format = .text
  /// Optional: the experiment file, for the variations' order (the first is the control).
  public var experimentsPath: String?
  /// `--html FILE`: the funnels and intervals drawn as SVG in one page.
  public var htmlPath: String?

  public init(eventsPath: String, experiment: String) {
    self.eventsPath = eventsPath
    self.experiment = experiment
  }
}

/// A line of an events file that is not an event.
public struct EventsFileError: Error, Sendable, Equatable, CustomStringConvertible {
  public var file: String
  public var line: Int
  public var message: String

  public var description: String { "\(file):\(line): \(message)" }
}

/// Reads the NDJSON events `wellflow run --events FILE` writes: one object a line with
/// `ts`, `user`, `event` and the event's fields.
public enum EventsFile {
  /// Every event in file order; blank lines are skipped, anything else that is not an
  /// event object is an error naming its line.
  public static func read(path: String) throws -> [ReportEvent] {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw EventsFileError(file: path, line: 0, message: "cannot read the events file")
    }
    var events: [ReportEvent] = []
    var number = 0
    for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
      number += 1
      guard line.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0D) }) else { continue }
      do {
        events.append(try event(Data(line)))
      } catch let problem as LineProblem {
        throw EventsFileError(file: path, line: number, message: problem.message)
      }
    }
    return events
  }

  struct LineProblem: Error {
    var message: String
  }

  static let timestampFormats: [Date.ISO8601FormatStyle] = [
    Date.ISO8601FormatStyle(includingFractionalSeconds: false),
    Date.ISO8601FormatStyle(includingFractionalSeconds: true),
  ]

  /// One line: an object with `ts` (ISO 8601), `user` and `event`; `flow` and `variant`
  /// when present; every other member becomes a text field.
  static func event(_ line: Data) throws -> ReportEvent {
    guard let value = try? JSONDecoder().decode(JSONValue.self, from: line), case .object(let object) = value
    else {
      let text = terminalSafe(String(decoding: line.prefix(60), as: UTF8.self))
      throw LineProblem(message: "not a JSON object: \(text)\(line.count > 60 ? "…" : "")")
    }
    func text(_ key: String, required: Bool) throws -> String? {
      switch object[key] {
      case .string(let string): return string
      case nil, .null?:
        if required { throw LineProblem(message: "the event has no '\(key)'") }
        return nil
      default: throw LineProblem(message: "'\(key)' must be text")
      }
    }
    let stamp = try text("ts", required: true)!
    guard let ts = timestampFormats.lazy.compactMap({ try? Date(stamp, strategy: $0) }).first else {
      throw LineProblem(
        message:
          "'ts' must be an ISO 8601 date-time, got '\(terminalSafe(stamp, limit: ReportCommand.nameLimit))'")
    }
    var fields: [String: String] = [:]
    for (key, value) in object where !["ts", "user", "event", "flow", "variant"].contains(key) {
      switch value {
      case .bool(let flag): fields[key] = flag ? "true" : "false"
      case .number(let number): fields[key] = formatNumber(number)
      case .string(let string): fields[key] = string
      case .null: continue
      case .array, .object:
        throw LineProblem(
          message:
            "field '\(terminalSafe(key, limit: ReportCommand.nameLimit))' must be text, a number or a flag")
      }
    }
    return ReportEvent(
      ts: ts, user: try text("user", required: true)!, event: try text("event", required: true)!,
      flow: try text("flow", required: false), variant: try text("variant", required: false), fields: fields)
  }
}

/// `wellflow report EVENTS --experiment KEY`: the per-variation funnel.
/// Exit 0 with a report, 2 when there is none (unreadable file, bad line, unknown key).
@MainActor
public enum ReportCommand {
  /// How many characters of a name from an events file the terminal shows.
  nonisolated static let nameLimit = 64

  public static func execute(_ configuration: ReportConfiguration, console: Console = .standard) -> Int32 {
    func fail(_ message: String) -> Int32 {
      console.err("error: \(message)")
      return 2
    }
    var flow: String?
    var order: [String] = []
    var weights: [Double]?
    var metrics: [MetricDefinition] = []
    if let path = configuration.experimentsPath {
      let registry: FlowRegistry
      do {
        registry = try WellflowApp.makeRegistry()
      } catch {
        return fail("the app's features do not register: \(error)")
      }
      switch ExperimentFile.load(path: path, registry: registry) {
      case .success(let file):
        guard let experiment = file.experiments.first(where: { $0.key == configuration.experiment }) else {
          let keys = file.experiments.map(\.key).joined(separator: ", ")
          return fail("\(path) has no experiment '\(configuration.experiment)' (experiments: \(keys))")
        }
        flow = experiment.flow
        order = experiment.variations
        weights = experiment.weights ?? GrowthBook.equalWeights(experiment.variations.count)
        metrics = file.metrics[experiment.key] ?? []
      case .failure(let failure):
        for problem in failure.problems { console.err(problem.description) }
        return 2
      }
    }
    let events: [ReportEvent]
    do {
      events = try EventsFile.read(path: configuration.eventsPath)
    } catch {
      return fail("\(error)")
    }
    if order.isEmpty { order = variationOrder(in: events, experiment: configuration.experiment) }
    let report: ExperimentReport
    do {
      report = try ExperimentReport(
        experiment: configuration.experiment, events: events, flow: flow, variationOrder: order,
        weights: weights,
        metrics: metrics)
    } catch .noExposures(let experiment, let seen) {
      let safe = { (name: String) in terminalSafe(name, limit: nameLimit) }
      return fail("\(ReportError.noExposures(experiment: safe(experiment), experimentsSeen: seen.map(safe)))")
    } catch {
      return fail("\(error)")
    }
    if let htmlPath = configuration.htmlPath {
      do {
        try OutputFile.write(
          ReportHTML(report.withTerminalSafeNames(limit: nameLimit)).html, toFile: htmlPath,
          as: "the HTML report")
      } catch {
        return fail("\(error)")
      }
    }
    switch configuration.format {
    case .text:
      console.out(report.withTerminalSafeNames(limit: nameLimit).renderText())
    case .json:
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      console.out(String(decoding: (try? encoder.encode(report)) ?? Data(), as: UTF8.self))
    case .csv:
      console.out(String(report.renderCSV().dropLast()))
    case .html:
      console.out(ReportHTML(report.withTerminalSafeNames(limit: nameLimit)).html)
    }
    return 0
  }

  /// The variations by the index exposures carry (`variation_id`), so the control comes
  /// first without the experiment file; exposures without one follow in order of appearance.
  static func variationOrder(in events: [ReportEvent], experiment: String) -> [String] {
    var index: [String: Double] = [:]
    var seen: [String] = []
    for event in events where event.event == "experiment_viewed" && event.fields["experiment"] == experiment {
      guard let variation = event.fields["variation"] else { continue }
      if !seen.contains(variation) { seen.append(variation) }
      if let id = event.fields["variation_id"].flatMap(Double.init), index[variation] == nil {
        index[variation] = id
      }
    }
    return seen.enumerated().sorted { a, b in
      (index[a.element] ?? .infinity, a.offset) < (index[b.element] ?? .infinity, b.offset)
    }.map(\.element)
  }
}

extension ExperimentReport {
  /// The report as a terminal may show it: every name (variations, screens, the flow, the
  /// experiment and metrics), which an events file can make anything, with control and
  /// bidi characters escaped and clipped to `limit` characters. JSON and CSV keep names
  /// exact: they are data, and JSON escapes controls itself.
  func withTerminalSafeNames(limit: Int) -> ExperimentReport {
    let safe = { (name: String) in terminalSafe(name, limit: limit) }
    var report = self
    report.experiment = safe(experiment)
    report.flow = safe(flow)
    report.metricNames = metricNames.map(safe)
    for index in report.variations.indices {
      report.variations[index].variation = safe(variations[index].variation)
      report.variations[index].topExitScreen?.screen = safe(variations[index].topExitScreen?.screen ?? "")
      report.variations[index].completion.metric = safe(variations[index].completion.metric)
      for metric in report.variations[index].metrics.indices {
        report.variations[index].metrics[metric].metric = safe(variations[index].metrics[metric].metric)
      }
    }
    return report
  }
}
