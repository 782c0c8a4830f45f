import FlowKit
import Foundation
import Journal

/// Keeps entries in memory: for tests of the journal and of what uses it.
public final class InMemoryJournalRepository: JournalRepository {
  private struct State {
    var entries: [JournalEntry] = []
    /// Save order, so `latest` can break ties on `createdAt`.
    var saveSerial: [String: Int] = [:]
    var nextSerial = 0
    var outbox: [JournalEntry] = []
    var failure: JournalRepositoryError?
  }

  private let state = Locked(State())

  public init(entries: [JournalEntry] = []) {
    state.withLock { state in
      for entry in entries { Self.upsert(entry, into: &state) }
    }
  }

  /// Makes every later `save` and `finish` fail with `failure` (nil: succeed again).
  public func setFailure(_ failure: JournalRepositoryError?) {
    state.withLock { $0.failure = failure }
  }

  /// Every entry, in the order first saved.
  public var entries: [JournalEntry] { state.current.entries }
  /// The queued rows, oldest first.
  public var outbox: [JournalEntry] { state.current.outbox }

  public func save(_ entry: JournalEntry) async throws {
    // A typed-throws closure through `withLock`'s rethrows crashes Swift 6.3's IRGen.
    let failure = state.withLock { state in
      if state.failure == nil { Self.upsert(entry, into: &state) }
      return state.failure
    }
    if let failure { throw failure }
  }

  public func finish(_ entry: JournalEntry) async throws {
    let failure = state.withLock { state in
      if state.failure == nil {
        Self.upsert(entry, into: &state)
        state.outbox.removeAll { $0.id == entry.id }
        state.outbox.append(entry)
      }
      return state.failure
    }
    if let failure { throw failure }
  }

  public func count(userID: String) async throws -> Int {
    state.current.entries.count { $0.userID == userID }
  }

  public func latest(userID: String) async throws -> JournalEntry? {
    let state = state.current
    return state.entries.filter { $0.userID == userID }.max { a, b in
      (a.createdAt, state.saveSerial[a.id] ?? 0) < (b.createdAt, state.saveSerial[b.id] ?? 0)
    }
  }

  private static func upsert(_ entry: JournalEntry, into state: inout State) {
    if let index = state.entries.firstIndex(where: { $0.id == entry.id }) {
      state.entries[index] = entry
    } else {
      state.entries.append(entry)
    }
    state.nextSerial += 1
    state.saveSerial[entry.id] = state.nextSerial
  }
}
