import ArgumentParser
import Experiments
import FlowKit
import Foundation
import WellflowReports
import WellflowScript
import YAMLTree

/// Everything `wellflow report` takes, declared once: the command line parses it.
public struct ReportConfiguration: ParsableArguments, Sendable {
  public enum Format: String, Sendable, CaseIterable, ExpressibleByArgument { case text, json, csv, html }

  @Argument(
    help: ArgumentHelp(
      "The NDJSON events file, or the PostgreSQL database of run --events (postgres://user@host:port/db).",
      valueName: "EVENTS"))
  public var eventsPath: String

  @Option(help: ArgumentHelp("The experiment's key.", valueName: "KEY"))
  public var experiment: String

  @Option(
    help: "Output format: text (tables), json, csv or html (one self-contained page on standard output).")
  public var format: Format = .text

  /// Optional: the experiment file, for the variations' order (the first is the control).
  @Option(
    name: .customLong("experiments"),
    help: ArgumentHelp(
      "The experiment file: variations in its order (control first), its weights and metrics.",
      valueName: "FILE"))
  public var experimentsPath: String?

  /// `--html FILE`: the funnels and intervals drawn as SVG in one page.
  @Option(
    name: .customLong("html"),
    help: ArgumentHelp(
      "Also write the funnels and completion intervals, drawn as SVG, to this HTML file.", valueName: "FILE"))
  public var htmlPath: String?

  /// `--sequential`: always-valid intervals and p-values, as `sequential: true` in the file.
  @Flag(help: "Always-valid intervals and p-values, for a report looked at while the experiment runs.")
  public var sequential = false

  public init() {}

  public init(eventsPath: String, experiment: String) {
    self = .parsed(["--experiment=\(experiment)", "--", eventsPath])
  }
}

/// `wellflow report EVENTS --experiment KEY`: the per-variation funnel.
/// Exit 0 with a report, 2 when there is none (unreadable file, bad line, unknown key).
@MainActor
public enum ReportCommand {
  /// How many characters of a name from an events file the terminal shows.
  nonisolated static let nameLimit = 64
  /// The fields of events the report reads; others are checked and passed over.
  nonisolated static let readFields: Set<String> = [
    "experiment", "variation", "variation_id", "source", "screen", "reason",
  ]

  /// What the experiment file (`--experiments`) gives a report; without it, nothing but
  /// `--sequential`.
  struct Setup {
    var flow: String?
    var order: [String] = []
    var weights: [Double]?
    var metrics: [MetricDefinition] = []
    var covariate: CovariateDefinition?
    var sequential: Bool
    var valuePositions: [String: SourcePosition] = [:]
  }

  /// Reads the experiment file, if any; nil after saying why it cannot be used.
  static func setup(_ configuration: ReportConfiguration, console: Console) -> Setup? {
    var setup = Setup(sequential: configuration.sequential)
    guard let path = configuration.experimentsPath else { return setup }
    let registry: FlowRegistry
    do {
      registry = try WellflowApp.makeRegistry()
    } catch {
      console.err("error: the app's features do not register: \(error)")
      return nil
    }
    switch ExperimentFile.load(path: path, registry: registry) {
    case .success(let file):
      guard let experiment = file.experiments.first(where: { $0.key == configuration.experiment }) else {
        let keys = file.experiments.map(\.key).joined(separator: ", ")
        console.err("error: \(path) has no experiment '\(configuration.experiment)' (experiments: \(keys))")
        return nil
      }
      setup.flow = experiment.flow
      setup.order = experiment.variations
      setup.weights = experiment.weights ?? GrowthBook.equalWeights(experiment.variations.count)
      setup.metrics = file.metrics[experiment.key] ?? []
      setup.covariate = file.covariates[experiment.key]
      if file.sequential.contains(experiment.key) { setup.sequential = true }
      setup.valuePositions = file.valuePositions[experiment.key] ?? [:]
      return setup
    case .failure(let failure):
      for problem in failure.problems { console.err(problem.description) }
      return nil
    }
  }

  public static func execute(_ configuration: ReportConfiguration, console: Console = .standard) -> Int32 {
    func fail(_ message: String) -> Int32 {
      console.err("error: \(message)")
      return 2
    }
    guard let setup = setup(configuration, console: console) else { return 2 }
    // One pass over the file: the builder keeps a compact state per exposed user only.
    var builder = ExperimentReport.Builder(
      experiment: configuration.experiment, flow: setup.flow, variationOrder: setup.order,
      metrics: setup.metrics, ordersByVariationID: setup.order.isEmpty, covariate: setup.covariate,
      sequential: setup.sequential)
    let fields = readFields.union(setup.metrics.compactMap(\.value)).union(
      [setup.covariate?.value].compactMap { $0 })
    let summary: EventsFile.Summary
    do {
      summary = try EventsFile.forEach(path: configuration.eventsPath, fields: fields) { event in
        do {
          try builder.addChecked(event)
        } catch {
          // Positioned by the reader: `events.ndjson:17: metric …`.
          throw EventLine.Problem(message: terminalSafe("\(error)", limit: 4 * nameLimit))
        }
      }
    } catch {
      return fail("\(error)")
    }
    if refusesMetricsWithoutValues(builder.metricsWithoutValues, setup, configuration, console: console) {
      return 2
    }
    if let truncated = summary.truncated {
      console.err(
        "warning: \(truncated) (the last line, without a line end: the file was cut short; "
          + "it is left out, the \(truncated.line - 1) lines before it are counted)")
    }
    let report: ExperimentReport
    do {
      report = try builder.report(weights: setup.weights)
    } catch {
      return fail(describe(error))
    }
    return emit(report, configuration, console: console)
  }

  /// Mean metrics whose field no matching event held: each is a problem at its line of
  /// the experiment file (true when there were any).
  static func refusesMetricsWithoutValues(
    _ missing: [MetricDefinition], _ setup: Setup, _ configuration: ReportConfiguration, console: Console
  ) -> Bool {
    guard !missing.isEmpty, let path = configuration.experimentsPath else { return false }
    for metric in missing {
      let position = setup.valuePositions[metric.name] ?? SourcePosition(file: path, line: 0, column: 0)
      console.err(
        ScriptProblem(
          position,
          "metrics: no \(metric.event ?? "") event in \(configuration.eventsPath) has a field '\(metric.value ?? "")'"
            + " (metric '\(metric.name)'); check the field's name"
        ).description)
    }
    return true
  }

  /// A report that could not be made, names from the events made terminal-safe.
  static func describe(_ error: ReportError) -> String {
    if case .noExposures(let experiment, let seen) = error {
      let safe = { (name: String) in terminalSafe(name, limit: nameLimit) }
      return "\(ReportError.noExposures(experiment: safe(experiment), experimentsSeen: seen.map(safe)))"
    }
    return "\(error)"
  }

  /// Writes the report in the configuration's format (and its HTML file).
  static func emit(_ report: ExperimentReport, _ configuration: ReportConfiguration, console: Console)
    -> Int32
  {
    if let htmlPath = configuration.htmlPath {
      do {
        try OutputFile.write(
          ReportHTML(report.withTerminalSafeNames(limit: nameLimit)).html, toFile: htmlPath,
          as: "the HTML report")
      } catch {
        console.err("error: \(error)")
        return 2
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
}
