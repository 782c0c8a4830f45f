import FlowKit
import Foundation
import MoodTrackingDomain
import ProgressContract
import Sync

/// Mood entries on the backend: `POST`/`PUT`/`DELETE /api/v1/progress`, batched, and
/// pulled back from other devices. The one place a mood becomes the contract's body.
public enum MoodTrackingSync: SyncingFeature {
  public static let resource = SyncResource(
    entity: .mood, path: APIPath.progress,
    writes: .changing(
      create: { api, body, key throws(ProgressAPIError) in
        try await api.createProgress(body: body, idempotencyKey: key).id
      },
      update: { api, id, body, key throws(ProgressAPIError) in
        try await api.updateProgress(id: id, body: body, idempotencyKey: key).id
      },
      delete: { api, id, key throws(ProgressAPIError) in
        try await api.deleteProgress(id: id, idempotencyKey: key)
      },
      batch: { api, items throws(ProgressAPIError) in try await api.batch(items) }),
    body: { row in body(payload: row.payload) },
    count: { api throws(ProgressAPIError) in try await api.listProgress(ListQuery(limit: 1)).total },
    pull: { context in
      try await MoodPull(
        api: context.api, repository: context.services[MoodRepositoryKey.self], clock: context.clock
      ).run(userID: context.userID, from: context.offset)
    })

  public static var syncResources: [SyncResource] { [resource] }

  /// The body of `POST`/`PUT /api/v1/progress` (`ProgressInput`) for a row's payload. A
  /// payload that is not the feature's (a row queued by an older version, which stored
  /// the body itself) is sent as it is, as it was before.
  public static func body(payload: String) -> Data {
    guard let mood = try? JSONDecoder().decode(MoodSyncPayload.self, from: Data(payload.utf8)) else {
      return Data(payload.utf8)
    }
    typealias Field = ProgressInputField
    var members: [(Field, [UInt8])] = [
      (.type, string(ProgressType.moodScore)), (.quantity, Array(String(mood.score).utf8)),
      (.loggedAt, string(mood.loggedAt)), (.entryID, string(mood.entryID)),
    ]
    if let notes = mood.notes { members.append((.notes, string(notes))) }
    // Members in sorted order, as the bodies always were.
    var bytes: [UInt8] = [UInt8(ascii: "{")]
    for (index, (field, value)) in members.sorted(by: { $0.0.rawValue < $1.0.rawValue }).enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      JSONText.appendString(field.rawValue, to: &bytes)
      bytes.append(UInt8(ascii: ":"))
      bytes += value
    }
    bytes.append(UInt8(ascii: "}"))
    return Data(bytes)
  }

  private static func string(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    JSONText.appendString(text, to: &bytes)
    return bytes
  }
}
