// A worked example of the plugin guide (FlowKit.docc/PluginGuide.md): the page shows this code, and
// GuideDocumentationTests checks that it still does, word for word.

import FlowKit
import Foundation
import Sync

/// Saved lists on the backend, as its generic resource `gratitude`: the outbox row's
/// payload is already the object the backend keeps, so the feature needs no route,
/// contract or client change of its own. An app lists it in `WellflowFeatures.all`
/// beside the feature; the guide's test lists it in its test host.
public enum GratitudeSync: SyncingFeature {
  /// A name that is not a resource name throws here, and registering the feature fails
  /// with that error, naming the feature.
  public static var syncResources: [SyncResource] {
    get throws {
      [try .generic(entity: .gratitude, name: "gratitude") { row in Data(row.payload.utf8) }]
    }
  }
}
