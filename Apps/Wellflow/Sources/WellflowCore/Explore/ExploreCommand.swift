import ArgumentParser
import FlowKit
import Foundation
import WellflowExplorer
import WellflowScript

/// Everything `wellflow explore` takes, declared once: the command line parses it.
public struct ExploreConfiguration: ParsableArguments, ExplorationLimited, Sendable {
  public enum Format: String, CaseIterable, Sendable, ExpressibleByArgument { case text, json }

  @Argument(help: "The flow to explore (see `wellflow flows`).")
  public var flow: String

  @Option(help: "The variant to explore; the flow's default when omitted.")
  public var variant: String?

  @OptionGroup public var sources: VariantOptions

  @OptionGroup public var limits: ExplorationLimits

  @Option(help: "Output format: text or json.")
  public var format: Format = .text

  @Option(
    name: .customLong("max-sequences"), help: "Stop after this many sequences (the report says it stopped).")
  public var maxSequences: Int?

  public init() {}

  /// The defaults for `flow`, as `wellflow explore FLOW` gives them.
  public init(flow: String) { self = .parsed(["--", flow]) }

  public func validate() throws {
    if let maxSequences, maxSequences < 1 {
      throw ValidationError("--max-sequences must be at least 1, got \(maxSequences)")
    }
  }
}

/// `wellflow explore`: exit 0 when the flow keeps its contract and the exploration
/// reached every declared screen and a completed ending, 1 with violations or
/// problems, 2 when the flow, variant or depth is wrong.
@MainActor
public enum ExploreCommand {
  public static func execute(
    _ configuration: ExploreConfiguration, registry: FlowRegistry? = nil, console: Console = .standard
  ) async -> Int32 {
    let exploration: Exploration
    switch await explore(
      flow: configuration.flow, variant: configuration.variant, depth: configuration.depth,
      maxSequences: configuration.maxSequences, maxStates: configuration.maxStates, registry: registry,
      console: console)
    {
    case .success(let result): exploration = result
    case .failure: return 2
    }
    switch configuration.format {
    case .text: console.out(text(exploration))
    case .json: console.out(json(exploration))
    }
    return exploration.violations.isEmpty && exploration.problems.isEmpty ? 0 : 1
  }

  /// Runs the explorer with progress on standard error; usage errors are written there too.
  static func explore(
    flow: String, variant: String?, depth: Int, maxSequences: Int?, maxStates: Int?,
    registry given: FlowRegistry?, console: Console
  ) async -> Result<Exploration, ExploreError> {
    let registry: FlowRegistry
    if let given {
      registry = given
    } else {
      do {
        registry = try WellflowApp.makeRegistry()
      } catch {
        console.err("error: the app's features do not register: \(error)")
        return .failure(.registry(error))
      }
    }
    let explorer = FlowExplorer(
      registry: registry,
      options: FlowExplorer.Options(
        flow: flow, variant: variant, depth: depth, maxSequences: maxSequences, maxStates: maxStates),
      progress: { console.err($0) })
    do {
      return .success(try await explorer.run())
    } catch {
      console.err("error: \(error)")
      return .failure(error)
    }
  }

  /// The steps of a script that reproduces `steps` from a fresh start of the flow.
  public static func script(flow: String, variant: String, steps: [ExploreStep]) -> [String] {
    ["- start: {flow: \(yamlScalar(flow)), variant: \(yamlScalar(variant))}"] + steps.map(\.scriptStep)
  }

  /// How far the exploration went, in words: `every reachable state explored, the
  /// deepest 9 actions in`, or what stopped it.
  static func coverage(_ e: Exploration) -> String {
    if let limit = e.limit { return "stopped early: \(limit)" }
    if e.exhausted {
      return "every reachable state explored, the deepest \(e.deepest) action\(e.deepest == 1 ? "" : "s") in"
    }
    return "more states lie beyond depth \(e.depth)"
  }

  public static func text(_ exploration: Exploration) -> String {
    let e = exploration
    var lines = [
      "explore \(e.flow) (variant \(e.variant)) to depth \(e.depth)",
      "  states: \(e.states), edges: \(e.edges) (\(coverage(e)))",
      "  sequences tried: \(e.sequences) (\(e.refusalChecks) ending in an action that must be refused)",
      "  endings: \(e.completed) completed, \(e.cancelled) cancelled",
    ]
    if let steps = e.shortestCompletion {
      lines.append("  shortest completion: \(steps.map(\.command).joined(separator: ", "))")
    }
    if let steps = e.shortestCancellation {
      lines.append("  shortest cancellation: \(steps.map(\.command).joined(separator: ", "))")
    }
    let reached = e.declaredScreens.count - e.unreachedScreens.count
    lines.append(
      "  screens reached: \(reached) of \(e.declaredScreens.count) declared"
        + (e.unreachedScreens.isEmpty ? "" : "; not reached: \(e.unreachedScreens.joined(separator: ", "))"))
    if e.violations.isEmpty {
      lines.append("no violations")
    } else {
      lines.append("\(e.violations.count) violation\(e.violations.count == 1 ? "" : "s"):")
      for violation in e.violations {
        lines.append("")
        lines.append("\(violation.kind.rawValue): \(violation.message)")
        lines.append("  reproduce with these script steps:")
        lines += script(flow: e.flow, variant: e.variant, steps: violation.steps).map { "    " + $0 }
      }
    }
    if !e.problems.isEmpty {
      if !e.violations.isEmpty { lines.append("") }
      let hint =
        e.stoppedEarly
        ? " (raise the limit to explore further)" : e.exhausted ? "" : " (a greater --depth explores further)"
      lines.append("\(e.problems.count) problem\(e.problems.count == 1 ? "" : "s")\(hint):")
      for problem in e.problems { lines.append("\(problem.kind.rawValue): \(problem.message)") }
    }
    return lines.joined(separator: "\n")
  }

  struct JSONReport: Codable {
    struct Endings: Codable {
      var completed: Int
      var cancelled: Int
    }
    struct Violation: Codable {
      var kind: String
      var message: String
      var steps: [String]
    }
    struct Problem: Codable {
      var kind: String
      var message: String
    }
    var flow: String
    var variant: String
    var depth: Int
    var sequences: Int
    var refusalChecks: Int
    var states: Int
    var edges: Int
    var endings: Endings
    var shortestCompletion: [String]?
    var shortestCancellation: [String]?
    var declaredScreens: [String]
    var unreachedScreens: [String]
    var deepest: Int
    var exhausted: Bool
    var stoppedEarly: Bool
    var limit: String?
    var violations: [Violation]
    var problems: [Problem]
  }

  public static func json(_ exploration: Exploration) -> String {
    let e = exploration
    let report = JSONReport(
      flow: e.flow, variant: e.variant, depth: e.depth, sequences: e.sequences,
      refusalChecks: e.refusalChecks, states: e.states, edges: e.edges,
      endings: .init(completed: e.completed, cancelled: e.cancelled),
      shortestCompletion: e.shortestCompletion.map { $0.map(\.scriptStep) },
      shortestCancellation: e.shortestCancellation.map { $0.map(\.scriptStep) },
      declaredScreens: e.declaredScreens, unreachedScreens: e.unreachedScreens, deepest: e.deepest,
      exhausted: e.exhausted, stoppedEarly: e.stoppedEarly, limit: e.limit,
      violations: e.violations.map {
        .init(
          kind: $0.kind.rawValue, message: $0.message,
          steps: script(flow: e.flow, variant: e.variant, steps: $0.steps))
      },
      problems: e.problems.map { .init(kind: $0.kind.rawValue, message: $0.message) })
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(report)) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }
}
