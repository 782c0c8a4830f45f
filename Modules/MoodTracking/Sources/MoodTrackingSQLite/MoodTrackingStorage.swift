import FlowKit
import Foundation
import GRDB
import MoodTrackingDomain
import Storage

/// What mood tracking brings to the app's storage: its tables, what a sync result does to
/// an entry (it keeps the backend's id and its sync state), and its repository and
/// health-store stand-in over SQLite.
public enum MoodTrackingStorage: StoringFeature {
  public static var storage: FeatureStorage { feature }

  public static let feature = FeatureStorage(
    name: "MoodTracking", migrations: MoodSchema.migrations,
    outboxEntities: [
      SQLiteOutboxEntity(.mood) { db, result in
        try db.cachedStatement(
          sql: """
            UPDATE mood_entries SET backend_id = COALESCE(?, backend_id), sync_status = ?
            WHERE id = ? AND user_id = ?
            """
        ).execute(arguments: [result.backendID, result.status.rawValue, result.entityID, result.userID])
      }
    ],
    sqliteAdapters: { services, database, _ in
      services[MoodRepositoryKey.self] = SQLiteMoodRepository(writer: database.writer)
      services[StateOfMindStoreKey.self] = SQLiteStateOfMindStore(writer: database.writer)
    },
    export: FeatureExport(
      type: "mood", columns: ["kind", "score", "valence", "labels", "associations", "notes"]
    ) { database, userID, interval in
      try await SQLiteMoodRepository(writer: database.writer).entries(userID: userID, in: interval).map {
        entry in
        FeatureExport.Row(
          date: entry.date,
          values: [
            "kind": .text(entry.kind.rawValue), "score": .integer(entry.score),
            "valence": .decimal(entry.valence),
            "labels": .list(entry.labels.map(\.rawValue)),
            "associations": .list(entry.associations.map(\.rawValue)),
            "notes": entry.notes.map(FeatureExport.Value.text) ?? .none,
          ])
      }
    })
}
