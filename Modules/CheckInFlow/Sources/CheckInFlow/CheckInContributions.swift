import FlowKit
import MoodTrackingDomain

/// A kind of data a step contributes to the check-in, named by a type so that a step
/// from another module reads and writes its own data typed (`draft[Breaths.self]`), and
/// no two modules collide on a string.
public protocol CheckInDataKey {
  associatedtype Value: Sendable & Hashable
}

/// The data steps contributed, by key: kept in the draft through `back`, handed to the
/// steps' `save` after the mood is saved, and carried by the output.
public struct CheckInContributions: Sendable, Hashable {
  /// Values are `Sendable` by `CheckInDataKey`; the box only erases their type.
  private struct Box: @unchecked Sendable, Hashable {
    let value: AnyHashable
  }

  private var values: [ObjectIdentifier: Box] = [:]

  public init() {}

  public subscript<Key: CheckInDataKey>(_ key: Key.Type) -> Key.Value? {
    get { values[ObjectIdentifier(key)]?.value.base as? Key.Value }
    set { values[ObjectIdentifier(key)] = newValue.map { Box(value: AnyHashable($0)) } }
  }

  public var isEmpty: Bool { values.isEmpty }
}

/// Work a step asks for: it runs as the host's tracked work with the app's ports, and
/// its result is applied to the draft as it is then (the person may have gone on).
public struct CheckInStepWork: Sendable {
  public let run: @Sendable (Services) async -> @Sendable (inout CheckInDraft) -> Void

  public init(_ run: @escaping @Sendable (Services) async -> @Sendable (inout CheckInDraft) -> Void) {
    self.run = run
  }
}

extension CheckInStepOutcome {
  public static func == (lhs: CheckInStepOutcome, rhs: CheckInStepOutcome) -> Bool {
    switch (lhs, rhs) {
    case (.stay, .stay), (.next, .next), (.cancel, .cancel): true
    case (.finish(let a), .finish(let b)): a == b
    default: false
    }
  }
}
