import FlowKit
import Foundation

/// One kind of outbox row and how it reaches the backend, registered by the feature that
/// writes those rows (its `<Feature>Sync` module, which alone turns the feature's row
/// into the contract's body). Sync knows no feature: the outbox processor, the pull and
/// the `backend.*` queries go through the resources they are given.
public struct SyncResource: Sendable {
  /// A `POST`: the body goes in, the backend's id for the row comes out.
  public typealias Create =
    @Sendable (any ProgressAPI, _ body: Data, _ idempotencyKey: String) async throws(ProgressAPIError) ->
    String
  /// A `PUT` of the row the backend knows by `id`; returns the backend's id.
  public typealias Update =
    @Sendable (any ProgressAPI, _ id: String, _ body: Data, _ idempotencyKey: String)
    async throws(ProgressAPIError) -> String
  /// A `DELETE` of the row the backend knows by `id`.
  public typealias Delete =
    @Sendable (any ProgressAPI, _ id: String, _ idempotencyKey: String) async throws(ProgressAPIError) -> Void
  /// Up to `ProgressBatchItem.maxPerBatch` writes in one request, one result per item.
  public typealias Batch =
    @Sendable (any ProgressAPI, [ProgressBatchItem]) async throws(ProgressAPIError) -> [ProgressBatchResult]

  /// How the resource's rows are written.
  public enum Writes: Sendable {
    /// Written once with a `POST`; a row the backend has needs nothing more. Its
    /// idempotency key is `entity:revision`, so one queued again gets the first answer.
    case once(create: Create)
    /// Created, changed and deleted: a `PUT` the backend answers 404 (deleted elsewhere)
    /// is sent anew as a `POST`, a `DELETE` answered 404 is done, a delete of a row the
    /// backend never had needs no request. With `batch`, rows go up to
    /// `maxBatchItems` at a time. Its idempotency key names the outbox row too (see
    /// `idempotencyKey(for:)`).
    case changing(create: Create, update: Update, delete: Delete, batch: Batch?)
  }

  /// The outbox rows it sends.
  public let entity: OutboxEntity
  /// The resource's path in the contract (`APIPath`): `backend.<last component>.count`
  /// counts the user's rows there.
  public let path: String
  public let writes: Writes
  /// The request body for a row: the feature's stored change in the contract's words.
  public let body: @Sendable (OutboxRow) -> Data
  /// The user's rows on the backend (the backend's own count).
  public let count: @Sendable (any ProgressAPI) async throws(ProgressAPIError) -> Int
  /// Brings what other devices sent into this one, if the resource pulls.
  public let pull: (@Sendable (SyncPullContext) async throws -> SyncPullReport)?

  public init(
    entity: OutboxEntity, path: String, writes: Writes, body: @escaping @Sendable (OutboxRow) -> Data,
    count: @escaping @Sendable (any ProgressAPI) async throws(ProgressAPIError) -> Int,
    pull: (@Sendable (SyncPullContext) async throws -> SyncPullReport)? = nil
  ) {
    self.entity = entity
    self.path = path
    self.writes = writes
    self.body = body
    self.count = count
    self.pull = pull
  }

  /// The name in `backend.<name>.count`: the path's last component (`progress`, `journal`).
  public var name: String { String(path.split(separator: "/").last ?? Substring(path)) }

  /// The idempotency key of a row's change. A changing resource's names the entity, the
  /// outbox row and its revision: a change made after an earlier one synced is a new row
  /// (the synced one left the outbox), so `entity:revision` alone would repeat the first
  /// key, which the backend refuses (422) for another request. A row written once keeps
  /// `entity:revision`, so one queued again gets the first answer.
  public func idempotencyKey(for row: OutboxRow) -> String {
    switch writes {
    case .changing: "\(row.entityID):\(row.id.uuidString.lowercased()):\(row.revision)"
    case .once: "\(row.entityID):\(row.revision)"
    }
  }

  var batch: Batch? {
    if case .changing(_, _, _, let batch) = writes { batch } else { nil }
  }
}

extension SyncResource {
  /// How a row of a generic resource pulled from the backend becomes the feature's
  /// entity: the feature keeps it through its own port (`context.services`) and says
  /// whether it was new, its own or one it cannot hold.
  public typealias Pulled = @Sendable (ResourceRecord, SyncPullContext) async throws -> SyncPulledItem

  /// A feature's rows on the backend's generic resource `name` (`/api/v1/resources/{name}`,
  /// a `ResourceName`), a peer of progress in every way: created, changed and deleted as
  /// `.changing` rows are, up to `ProgressBatchItem.maxPerBatch` at a time through the
  /// batch endpoint, counted by `backend.<name>.count`, and, with `pulled`, pulled back
  /// from other devices a page at a time (`PagedPull`). `body` turns an outbox row into
  /// the JSON object the server keeps, `pulled` a kept object back into the feature's
  /// entity; no route, contract or client change is needed for a new one. A name that is
  /// not a `ResourceName` throws `SyncResourceError.invalidName`.
  public static func generic(
    entity: OutboxEntity, name: String, body: @escaping @Sendable (OutboxRow) -> Data,
    pulled: Pulled? = nil
  ) throws(SyncResourceError) -> SyncResource {
    guard ResourceName.isValid(name) else { throw .invalidName(name) }
    var pull: (@Sendable (SyncPullContext) async throws -> SyncPullReport)?
    if let pulled {
      pull = { context in
        try await PagedPull.run(
          from: context.offset,
          page: { offset throws(ProgressAPIError) -> Page<ResourceRecord> in
            try await context.api.listResource(name, ListQuery(limit: PagedPull.pageSize, offset: offset))
          },
          id: { (record: ResourceRecord) in record.id },
          each: { record in try await pulled(record, context) })
      }
    }
    return SyncResource(
      entity: entity, path: APIPath.resource(name),
      writes: .changing(
        create: { api, body, key throws(ProgressAPIError) in
          try await api.createResource(name, body: body, idempotencyKey: key).id
        },
        update: { api, id, body, key throws(ProgressAPIError) in
          try await api.updateResource(name, id: id, body: body, idempotencyKey: key).id
        },
        delete: { api, id, key throws(ProgressAPIError) in
          try await api.deleteResource(name, id: id, idempotencyKey: key)
        },
        batch: { api, items throws(ProgressAPIError) in
          try await api.batch(items.map { $0.to(resource: name) })
        }),
      body: body,
      count: { api throws(ProgressAPIError) in try await api.listResource(name, ListQuery(limit: 1)).total },
      pull: pull)
  }
}

/// Why a sync resource cannot be declared.
public enum SyncResourceError: Error, Equatable, CustomStringConvertible {
  /// The name is not a `ResourceName`, so no path on the backend could carry it.
  case invalidName(String)

  public var description: String {
    switch self {
    case .invalidName(let name):
      "\"\(terminalSafe(name, limit: 60))\" is not a resource name: it must match \(ResourceName.pattern)"
    }
  }
}

/// What a resource's pull is given.
public struct SyncPullContext: Sendable {
  public var api: any ProgressAPI
  public var userID: String
  /// The row to start from: where a pull stopped at its page limit, else 0.
  public var offset: Int
  /// The app's ports (the feature's repository among them).
  public var services: Services
  public var clock: any FlowClock

  public init(api: any ProgressAPI, userID: String, offset: Int, services: Services, clock: any FlowClock) {
    self.api = api
    self.userID = userID
    self.offset = offset
    self.services = services
    self.clock = clock
  }
}

/// What a pull did.
public struct SyncPullReport: Sendable, Hashable {
  /// Entities that were new here.
  public var imported = 0
  /// Rows left out because they are not an entity this app can hold.
  public var skippedCount = 0
  /// The first few of them (up to `maxSkipsKept`), for a message or a log.
  public var skipped: [SyncPullSkip] = []
  /// The passing failure (timeout, 5xx, garbage) that ended the pull early; what was
  /// imported before it stays, and the rest arrives on a later pull.
  public var error: ProgressAPIError?
  /// Why the pull stopped before the backend's last row although every page came:
  /// the page limit, or pages that do not add up to their total.
  public var unfinished: String?
  /// Where the next pull goes on when this one stopped at the page limit; nil when it
  /// read to the end (the next starts from the first row).
  public var resumeOffset: Int?

  /// A hostile backend can send any number of bad rows; a report keeps this many.
  public static let maxSkipsKept = 20

  public init() {}

  public mutating func skip(_ skip: SyncPullSkip) {
    skippedCount += 1
    if skipped.count < Self.maxSkipsKept { skipped.append(skip) }
  }
}

/// One row a pull left out, and why.
public struct SyncPullSkip: Sendable, Hashable, CustomStringConvertible {
  /// The backend's id, when the row could be read that far.
  public var backendID: String?
  public var reason: String

  public init(backendID: String?, reason: String) {
    self.backendID = backendID
    self.reason = reason
  }

  public var description: String { "\(backendID ?? "a row"): \(reason)" }
}

/// A feature that syncs: its `<Feature>Sync` module's entry in the app's features list.
/// Registering it adds a `backend.<name>.count` query per resource; the app's sync
/// service sends and pulls its resources.
/// Declaring them may throw (a generic resource's name that is not one): registering
/// the feature then fails, naming it and why. (A type that is also a `StoringFeature`
/// says `contributions` itself: `[storage] + syncResources`.)
public protocol SyncingFeature: FlowFeature {
  static var syncResources: [SyncResource] { get throws }
}

extension SyncingFeature {
  public static var requiredServices: [any ServiceKey.Type] { [SyncServiceKey.self] }

  public static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    let resources: [SyncResource]
    do {
      resources = try syncResources
    } catch {
      throw .invalidFeature(feature: String(describing: Self.self), problem: String(describing: error))
    }
    for resource in resources { try SyncFeature.registerCount(of: resource, in: &registry) }
  }

  public static var contributions: [any Sendable] {
    get throws { try syncResources }
  }
}

extension Array where Element == any FlowFeature.Type {
  /// The sync resources of the syncing features among these, in their order.
  public var syncResources: [SyncResource] {
    get throws { try flatMap { try $0.contributions }.compactMap { $0 as? SyncResource } }
  }
}
