import CheckInFlow
import FlowKit
import Journal
import JournalSQLite
import JournalSync
import MoodTracking
import MoodTrackingSQLite
import MoodTrackingSync
import Onboarding
import Reminders
import RemindersSQLite
import Storage
import Sync

/// The features the app ships. Their order does not change what the app does: launch
/// rules are asked by priority (then id), and every other lookup is by id. The one
/// order a list must keep: a feature adding a variant to another feature's flow comes
/// after that feature, or registration fails with `variantOfUnknownFlow`. A feature that
/// syncs lists its `<Feature>Sync` module's `SyncingFeature` here too: the sync service
/// sends its resources in this order. A feature that keeps data lists its
/// `<Feature>SQLite` module's `StoringFeature`: their migrations run after the shared
/// ones in this order, so a new one goes after the others (a file's applied migrations
/// are never run again, whatever the order).
public enum WellflowFeatures {
  public static let all: [any FlowFeature.Type] = [
    OnboardingFeature.self, MoodTrackingFeature.self, CheckInFeature.self, JournalFeature.self,
    MoodTrackingSync.self, JournalSync.self, RemindersFeature.self,
    MoodTrackingStorage.self, JournalStorage.self, RemindersStorage.self,
  ]

  /// What the sync service sends and pulls: the syncing features' resources, from `all`.
  /// Throws as registering them would (`makeRegistry` says which feature).
  public static var syncResources: [SyncResource] { get throws { try all.syncResources } }

  /// The features' storage, from the storing features in `all`, in its order.
  public static let storage: [FeatureStorage] = all.storage

  /// The app's database schema, made of `storage`. One for the process: it keeps the
  /// in-memory databases of runs that keep nothing.
  public static let schema = SQLiteSchema(storage)

  /// Registers `features` and checks what can only be checked once all registered.
  public static func makeRegistry(_ features: [any FlowFeature.Type] = all) throws(RegistryError)
    -> FlowRegistry
  {
    var registry = FlowRegistry()
    for feature in features { try registry.register(feature) }
    try registry.validate()
    return registry
  }
}
