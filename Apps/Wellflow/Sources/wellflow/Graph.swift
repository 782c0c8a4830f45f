import ArgumentParser
import Foundation
import WellflowCore

struct Graph: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "graph",
    abstract: "Print a flow's screen graph, as the explorer finds it.",
    discussion: """
      Nodes are screen ids, `screen + alert` while an alert is up, and the endings
      completed and cancelled; edges are labelled with the action (`tap continue`).
      A choice is one edge per target, labelled with the first class of options
      the flow cannot tell apart (`select emotion calm (+37 alike)`); options it
      tells apart that lead the same way elsewhere are counted as more
      (`select layer 0 (+10 more)`). `advance 90s` moves the clock to a flow's
      next timer. The order is deterministic, so the output can be kept under
      version control.

      The graph is explored as `wellflow explore` does. When a declared screen or a
      completed ending was not reached, the graph found is printed, what is missing
      goes to standard error, and the exit status is 1.

      Examples:
        wellflow graph onboarding > onboarding.mmd
        wellflow graph journal --format dot | dot -Tsvg > journal.svg
      """)

  @Argument(help: "The flow to draw (see `wellflow flows`).")
  var flow: String

  @Option(help: "The variant to draw; the flow's default when omitted.")
  var variant: String?

  @OptionGroup var sources: VariantOptions

  @Option(help: "Output format: mermaid or dot.")
  var format: GraphConfiguration.Format = .mermaid

  @Option(help: "How many actions deep to explore.")
  var depth = FlowExplorer.defaultDepth

  @Option(
    name: .customLong("max-states"),
    help: "Stop after finding this many states (the graph is then incomplete).")
  var maxStates: Int?

  func validate() throws {
    guard depth >= 1 else { throw ValidationError("--depth must be at least 1, got \(depth)") }
    if let maxStates, maxStates < 1 {
      throw ValidationError("--max-states must be at least 1, got \(maxStates)")
    }
  }

  @MainActor
  func run() async throws {
    let loaded = try sources.load()
    var configuration = GraphConfiguration(flow: flow)
    configuration.variant = sources.variant(variant, of: flow, in: loaded)
    configuration.format = format
    configuration.depth = depth
    configuration.maxStates = maxStates
    let code = await GraphCommand.execute(configuration, registry: loaded.registry)
    if code != 0 { throw ExitCode(code) }
  }
}

extension GraphConfiguration.Format: ExpressibleByArgument {}
