import FlowKit
import Foundation
import YAMLTree

/// A context check-in declared in a file under `followUps:` (a script or an experiment
/// file): after flow `after` ends with `outcome`, when every query in `when` matches,
/// present `present` with trigger `event`.
///
/// ```yaml
/// followUps:
///   - after: mood.log
///     when: {mood.latest.score: {max: 3}}
///     present: journal
/// ```
public struct FollowUpDeclaration: Sendable {
  public var id: String
  public var after: String
  public var outcome: FlowEnding.Outcome
  public var when: [(query: String, matcher: Matcher)]
  public var present: FlowRequest
  public var position: SourcePosition

  /// The rule, reading its queries from `registry`.
  public func rule(in registry: FlowRegistry) -> FollowUpRule {
    let checks = when.compactMap { check in registry.query(check.query).map { ($0, check.matcher) } }
    return FollowUpRule(id: id, after: after, outcome: outcome, present: present) { environment, _ in
      for (query, matcher) in checks where !matcher.matches(try await query.resolve(environment)) {
        return false
      }
      return true
    }
  }
}

extension FlowRegistry {
  /// The registry with `declarations` registered, or the first problem as
  /// `file:line:column: message`.
  func registering(_ declarations: [FollowUpDeclaration]) -> Result<FlowRegistry, ScriptProblem> {
    var registry = self
    for declaration in declarations {
      do {
        try registry.register(declaration.rule(in: self))
      } catch {
        return .failure(ScriptProblem(declaration.position, "\(error)"))
      }
    }
    return .success(registry)
  }
}
