import FlowKit
import Foundation

/// An outbox in memory, for unit tests (the app's is SQLite's).
public final class InMemoryOutbox: Outbox {
  private let rows = Locked<[OutboxRow]>([])

  public init() {}

  public var all: [OutboxRow] { rows.current }

  public func enqueue(_ row: OutboxRow) {
    rows.withLock { Self.enqueue(row, into: &$0) }
  }

  /// Adds `row` to `rows` as `enqueue` does, for a repository that writes its entity
  /// and its outbox row under one lock.
  public static func enqueue(_ row: OutboxRow, into rows: inout [OutboxRow]) {
    guard
      let index = rows.firstIndex(where: {
        $0.userID == row.userID && $0.entity == row.entity && $0.entityID == row.entityID
          && $0.status != .synced
      })
    else {
      rows.append(row)
      return
    }
    if let merged = rows[index].coalescing(row) {
      rows[index] = merged
    } else {
      rows.remove(at: index)
    }
  }

  /// The rows under the outbox's lock.
  public func withRows<Result>(_ body: (inout [OutboxRow]) -> Result) -> Result { rows.withLock(body) }

  public func pending(userID: String, dueAt: Date?, limit: Int) -> [OutboxRow] {
    let due = rows.current.filter { row in
      row.userID == userID && row.status == .pending && (dueAt.map { row.nextAttemptAt <= $0 } ?? true)
    }
    return Array(due.sorted { $0.createdAt < $1.createdAt }.prefix(limit))
  }

  public func markSynced(id: UUID, revision: Int, backendID: String?) {
    update(id) { row in
      row.backendID = backendID ?? row.backendID
      if row.revision == revision { row.status = .synced }
    }
  }

  public func markFailed(id: UUID, reason: String) {
    update(id) { row in
      row.status = .failed
      row.lastError = reason
    }
  }

  public func scheduleRetry(id: UUID, at date: Date, reason: String) {
    update(id) { row in
      row.attempts += 1
      row.nextAttemptAt = date
      row.lastError = reason
    }
  }

  public func pendingCount(userID: String) -> Int {
    rows.current.count { $0.userID == userID && $0.status == .pending }
  }

  public func failedCount(userID: String) -> Int {
    rows.current.count { $0.userID == userID && $0.status == .failed }
  }

  private func update(_ id: UUID, _ change: (inout OutboxRow) -> Void) {
    rows.withLock { rows in
      if let index = rows.firstIndex(where: { $0.id == id }) { change(&rows[index]) }
    }
  }
}
