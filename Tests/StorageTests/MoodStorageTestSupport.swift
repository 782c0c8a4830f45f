import FlowKit
import Foundation
import GRDB
import MoodTracking
import Storage
import WellflowComposition

@testable import MoodTrackingSQLite

/// A local date-time `YYYY-MM-DDTHH:MM` read in `zone`.
func moment(_ text: String, _ zone: String = "UTC") -> Date {
  var calendar = Calendar(identifier: .gregorian)
  calendar.timeZone = TimeZone(identifier: zone)!
  let parts = text.split(whereSeparator: { "-T:".contains($0) }).map { Int($0)! }
  return calendar.date(
    from: DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4]))!
}

func day(_ text: String) -> MoodDay { MoodDay(text)! }

/// An in-memory database with the app's whole schema, as a data folder has it.
func migratedQueue(legacyTimeZone: TimeZone = TimeZone(identifier: "UTC")!) throws -> DatabaseQueue {
  let queue = try DatabaseQueue()
  try WellflowFeatures.schema.migrator(legacyTimeZone: legacyTimeZone).migrate(queue)
  return queue
}

/// The use cases over the SQLite adapters, with a manual clock and a switchable user.
final class SQLiteMoodFixture: Sendable {
  let db: any DatabaseWriter
  let clock: ManualClock
  let repository: SQLiteMoodRepository
  let outbox: SQLiteOutbox
  let healthStore: SQLiteStateOfMindStore
  let user = Locked<String?>("alice")

  init(now: String = "2026-01-05T09:00", zone: String = "UTC", db: (any DatabaseWriter)? = nil) throws {
    let db = try db ?? migratedQueue()
    self.db = db
    clock = ManualClock(now: moment(now, zone), timeZone: TimeZone(identifier: zone)!)
    repository = SQLiteMoodRepository(writer: db)
    outbox = SQLiteOutbox(writer: db, entities: WellflowFeatures.schema.outboxEntities)
    healthStore = SQLiteStateOfMindStore(writer: db)
  }

  var save: SaveMoodUseCase {
    SaveMoodUseCase(
      repository: repository, clock: clock, healthStore: healthStore, currentUser: { [user] in user.current })
  }

  var history: MoodHistoryUseCase {
    MoodHistoryUseCase(repository: repository, clock: clock, currentUser: { [user] in user.current })
  }

  var importer: ImportStateOfMindUseCase {
    ImportStateOfMindUseCase(
      store: healthStore, save: save, clock: clock, currentUser: { [user] in user.current })
  }

  func signIn(_ name: String?) { user.withLock { $0 = name } }

  @discardableResult
  func log(_ score: Int, notes: String? = nil, at text: String? = nil, kind: MoodKind = .dailyMood)
    async throws -> SaveMoodResult
  {
    let date = text.map { moment($0, clock.timeZone.identifier) }
    return try await save.save(SaveMoodRequest(score: score, notes: notes, date: date, kind: kind))
  }

  func count(_ sql: String) throws -> Int { try db.read { try Int.fetchOne($0, sql: sql)! } }
}
