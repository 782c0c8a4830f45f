// The breathing feature's sync (in an app: its BreathingSync module).

import FlowKit
import Foundation
import Sync

/// Logged sessions on the backend, as its generic resource `breathing`.
public enum BreathingSync: SyncingFeature {
  public static var syncResources: [SyncResource] {
    get throws {
      [try .generic(entity: .breathing, name: "breathing") { row in Data(row.payload.utf8) }]
    }
  }
}
