import ArgumentParser
import FlowKit
import Foundation

/// Everything `wellflow graph` takes, declared once: the command line parses it.
public struct GraphConfiguration: ParsableArguments, ExplorationLimited, Sendable {
  public enum Format: String, CaseIterable, Sendable, ExpressibleByArgument { case mermaid, dot }

  @Argument(help: "The flow to draw (see `wellflow flows`).")
  public var flow: String

  @Option(help: "The variant to draw; the flow's default when omitted.")
  public var variant: String?

  @OptionGroup public var sources: VariantOptions

  @Option(help: "Output format: mermaid or dot.")
  public var format: Format = .mermaid

  @OptionGroup public var limits: ExplorationLimits

  public init() {}

  /// The defaults for `flow`, as `wellflow graph FLOW` gives them.
  public init(flow: String) { self = .parsed(["--", flow]) }
}

/// `wellflow graph`: the screen graph the explorer finds. Exit 0 with a complete
/// graph, 1 when a declared screen or a completed ending was not reached (the graph
/// found is still printed, the problems go to standard error), 2 when the flow,
/// variant or depth is wrong.
@MainActor
public enum GraphCommand {
  public static func execute(
    _ configuration: GraphConfiguration, registry: FlowRegistry? = nil, console: Console = .standard
  ) async -> Int32 {
    switch await ExploreCommand.explore(
      flow: configuration.flow, variant: configuration.variant, depth: configuration.depth, maxSequences: nil,
      maxStates: configuration.maxStates, registry: registry, console: console)
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
      guard exploration.problems.isEmpty else {
        console.err("error: the graph is incomplete (\(ExploreCommand.coverage(exploration))):")
        for problem in exploration.problems { console.err("  \(problem.kind.rawValue): \(problem.message)") }
        return 1
      }
      return 0
    case .failure:
      return 2
    }
  }
}
