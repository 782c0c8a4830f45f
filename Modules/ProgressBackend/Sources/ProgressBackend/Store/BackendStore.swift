import Foundation
import ProgressContract

/// Where the backend keeps its rows: the port the route handlers and the idempotent writes
/// use. `SQLiteBackendStore` is its adapter; another database is another adapter. Rows
/// come back as the contract's types (`ProgressRecord`, `JournalRecord`, `Page`).
protocol BackendStore: Sendable {
  /// Before the first request: connects and brings the schema up to date, or says why not.
  func prepare() async throws
  /// After the last request.
  func close() async
  /// The answers to `writes`, in order, each as `IdempotentWrites.perform` gives it, in one
  /// transaction: all of their rows are written, or none.
  func perform(_ writes: [Write], userID: String) async throws -> [BackendResponse]
  /// A page of the user's progress rows (of `type`, when given) in date order, and how many
  /// rows match in all.
  func progressPage(userID: String, type: String?, page: PageRequest) async throws -> Page<ProgressRecord>
  /// That page as the API answers it (`{"data":{…}}`), byte for byte as `JSONText.data`
  /// writes `progressPage`'s: a store may write it as it reads the rows.
  func progressPageJSON(userID: String, type: String?, page: PageRequest) async throws -> [UInt8]
  /// The user's progress row `id`; nil when there is none (or it is another user's).
  func progress(id: String, userID: String) async throws -> ProgressRecord?
  /// A page of the user's journal rows in date order, and how many match in all.
  func journalPage(userID: String, page: PageRequest) async throws -> Page<JournalRecord>
  /// A page of the user's rows of a generic resource, in the order they were created, and
  /// how many there are in all.
  func resourcePage(userID: String, resource: String, page: PageRequest) async throws -> Page<StoredResource>
  /// The user's row `id` of `resource`; nil when there is none (or it is another user's or
  /// another resource's).
  func resource(id: String, userID: String, resource: String) async throws -> StoredResource?
}

extension BackendStore {
  func prepare() async throws {}
  func close() async {}

  func progressPageJSON(userID: String, type: String?, page: PageRequest) async throws -> [UInt8] {
    JSONText.data(try await progressPage(userID: userID, type: type, page: page))
  }
}

/// Which database `serve` keeps its rows in: a SQLite file (or memory) or PostgreSQL.
public enum BackendDatabase: Sendable, Equatable, CustomStringConvertible {
  /// nil keeps the rows in memory.
  case sqlite(path: String?)
  case postgres(PostgresLocation)

  /// A `postgres://` URL, else a SQLite file path.
  public init(argument: String) throws(PostgresFailure) {
    if PostgresLocation.isURL(argument) {
      self = .postgres(try PostgresLocation(url: argument))
    } else {
      self = .sqlite(path: argument)
    }
  }

  /// Where the rows are, without a password.
  public var description: String {
    switch self {
    case .sqlite(let path): path ?? "memory"
    case .postgres(let location): location.description
    }
  }

  func makeStore() throws -> any BackendStore {
    switch self {
    case .sqlite(let path): try SQLiteBackendStore(path: path)
    case .postgres(let location): PostgresBackendStore(location: location)
    }
  }
}

/// What one write transaction can do: how `IdempotentWrites.perform` writes through a store
/// whose transactions are synchronous (SQLite's).
protocol BackendTransaction {
  /// The answer kept for the user's idempotency key, with the fingerprint of the request
  /// that got it (nil for keys kept before fingerprints were).
  func keptAnswer(userID: String, key: String) throws -> KeptAnswer?
  /// Keeps `response` as the answer to the user's key.
  func keep(_ response: BackendResponse, fingerprint: Data, userID: String, key: String) throws
  /// The id of the user's row that carries the client's `entryID`, if any.
  func progressID(userID: String, entryID: String) throws -> String?
  /// `nil` when the user has no row `id`; else the row's entry id (itself optional).
  func progressEntryID(id: String, userID: String) throws -> String??
  func insertProgress(id: String, userID: String, _ input: ProgressInput) throws
  func updateProgress(id: String, _ input: ProgressInput) throws
  /// False when the user has no row `id`.
  func deleteProgress(id: String, userID: String) throws -> Bool
  func insertJournal(id: String, userID: String, _ input: JournalInput) throws
  /// Adds a row of a generic resource; `body` is canonical JSON.
  func insertResource(id: String, userID: String, resource: String, body: String) throws
  /// False when the user has no row `id` of `resource`.
  func updateResource(id: String, userID: String, resource: String, body: String) throws -> Bool
  /// False when the user has no row `id` of `resource`.
  func deleteResource(id: String, userID: String, resource: String) throws -> Bool
  /// Adds analytics events, each one line of an events file (a JSON object).
  func insertEvents(_ lines: [String]) throws
}

struct KeptAnswer: Sendable {
  var response: BackendResponse
  var fingerprint: Data?
}

extension JournalRecord {
  /// The row `input` makes under `id`.
  init(id: String, _ input: JournalInput) {
    self.init(
      id: id, createdAt: input.createdAt, curriculumID: input.curriculumID,
      secondaryCurriculumID: input.secondaryCurriculumID, strategyID: input.strategyID,
      initiatedBy: input.initiatedBy)
  }
}
