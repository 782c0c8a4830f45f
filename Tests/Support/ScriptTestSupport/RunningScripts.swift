import FlowKit
import Foundation
import WellflowScript

/// The problems a script has, as `file:line:column: message` lines (folder left out).
package func problems(_ file: String, in workspace: Workspace, registry: FlowRegistry? = nil) throws
  -> [String]
{
  let registry = try registry ?? WellflowApp.makeRegistry()
  switch ScriptLoader.load(path: workspace.path(file), vocabulary: ScriptVocabulary(registry: registry)) {
  case .success: return []
  case .failure(let failure): return workspace.relative(failure.problems.map(\.description))
  }
}

package struct ScriptDidNotLoad: Error, CustomStringConvertible {
  package var description: String

  package init(description: String) { self.description = description }
}

/// Loads and runs one script against `registry` (the lab flow by default).
@MainActor
package func runScript(
  _ file: String, in workspace: Workspace, registry: FlowRegistry? = nil, as user: String? = nil,
  options: ScriptRunner.Options = ScriptRunner.Options()
) async throws -> ScriptResult {
  let registry = try registry ?? LabFeature.registry()
  switch ScriptLoader.load(path: workspace.path(file), vocabulary: ScriptVocabulary(registry: registry)) {
  case .success(let script):
    return await ScriptRunner(registry: registry, options: options).run(script, as: user)
  case .failure(let failure):
    throw ScriptDidNotLoad(description: failure.problems.map(\.description).joined(separator: "\n"))
  }
}

extension ScriptResult {
  /// `line:column status summary → screen`, one a step, for compact expectations.
  package var trace: [String] {
    steps.map { step in
      String(repeating: "  ", count: step.depth)
        + "\(step.position.line) \(step.status.rawValue) \(step.summary) → \(step.screen)"
    }
  }
}
