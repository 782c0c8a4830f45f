import CheckInFlow
import FlowKit
import Journal
import MoodTracking
import Onboarding
import Reminders
import Sync

/// The features the app ships. Their order does not change what the app does: launch
/// rules are asked by priority (then id), and every other lookup is by id. The one
/// order a list must keep: a feature adding a variant to another feature's flow comes
/// after that feature, or registration fails with `variantOfUnknownFlow`.
public enum WellflowFeatures {
  public static let all: [any FlowFeature.Type] = [
    OnboardingFeature.self, MoodTrackingFeature.self, CheckInFeature.self, JournalFeature.self,
    SyncFeature.self, RemindersFeature.self,
  ]

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
