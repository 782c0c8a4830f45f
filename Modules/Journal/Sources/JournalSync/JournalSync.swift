import FlowKit
import Foundation
import Journal
import ProgressContract
import Sync

/// Finished journal entries on the backend: one `POST /api/v1/journal` each. The one
/// place a journal entry becomes the contract's body.
public enum JournalSync: SyncingFeature {
  public static let resource = SyncResource(
    entity: .journal, path: APIPath.journal,
    writes: .once(create: { api, body, key throws(ProgressAPIError) in
      try await api.createJournal(body: body, idempotencyKey: key).id
    }),
    body: { row in body(payload: row.payload) },
    count: { api throws(ProgressAPIError) in try await api.listJournal(ListQuery(limit: 1)).total })

  public static var syncResources: [SyncResource] { [resource] }

  /// The body of `POST /api/v1/journal` (`JournalInput`) for a row's payload. A payload
  /// that is not the feature's (a row queued by an older version, which stored the body
  /// itself) is sent as it is.
  public static func body(payload: String) -> Data {
    guard let entry = try? JSONDecoder().decode(JournalSyncPayload.self, from: Data(payload.utf8)) else {
      return Data(payload.utf8)
    }
    typealias Field = JournalInputField
    var object: [String: Any] = [
      Field.createdAt.rawValue: entry.createdAt, Field.curriculumID.rawValue: entry.primary,
      Field.initiatedBy.rawValue: entry.initiatedBy.rawValue,
    ]
    if let secondary = entry.secondary { object[Field.secondaryCurriculumID.rawValue] = secondary }
    if let strategy = entry.strategy { object[Field.strategyID.rawValue] = strategy }
    return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
  }
}
