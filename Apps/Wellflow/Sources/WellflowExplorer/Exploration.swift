import FlowKit
import Foundation

/// What `wellflow explore` found.
public struct Exploration: Sendable {
  public var flow: String
  public var variant: String
  public var depth: Int
  /// Steps tried, each on an app replayed from a fresh start (or reused while refused
  /// steps left it as it was).
  public var sequences: Int
  /// Of those, the ones ending in an action that must be refused.
  public var refusalChecks: Int
  /// Distinct states (screen after settling, or the ending), each expanded once.
  public var states: Int
  /// Transitions between states: one per state and action (or class of options) that
  /// the flow accepted.
  public var edges: Int
  /// Transitions that ended the flow, by outcome.
  public var completed: Int
  public var cancelled: Int
  public var shortestCompletion: [ExploreStep]?
  public var shortestCancellation: [ExploreStep]?
  public var violations: [ExploreViolation]
  /// What the exploration did not reach: declared screens never shown and no
  /// `completed` ending. Each makes the exploration fail, like a violation.
  public var problems: [ExploreViolation]
  /// The declared screens the explored variant shows, and those no state showed.
  public var declaredScreens: [String]
  public var unreachedScreens: [String]
  /// The number of actions of the longest shortest path: with `exhausted`, every state
  /// reachable from the first screen was explored within this many actions.
  public var deepest: Int
  /// True when no new state was left to explore before `depth` (nor a limit) was reached.
  public var exhausted: Bool
  /// True when `maxSequences` or `maxStates` stopped the exploration; `limit` says which.
  public var stoppedEarly: Bool
  public var limit: String?
  public var graph: FlowGraph
  /// Every text a person could read on the screens reached (titles, messages, labels,
  /// options, captions, alerts), in the explored language.
  public var shownTexts: Set<String>
}
