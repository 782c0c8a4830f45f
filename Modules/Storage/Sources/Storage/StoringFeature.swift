import FlowKit

/// A feature that keeps data in the app's database: its `<Feature>SQLite` module's entry
/// in the app's one features list, so that adding the feature is one line there (its
/// flows, its sync resources and its storage all come from that list). It registers no
/// flow of its own. (A type that is also a `SyncingFeature` says `contributions` itself:
/// `[storage] + syncResources`.)
public protocol StoringFeature: FlowFeature {
  static var storage: FeatureStorage { get }
}

extension StoringFeature {
  public static func register(in registry: inout FlowRegistry) throws(RegistryError) {}
  public static var contributions: [any Sendable] { [storage] }
}

extension Array where Element == any FlowFeature.Type {
  /// The storage of the storing features among these, in their order: the order their
  /// migrations run in after the shared ones.
  public var storage: [FeatureStorage] {
    // A feature whose contributions cannot be made fails to register (its sync
    // resources are what throw); it has no storage to give here.
    flatMap { (try? $0.contributions) ?? [] }.compactMap { $0 as? FeatureStorage }
  }
}
