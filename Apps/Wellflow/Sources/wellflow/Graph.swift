import ArgumentParser
import Foundation
import WellflowCore

/// The command is its configuration: every option is declared once, in WellflowCore, and
/// the command adds no level of options around it.
typealias Graph = GraphConfiguration

extension Graph: AsyncParsableCommand {
  public static let configuration = CommandConfiguration(
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

  @MainActor
  public func run() async throws {
    let loaded = try sources.load()
    var configuration = self
    configuration.variant = sources.variant(variant, of: flow, in: loaded)
    let code = await GraphCommand.execute(configuration, registry: loaded.registry)
    if code != 0 { throw ExitCode(code) }
  }
}
