import FlowKit
import Foundation

/// Who started the journal: the person, or a reminder notification.
public enum JournalInitiator: String, Sendable, Equatable, Codable {
  case `self`
  case scheduled

  /// A notification-triggered journal is a scheduled one (`initiated_by: scheduled`); any
  /// other trigger is the person's own (`self`).
  public init(trigger: FlowTrigger) {
    self = trigger == .notification ? .scheduled : .self
  }
}

/// One journal entry: the primary feeling, optionally a secondary one and a
/// self-care strategy. Ids name records of the bundled catalog.
public struct JournalEntry: Sendable, Equatable, Codable, Identifiable {
  public var id: String
  public var userID: String
  public var createdAt: Date
  public var primary: Int
  public var secondary: Int?
  public var strategy: Int?
  public var initiatedBy: JournalInitiator

  public init(
    id: String, userID: String, createdAt: Date, primary: Int, secondary: Int? = nil, strategy: Int? = nil,
    initiatedBy: JournalInitiator
  ) {
    self.id = id
    self.userID = userID
    self.createdAt = createdAt
    self.primary = primary
    self.secondary = secondary
    self.strategy = strategy
    self.initiatedBy = initiatedBy
  }
}

/// Why a journal entry could not be kept; messages tell a person what happened.
public enum JournalRepositoryError: Error, Equatable, CustomStringConvertible {
  case userNotAuthenticated
  case storageFailed(String)

  public var description: String {
    switch self {
    case .userNotAuthenticated: "Sign in to keep a journal."
    case .storageFailed(let reason): "The entry could not be saved: \(reason)"
    }
  }
}

/// Where journal entries live. `save` writes or updates the entry locally as the
/// flow goes on; `finish` queues its one outbox row for `POST /api/v1/journal` when
/// the flow ends (a SQLite adapter writes the final state and the row in one
/// transaction). Every read is scoped to one user.
public protocol JournalRepository: Sendable {
  func save(_ entry: JournalEntry) async throws
  func finish(_ entry: JournalEntry) async throws
  func count(userID: String) async throws -> Int
  /// The entry with the latest `createdAt`; on a tie, the one saved last.
  func latest(userID: String) async throws -> JournalEntry?
}

/// The app provides its repository under this key.
public enum JournalRepositoryKey: ServiceKey {
  public typealias Value = any JournalRepository
}

extension OutboxEntity {
  /// A finished journal entry (`POST /api/v1/journal`).
  public static let journal = OutboxEntity(rawValue: "journal")
}

/// A finished journal entry as its outbox row keeps it, in the feature's own words: what
/// JournalSync turns into the backend's body when the row is sent.
public struct JournalSyncPayload: Sendable, Hashable, Codable {
  /// ISO 8601.
  public var createdAt: String
  public var primary: Int
  public var secondary: Int?
  public var strategy: Int?
  public var initiatedBy: JournalInitiator

  public init(entry: JournalEntry) {
    createdAt = Timestamp.string(from: entry.createdAt)
    primary = entry.primary
    secondary = entry.secondary
    strategy = entry.strategy
    initiatedBy = entry.initiatedBy
  }

  public func json() -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Encoding strings and integers cannot fail.
    return String(decoding: try! encoder.encode(self), as: UTF8.self)
  }
}
