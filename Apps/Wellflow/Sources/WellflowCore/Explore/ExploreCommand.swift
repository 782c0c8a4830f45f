import FlowKit
import Foundation

public struct ExploreConfiguration: Sendable {
  public enum Format: String, CaseIterable, Sendable { case text, json }

  public var flow: String
  public var variant: String?
  public var depth = 6
  public var format = Format.text
  public var maxSequences: Int?

  public init(flow: String) { self.flow = flow }
}

/// `wellflow explore`: exit 0 when no violation was found, 1 with violations, 2 when
/// the flow, variant or depth is wrong.
@MainActor
public enum ExploreCommand {
  public static func execute(
    _ configuration: ExploreConfiguration, registry: FlowRegistry? = nil, console: Console = .standard
  ) async -> Int32 {
    let exploration: Exploration
    switch await explore(
      flow: configuration.flow, variant: configuration.variant, depth: configuration.depth,
      maxSequences: configuration.maxSequences, registry: registry, console: console)
    {
    case .success(let result): exploration = result
    case .failure: return 2
    }
    switch configuration.format {
    case .text: console.out(text(exploration))
    case .json: console.out(json(exploration))
    }
    return exploration.violations.isEmpty ? 0 : 1
  }

  /// Runs the explorer with progress on standard error; usage errors are written there too.
  static func explore(
    flow: String, variant: String?, depth: Int, maxSequences: Int?, registry given: FlowRegistry?,
    console: Console
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
      options: FlowExplorer.Options(flow: flow, variant: variant, depth: depth, maxSequences: maxSequences),
      progress: { console.err($0) })
    do {
      return .success(try await explorer.run())
    } catch {
      console.err("error: \(error)")
      return .failure(error)
    }
  }

  /// The steps of a script that reproduces `steps` from a fresh start of the flow.
  public static func script(flow: String, variant: String, steps: [UserAction]) -> [String] {
    ["- start: {flow: \(yamlScalar(flow)), variant: \(yamlScalar(variant))}"] + steps.map(\.scriptStep)
  }

  public static func text(_ exploration: Exploration) -> String {
    let e = exploration
    var lines = [
      "explore \(e.flow) (variant \(e.variant)) to depth \(e.depth)",
      "  sequences tried: \(e.sequences) (\(e.refusalChecks) ending in an action that must be refused)",
      "  distinct states: \(e.states)",
      "  endings: \(e.completed) completed, \(e.cancelled) cancelled",
    ]
    if let steps = e.shortestCompletion {
      lines.append("  shortest completion: \(steps.map(\.command).joined(separator: ", "))")
    }
    if let steps = e.shortestCancellation {
      lines.append("  shortest cancellation: \(steps.map(\.command).joined(separator: ", "))")
    }
    if e.stoppedEarly {
      lines.append(
        "  stopped early: the limit of \(e.sequences) sequences was reached before depth \(e.depth)")
    }
    if e.violations.isEmpty {
      lines.append("no violations")
      return lines.joined(separator: "\n")
    }
    lines.append("\(e.violations.count) violation\(e.violations.count == 1 ? "" : "s"):")
    for violation in e.violations {
      lines.append("")
      lines.append("\(violation.kind.rawValue): \(violation.message)")
      lines.append("  reproduce with these script steps:")
      lines += script(flow: e.flow, variant: e.variant, steps: violation.steps).map { "    " + $0 }
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
    var flow: String
    var variant: String
    var depth: Int
    var sequences: Int
    var refusalChecks: Int
    var states: Int
    var endings: Endings
    var shortestCompletion: [String]?
    var stoppedEarly: Bool
    var violations: [Violation]
  }

  public static func json(_ exploration: Exploration) -> String {
    let e = exploration
    let report = JSONReport(
      flow: e.flow, variant: e.variant, depth: e.depth, sequences: e.sequences,
      refusalChecks: e.refusalChecks,
      states: e.states, endings: .init(completed: e.completed, cancelled: e.cancelled),
      shortestCompletion: e.shortestCompletion.map { $0.map(\.scriptStep) }, stoppedEarly: e.stoppedEarly,
      violations: e.violations.map {
        .init(
          kind: $0.kind.rawValue, message: $0.message,
          steps: script(flow: e.flow, variant: e.variant, steps: $0.steps))
      })
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(report)) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }
}

public struct GraphConfiguration: Sendable {
  public enum Format: String, CaseIterable, Sendable { case mermaid, dot }

  public var flow: String
  public var variant: String?
  public var depth = 6
  public var format = Format.mermaid

  public init(flow: String) { self.flow = flow }
}

/// `wellflow graph`: the screen graph the explorer finds. Exit 0 with a graph, 2 when
/// the flow, variant or depth is wrong.
@MainActor
public enum GraphCommand {
  public static func execute(
    _ configuration: GraphConfiguration, registry: FlowRegistry? = nil, console: Console = .standard
  ) async -> Int32 {
    switch await ExploreCommand.explore(
      flow: configuration.flow, variant: configuration.variant, depth: configuration.depth, maxSequences: nil,
      registry: registry, console: console)
    {
    case .success(let exploration):
      switch configuration.format {
      case .mermaid: console.out(exploration.graph.mermaid())
      case .dot: console.out(exploration.graph.dot(name: exploration.flow))
      }
      if !exploration.violations.isEmpty {
        console.err(
          "warning: \(exploration.violations.count) contract violations found; "
            + "`wellflow explore \(exploration.flow)` lists them")
      }
      return 0
    case .failure:
      return 2
    }
  }
}
