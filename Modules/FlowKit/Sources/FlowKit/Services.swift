/// A port a feature needs, provided by the app's composition root.
public protocol ServiceKey: SendableMetatype {
  associatedtype Value: Sendable
}

/// Ports by key, like SwiftUI's environment. A port a feature asks for but the
/// composition root never provided is a wiring mistake: `FlowHost.compose` refuses it
/// for every port a feature declared (`FlowFeature.requiredServices`); reading an
/// undeclared one that is missing stops loudly, naming it.
public struct Services: Sendable {
  /// A port kept with its key's value type. Reading it back is a cast to this concrete
  /// type, which compares type metadata; a cast to the port's protocol would make the
  /// runtime scan every protocol conformance in the binary the first time (about 0.2 ms a
  /// port at start-up).
  private struct Entry<Value: Sendable>: Sendable {
    let value: Value
  }

  private var values: [ObjectIdentifier: any Sendable] = [:]

  public init() {}

  public subscript<Key: ServiceKey>(_ key: Key.Type) -> Key.Value {
    get {
      guard let entry = values[ObjectIdentifier(key)] as? Entry<Key.Value> else {
        preconditionFailure(
          "no \(Key.Value.self) was provided for \(key); the app's composition root must set it")
      }
      return entry.value
    }
    set { values[ObjectIdentifier(key)] = Entry(value: newValue) }
  }

  public func has<Key: ServiceKey>(_ key: Key.Type) -> Bool { values[ObjectIdentifier(key)] != nil }

  /// Whether the port a feature declared is provided.
  public func satisfies(_ requirement: ServiceRequirement) -> Bool { values[requirement.key] != nil }

  /// Only the ports these requirements name: what a test gives a feature to check that it
  /// reads no port it did not declare.
  public func restricted(to requirements: some Sequence<ServiceRequirement>) -> Services {
    let keys = Set(requirements.map(\.key))
    var kept = Services()
    kept.values = values.filter { keys.contains($0.key) }
    return kept
  }
}

/// What every flow, query and launch rule can reach.
public struct HostEnvironment: Sendable {
  /// The signed-in user, if any.
  public var userID: String?
  public var clock: any FlowClock
  public var presentationClock: any PresentationClock
  /// Settings of the signed-in user.
  public var keyValueStore: any KeyValueStore
  public var analytics: any AnalyticsSink
  /// Feature ports (repositories, health store, …).
  public var services: Services

  public init(
    userID: String?, clock: any FlowClock, keyValueStore: any KeyValueStore,
    analytics: any AnalyticsSink = DiscardingAnalyticsSink(),
    presentationClock: any PresentationClock = ImmediatePresentationClock(), services: Services = Services()
  ) {
    self.userID = userID
    self.clock = clock
    self.keyValueStore = keyValueStore
    self.analytics = analytics
    self.presentationClock = presentationClock
    self.services = services
  }
}
