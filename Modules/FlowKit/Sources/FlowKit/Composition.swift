/// A port a registered feature declared: its key and the feature that needs it.
public struct ServiceRequirement: Sendable, Hashable, CustomStringConvertible {
  let key: ObjectIdentifier
  /// The feature that declared it (`CheckInFeature`).
  public let feature: String
  /// The names, made only when asked for: a type's name found through
  /// `String(describing:)` costs a search of every protocol conformance in the process,
  /// and every app start registers these.
  private let names: @Sendable () -> (port: String, valueType: String)

  public init<Key: ServiceKey>(_ key: Key.Type, feature: String) {
    self.key = ObjectIdentifier(key)
    self.feature = feature
    self.names = { (String(describing: Key.self), String(describing: Key.Value.self)) }
  }

  /// The key's name (`MoodRepositoryKey`).
  public var port: String { names().port }
  /// The type the key provides (`MoodRepository`).
  public var valueType: String { names().valueType }

  public var description: String { "\(feature) needs \(port) (\(valueType))" }

  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.key == rhs.key && lhs.feature == rhs.feature }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(key)
    hasher.combine(feature)
  }
}

/// Why an app could not be composed. Thrown before any flow runs, so a wiring mistake
/// is a message at launch (or in a test), never a crash inside a flow.
public enum CompositionError: Error, Equatable, CustomStringConvertible {
  case registry(RegistryError)
  /// Ports that registered features declared and the environment does not provide,
  /// one per feature and port, in registration order.
  case missingServices([ServiceRequirement])

  public var description: String {
    switch self {
    case .registry(let error): error.description
    case .missingServices(let missing):
      "the app was composed without ports its features need: "
        + missing.map { "\($0.feature) needs \($0.port) (\($0.valueType))" }.joined(separator: "; ")
    }
  }

  /// The missing ports, empty for a registry error.
  public var missingServices: [ServiceRequirement] {
    if case .missingServices(let missing) = self { return missing }
    return []
  }
}

extension FlowRegistry {
  /// The declared ports that `services` does not provide, in registration order.
  public func missingServices(in services: Services) -> [ServiceRequirement] {
    requirements.filter { !services.satisfies($0) }
  }

  /// Checks what registration alone cannot: the launch rules name registered flows and
  /// `services` provides every port a registered feature declared.
  public func validate(providing services: Services) throws(CompositionError) {
    do {
      try validate()
    } catch {
      throw .registry(error)
    }
    let missing = missingServices(in: services)
    guard missing.isEmpty else { throw .missingServices(missing) }
  }
}

extension FlowHost {
  /// Composes a host: checks the registry and that `environment` provides every port
  /// the registered features declared, then builds the host. Apps and test hosts call
  /// this instead of `init`, so a missing port is a typed error here.
  public static func compose(
    registry: FlowRegistry, environment: HostEnvironment, workMode: WorkTracker.Mode = .concurrent
  ) throws(CompositionError) -> FlowHost {
    try registry.validate(providing: environment.services)
    do {
      return try FlowHost(registry: registry, environment: environment, workMode: workMode)
    } catch {
      throw .registry(error)
    }
  }

  /// Presents a flow and returns how it ended: the `await`-able form of
  /// `present(_:onEnd:)`, for feature entry points such as `presentMoodCheckIn`.
  ///
  /// It returns once the flow ends: completed, cancelled by the person, or cancelled
  /// because the host terminated. It throws at once, presenting nothing, when the host
  /// cannot present the request.
  public func presentAndWait(_ request: FlowRequest) async throws(HostError) -> FlowEnding {
    let result: Result<FlowEnding, HostError> = await withCheckedContinuation { continuation in
      do throws(HostError) {
        try present(request) { ending in continuation.resume(returning: .success(ending)) }
      } catch {
        continuation.resume(returning: .failure(error))
      }
    }
    return try result.get()
  }
}
