import Foundation

/// What kind of entity an outbox row carries: each feature that syncs names its own
/// (`OutboxEntity.mood` in MoodTracking), so the outbox holds any feature's rows.
public struct OutboxEntity: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(String.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }

  public var description: String { rawValue }
}

public enum OutboxOperation: String, CaseIterable, Codable, Sendable {
  case create
  case update
  case delete
}

public enum OutboxStatus: String, CaseIterable, Codable, Sendable {
  case pending
  case synced
  case failed
}

/// One change waiting to be sent to the backend. Rows of the same entity coalesce, so
/// only an entity's latest state is sent.
public struct OutboxRow: Sendable, Hashable, Codable, Identifiable {
  public var id: UUID
  public var userID: String
  public var entity: OutboxEntity
  public var entityID: String
  public var operation: OutboxOperation
  /// The entity's state to send, as JSON.
  public var payload: String
  /// Grows with every coalesced change; a send acknowledges the revision it sent.
  public var revision: Int
  /// The backend's id once known, so a later change is sent as an update (`PUT`).
  public var backendID: String?
  public var attempts: Int
  public var nextAttemptAt: Date
  public var status: OutboxStatus
  public var lastError: String?
  public var createdAt: Date

  public init(
    id: UUID, userID: String, entity: OutboxEntity, entityID: String, operation: OutboxOperation,
    payload: String, revision: Int = 1, backendID: String? = nil, attempts: Int = 0,
    nextAttemptAt: Date, status: OutboxStatus = .pending, lastError: String? = nil, createdAt: Date
  ) {
    self.id = id
    self.userID = userID
    self.entity = entity
    self.entityID = entityID
    self.operation = operation
    self.payload = payload
    self.revision = revision
    self.backendID = backendID
    self.attempts = attempts
    self.nextAttemptAt = nextAttemptAt
    self.status = status
    self.lastError = lastError
    self.createdAt = createdAt
  }

  /// This unsent row with a newer change of the same entity folded in; nil when the
  /// two cancel out (created and deleted before the backend ever heard of it).
  /// The row keeps its id and place in the queue and becomes due again.
  public func coalescing(_ newer: OutboxRow) -> OutboxRow? {
    let backendID = newer.backendID ?? self.backendID
    let operation: OutboxOperation
    switch (self.operation, newer.operation) {
    case (.create, .delete) where backendID == nil: return nil
    case (.create, .update): operation = .create
    case (.create, .create), (.update, _), (.delete, _), (.create, .delete): operation = newer.operation
    }
    var merged = self
    merged.operation = operation
    merged.payload = newer.payload
    merged.revision = revision + 1
    merged.backendID = backendID
    merged.attempts = 0
    merged.nextAttemptAt = newer.nextAttemptAt
    merged.status = .pending
    merged.lastError = nil
    return merged
  }
}

/// What became of sending one outbox row, for `Outbox.record(_:)`.
public struct OutboxResult: Sendable, Hashable {
  public enum Outcome: Sendable, Hashable {
    /// The backend has the change at `revision`, and its id for the entity (`markSynced`).
    case synced(revision: Int, backendID: String?)
    /// A permanent refusal (`markFailed`).
    case failed(reason: String)
    /// A passing failure: try again at `at` (`scheduleRetry`).
    case retry(at: Date, reason: String)
  }

  public var id: UUID
  public var outcome: Outcome

  public init(id: UUID, outcome: Outcome) {
    self.id = id
    self.outcome = outcome
  }
}

/// The queue of changes to send, scoped per user; it survives restarts in the app.
public protocol Outbox: Sendable {
  /// Adds a row, coalescing it into an unsent row of the same entity if there is one.
  func enqueue(_ row: OutboxRow) async throws
  /// Pending rows, oldest first; with `dueAt`, only those whose next attempt is due.
  func pending(userID: String, dueAt: Date?, limit: Int) async throws -> [OutboxRow]
  /// Marks the row sent: the entity now carries the backend id, and the row may leave
  /// the queue (the SQLite outbox deletes it). If it was coalesced with a newer change
  /// since `revision` was read, it stays pending (now carrying the backend id) so the
  /// newer state is sent too.
  func markSynced(id: UUID, revision: Int, backendID: String?) async throws
  /// A permanent failure: the row is not tried again.
  func markFailed(id: UUID, reason: String) async throws
  /// A transient failure: one more attempt is counted and the row waits until `at`.
  func scheduleRetry(id: UUID, at: Date, reason: String) async throws
  func pendingCount(userID: String) async throws -> Int
  func failedCount(userID: String) async throws -> Int
  /// Records many results at once, each as its `markSynced`, `markFailed` or
  /// `scheduleRetry` would: a batch's results in one transaction where the store has them.
  func record(_ results: [OutboxResult]) async throws
}

extension Outbox {
  /// One call per result, for stores without transactions.
  public func record(_ results: [OutboxResult]) async throws {
    for result in results {
      switch result.outcome {
      case .synced(let revision, let backendID):
        try await markSynced(id: result.id, revision: revision, backendID: backendID)
      case .failed(let reason): try await markFailed(id: result.id, reason: reason)
      case .retry(let date, let reason): try await scheduleRetry(id: result.id, at: date, reason: reason)
      }
    }
  }
}

/// The app provides its outbox under this key (SQLite in the app, in memory in tests).
public enum OutboxKey: ServiceKey {
  public typealias Value = any Outbox
}
