import FlowKit
import WellflowExplorer
import WellflowScript

/// Explores `flow` as `wellflow explore` would, in the app's registry unless a test
/// passes its own.
@MainActor
package func explore(
  _ flow: String, variant: String? = nil, depth: Int = FlowExplorer.defaultDepth,
  registry: FlowRegistry? = nil
) async throws -> Exploration {
  let registry = try registry ?? WellflowApp.makeRegistry()
  return try await FlowExplorer(
    registry: registry, options: FlowExplorer.Options(flow: flow, variant: variant, depth: depth)
  ).run()
}
