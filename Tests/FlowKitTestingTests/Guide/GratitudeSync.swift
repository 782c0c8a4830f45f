// A worked example of the plugin guide (FlowKit.docc/PluginGuide.md): the page shows this code, and
// GuideDocumentationTests checks that it still does, word for word.

import FlowKit
import Foundation
import Sync

/// Saved lists on the backend, as its generic resource `gratitude`: the outbox row's
/// payload is already the object the backend keeps, so the feature needs no route,
/// contract or client change of its own. Listed in `WellflowFeatures.all` like the rest.
public enum GratitudeSync: SyncingFeature {
  public static let resource = SyncResource.generic(entity: .gratitude, name: "gratitude") { row in
    Data(row.payload.utf8)
  }

  public static var syncResources: [SyncResource] { [resource] }
}
