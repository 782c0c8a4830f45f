import FlowKit
import Foundation

/// A broken promise of the flow contract, with the shortest action sequence that shows it.
public struct ExploreViolation: Sendable, Equatable {
  public enum Kind: String, Sendable, Equatable, Codable {
    case endedTwice = "ended more than once"
    case notReleased = "coordinator not released"
    case refusedActionChangedState = "a refused action changed the flow"
    case mustBeRefused = "an action that must be refused was accepted"
    case alertButtonRefused = "an alert button was refused"
    case unexpectedError = "unexpected error"
    case hostProblem = "host problem"
    case undeclaredID = "undeclared id"
    case duplicateID = "duplicate id"
    case nondeterministic = "nondeterministic"
    case leftWithoutEnding = "left without an ending"
    /// Completeness: what the exploration did not reach (no steps to reproduce).
    case unreachedScreen = "screen never reached"
    case noCompletion = "no completed ending"
  }

  public var kind: Kind
  /// Where and what, in words a person can act on.
  public var message: String
  /// The steps from the flow's first screen that reproduce it, the last one included;
  /// empty for what the exploration did not reach.
  public var steps: [ExploreStep]

  public init(kind: Kind, message: String, steps: [ExploreStep]) {
    self.kind = kind
    self.message = message
    self.steps = steps
  }
}
