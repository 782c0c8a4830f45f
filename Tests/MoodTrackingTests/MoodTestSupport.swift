import FlowKit
import FlowKitTesting
import Foundation
import MoodTracking
import MoodTrackingTesting

/// A local date-time `YYYY-MM-DDTHH:MM` read in `zone`.
func moment(_ text: String, _ zone: String = "UTC") -> Date {
  var calendar = Calendar(identifier: .gregorian)
  calendar.timeZone = TimeZone(identifier: zone)!
  let parts = text.split(whereSeparator: { "-T:".contains($0) }).map { Int($0)! }
  return calendar.date(
    from: DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4]))!
}

func day(_ text: String) -> MoodDay { MoodDay(text)! }

/// Use cases over in-memory adapters with a manual clock and a switchable user.
final class MoodFixture: Sendable {
  let clock: ManualClock
  let repository = InMemoryMoodRepository()
  let healthStore = InMemoryStateOfMindStore()
  let user = Locked<String?>("alice")

  init(now: String = "2026-01-05T09:00", zone: String = "UTC") {
    clock = ManualClock(now: moment(now, zone), timeZone: TimeZone(identifier: zone)!)
  }

  var outbox: InMemoryOutbox { repository.outbox }

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
}
