// A worked example of the plugin guide (FlowKit.docc/PluginGuide.md): the page shows this code, and
// GuideDocumentationTests checks that it still does, word for word.

import FlowKit
import Foundation

/// Reminders in memory, for tests: `deliver(at:)` is the scheduler firing.
public final class InMemoryGratitudeReminders: GratitudeReminders {
  private let delivered = Locked<[Date]>([])
  public init() {}
  public func deliver(at date: Date) { delivered.withLock { $0.append(date) } }
  public func unopened() async throws -> [Date] { delivered.current }
  public func markLatestOpened() async throws { delivered.withLock { _ = $0.popLast() } }
}
