// The breathing feature's testing library (`Modules/Breathing/Sources/BreathingTesting` in a
// real module): its ports in memory, for its tests. The app never links it.

import FlowKit
import Foundation

/// Sessions in memory, for tests.
public final class InMemoryBreathingLog: BreathingLog {
  private let sessions = Locked<[String: [Int]]>([:])
  public init() {}
  public func save(minutes: Int, userID: String, at date: Date) async throws {
    sessions.withLock { $0[userID, default: []].append(minutes) }
  }
  public func count(userID: String) async throws -> Int { sessions.current[userID]?.count ?? 0 }
}

/// Reminders in memory, for tests.
public final class InMemoryBreathingReminders: BreathingReminders {
  private let delivered = Locked<[Date]>([])
  public init() {}
  public func deliver(at date: Date) async throws { delivered.withLock { $0.append(date) } }
  public func unopened() async throws -> [Date] { delivered.current }
  public func markLatestOpened() async throws { delivered.withLock { _ = $0.popLast() } }
}
