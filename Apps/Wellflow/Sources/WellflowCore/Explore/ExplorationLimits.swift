import ArgumentParser
import Foundation
import WellflowExplorer

/// `--depth` and `--max-states`: how far `wellflow explore` and `wellflow graph` search,
/// declared once for both.
public struct ExplorationLimits: ParsableArguments, Sendable {
  @Option(help: "How many actions deep to explore.")
  public var depth = FlowExplorer.defaultDepth

  @Option(
    name: .customLong("max-states"), help: "Stop after finding this many states (the report says it stopped)."
  )
  public var maxStates: Int?

  public init() {}

  public func validate() throws {
    guard depth >= 1 else { throw ValidationError("--depth must be at least 1, got \(depth)") }
    if let maxStates, maxStates < 1 {
      throw ValidationError("--max-states must be at least 1, got \(maxStates)")
    }
  }
}

extension ParsableArguments {
  /// The arguments as the command line would give them: options not given are their
  /// defaults, which a value made with `init()` cannot read.
  static func parsed(_ arguments: [String]) -> Self {
    do { return try parse(arguments) } catch {
      // Only the callers' fixed arguments reach here, never a user's.
      preconditionFailure("\(Self.self): \(fullMessage(for: error))")
    }
  }
}

/// A command that takes the exploration limits: `depth` and `maxStates` read and set them.
public protocol ExplorationLimited {
  var limits: ExplorationLimits { get set }
}

extension ExplorationLimited {
  public var depth: Int {
    get { limits.depth }
    set { limits.depth = newValue }
  }

  public var maxStates: Int? {
    get { limits.maxStates }
    set { limits.maxStates = newValue }
  }
}
