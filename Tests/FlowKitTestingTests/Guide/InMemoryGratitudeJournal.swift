// A worked example of the plugin guide (FlowKit.docc/PluginGuide.md): the page shows this code, and
// GuideDocumentationTests checks that it still does, word for word.

import FlowKit
import Foundation

/// Lists in memory, for tests: of the feature, and of anything that uses its port.
public final class InMemoryGratitudeJournal: GratitudeJournal {
  private let lists = Locked<[String: [[String]]]>([:])
  public init() {}
  public func save(_ items: [String], userID: String, at date: Date) async throws {
    lists.withLock { $0[userID, default: []].append(items) }
  }
  public func count(userID: String) async throws -> Int { lists.current[userID]?.count ?? 0 }
}
