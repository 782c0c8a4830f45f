import FlowKit
import FlowKitTesting
import Foundation
import GRDB
import MoodTracking
import Testing
import WellflowComposition

@testable import MoodTrackingSQLite
@testable import Storage

/// Statistics read whole hours from `mood_hours`, which triggers keep: after any mix of
/// saves, edits, moves and deletes, the table must be what the entries say, and the
/// statistics of any range what its entries say.
@Suite("Mood statistics by the hour")
struct MoodHoursTests {
  static let utc: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
  }()

  /// Moments that test the hour arithmetic: on an hour, a hair either side of one,
  /// before 1970, and anywhere in a few days.
  static func moment(_ random: inout SplitMix64) -> Double {
    let hour = Double(Int.random(in: -30...90, using: &random)) * 3_600
    switch Int.random(in: 0..<6, using: &random) {
    case 0: return hour
    case 1: return hour.nextDown
    case 2: return hour.nextUp
    case 3: return hour - 1e-7
    default: return hour + Double.random(in: 0..<3_600, using: &random)
    }
  }

  static func entry(_ id: UUID, user: String, at seconds: Double, score: Int) throws -> MoodEntry {
    let date = Date(timeIntervalSince1970: seconds)
    return MoodEntry(
      id: id, userID: user, date: date, day: MoodDay(date, in: utc), score: score,
      valence: try MoodTranslation.valence(forScore: score), labels: [], kind: .momentaryEmotion,
      createdAt: date, updatedAt: date)
  }

  /// `mood_hours` as it should be, worked out in Swift from the entries.
  static func expectedHours(_ db: Database) throws -> [String] {
    var hours: [String: HourFigures] = [:]
    for row in try Row.fetchAll(db, sql: "SELECT user_id, date, score FROM mood_entries") {
      let date: Double = row[1]
      let hour = Int((date / 3_600).rounded(.down))
      let exact =
        Double(hour) * 3_600 <= date ? (Double(hour + 1) * 3_600 <= date ? hour + 1 : hour) : hour - 1
      let key = "\(row[0] as String) \(exact)"
      var figures = hours[key] ?? HourFigures()
      figures.entries += 1
      figures.total += row[2] as Int
      figures.lowest = min(figures.lowest ?? row[2], row[2])
      figures.highest = max(figures.highest ?? row[2], row[2])
      hours[key] = figures
    }
    return hours.map {
      "\($0.key): \($0.value.entries) \($0.value.total) \($0.value.lowest!) \($0.value.highest!)"
    }
    .sorted()
  }

  static func storedHours(_ db: Database) throws -> [String] {
    try Row.fetchAll(db, sql: "SELECT * FROM mood_hours").map { row in
      "\(row["user_id"] as String) \(row["hour"] as Int): \(row["entries"] as Int) \(row["total"] as Int) "
        + "\(row["lowest"] as Int) \(row["highest"] as Int)"
    }.sorted()
  }

  @Test(arguments: [1, 2, 3, 4])
  func hoursAndStatisticsAreWhatTheEntriesSay(seed: UInt64) async throws {
    var random = SplitMix64(seed: seed)
    let queue = try migratedQueue()
    let repository = SQLiteMoodRepository(writer: queue)
    let users = ["alice", "bob"]
    var saved: [UUID: MoodEntry] = [:]
    for step in 0..<400 {
      let now = Date(timeIntervalSince1970: 100_000)
      switch saved.isEmpty ? 0 : Int.random(in: 0..<10, using: &random) {
      case 0..<5:
        let entry = try Self.entry(
          UUID(), user: users.randomElement(using: &random)!, at: Self.moment(&random),
          score: .random(in: 1...10, using: &random))
        try await repository.save(entry, outbox: .mood(entry, operation: .create, id: UUID(), now: now))
        saved[entry.id] = entry
      case 5, 6:
        // An edit of the score; sometimes the same score again (a save that changes nothing).
        var entry = saved.values.randomElement(using: &random)!
        entry.score = Int.random(in: 1...10, using: &random)
        entry.valence = try MoodTranslation.valence(forScore: entry.score)
        try await repository.save(entry, outbox: .mood(entry, operation: .update, id: UUID(), now: now))
        saved[entry.id] = entry
      case 7:
        // A move in time, as a pull from the backend may bring.
        let old = saved.values.randomElement(using: &random)!
        let moved = try Self.entry(old.id, user: old.userID, at: Self.moment(&random), score: old.score)
        try await repository.save(moved, outbox: .mood(moved, operation: .update, id: UUID(), now: now))
        saved[moved.id] = moved
      default:
        let entry = saved.values.randomElement(using: &random)!
        #expect(
          try await repository.delete(entry, outbox: .mood(entry, operation: .delete, id: UUID(), now: now)))
        saved[entry.id] = nil
      }
      guard step % 20 == 19 else { continue }
      let (stored, expected) = try await queue.read { db in
        (try Self.storedHours(db), try Self.expectedHours(db))
      }
      #expect(stored == expected, "after step \(step)")
      // Ranges with ends on hours, a hair off them, at half and quarter hours, inside
      // one hour, and empty.
      for _ in 0..<10 {
        var ends = [Self.moment(&random), Self.moment(&random)].sorted()
        if Bool.random(using: &random) { ends[0] = (ends[0] / 900).rounded(.down) * 900 }
        let interval = DateInterval(
          start: Date(timeIntervalSince1970: ends[0]), end: Date(timeIntervalSince1970: ends[1]))
        for user in users {
          let today = MoodDay(interval.end, in: Self.utc)
          let statistics = try await repository.statistics(userID: user, in: interval, today: today)
          let entries = try await repository.entries(userID: user, in: interval)
          #expect(
            statistics == MoodStatistics(entries: entries, streak: statistics.streak),
            "\(user) \(ends) after step \(step)")
        }
      }
    }
  }

  @Test func wholeHoursAreTheOnesInsideTheRange() {
    #expect(HourFigures.wholeHours(from: 0, to: 3_600) == 0..<1)
    #expect(HourFigures.wholeHours(from: 0.nextUp, to: 7_200) == 1..<2)
    #expect(HourFigures.wholeHours(from: 0, to: 7_200.nextDown) == 0..<1)
    #expect(HourFigures.wholeHours(from: 1_800, to: 5_400) == nil)
    #expect(HourFigures.wholeHours(from: -5_400, to: 1_800) == -1..<0)
    #expect(HourFigures.wholeHours(from: -7_200, to: -3_600) == -2..<(-1))
    #expect(HourFigures.wholeHours(from: 5, to: 5) == nil)
    #expect(HourFigures.wholeHours(from: .nan, to: 3_600) == nil)
  }

  @Test func aDatabaseFromBeforeTheMigrationGetsItsHoursFromItsEntries() async throws {
    let migrator = OlderVersions.migrator(legacyTimeZone: TimeZone(identifier: "UTC")!)
    let queue = try DatabaseQueue()
    try migrator.migrate(queue, upTo: MoodSchema.moodEntriesListedFromIndexMigration)
    let repository = SQLiteMoodRepository(writer: queue)
    var random = SplitMix64(seed: 9)
    for _ in 0..<200 {
      let entry = try Self.entry(
        UUID(), user: ["alice", "bob"].randomElement(using: &random)!, at: Self.moment(&random),
        score: .random(in: 1...10, using: &random))
      try await repository.save(entry, outbox: .mood(entry, operation: .create, id: UUID(), now: entry.date))
    }
    try migrator.migrate(queue)
    let (stored, expected) = try await queue.read { db in
      (try Self.storedHours(db), try Self.expectedHours(db))
    }
    #expect(!stored.isEmpty)
    #expect(stored == expected)
  }
}
