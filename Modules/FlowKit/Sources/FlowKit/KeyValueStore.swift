import Foundation

/// Small settings a feature keeps for the signed-in user (UserDefaults-shaped).
/// The app scopes the store to the user; features just use keys.
public protocol KeyValueStore: Sendable {
  func string(forKey key: String) throws -> String?
  func set(_ value: String?, forKey key: String) throws
}

extension KeyValueStore {
  public func bool(forKey key: String) throws -> Bool { try string(forKey: key) == "true" }
  public func set(_ value: Bool, forKey key: String) throws { try set(value ? "true" : "false", forKey: key) }
}

/// For unit tests and benchmarks; the app stores settings in SQLite.
public final class InMemoryKeyValueStore: KeyValueStore {
  private let values = Locked<[String: String]>([:])
  public init(_ initial: [String: String] = [:]) { values.withLock { $0 = initial } }
  public func string(forKey key: String) -> String? { values.withLock { $0[key] } }
  public func set(_ value: String?, forKey key: String) { values.withLock { $0[key] = value } }
}
