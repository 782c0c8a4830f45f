import FlowKit
import Foundation
import GRDB
import MoodTracking
import MoodTrackingSQLite
import Storage
import WellflowComposition

/// Figure 4: what a 30-day mood history costs one user, listing and statistics, on
/// two data shapes — one heavy user holding every row, and many users of ordinary
/// size with one of them asked for.
///
/// The data is what the app writes: entries made as `SaveMoodUseCase` makes them
/// (time-ordered ids, the score's labels, associations, some notes), saved through
/// `SQLiteMoodRepository` with their outbox rows into the app's own database
/// (`WellflowDatabase`), and marked synced as after a sync (which leaves no outbox
/// rows). A fill takes minutes, so it is kept under .build/bench-data/ and reused while
/// its shape and the schema's migrations match the marker written beside it.
@MainActor
enum MoodBenchmark {
  /// Bump when the generated data changes, so old fills are redone.
  static let dataVersion = 2
  static let utc = TimeZone(identifier: "UTC")!
  /// The last entry is just before this: 2026-01-05 22:00 UTC, the users' "now".
  static let end = Date(timeIntervalSince1970: 1_767_650_400)

  struct Shape {
    var users: Int
    var entriesPerUser: Int
    /// Days the entries spread over, ending at `end`.
    var days: Int

    var key: String { "u\(users)-e\(entriesPerUser)-d\(days)" }
    var label: String {
      "\(grouped(Double(users))) user\(users == 1 ? "" : "s") × \(grouped(Double(entriesPerUser)))"
    }
    /// The user whose history is asked for: one in the middle.
    var queried: String { Self.user(users / 2) }
    static func user(_ index: Int) -> String { "user-\(index + 1)" }
  }

  static func run(_ settings: Settings, _ report: Report) async throws {
    let shapes = [
      // One heavy user: a million moods over ten years (~270 a day).
      Shape(users: 1, entriesPerUser: settings.count(1_000_000, quick: 20_000), days: 3_653),
      // A thousand users of a thousand days each: one daily mood a day.
      Shape(users: settings.count(1_000, quick: 100), entriesPerUser: 1_000, days: 1_000),
    ]
    for shape in shapes {
      try await measure(shape, settings, report)
    }
  }

  static func measure(_ shape: Shape, _ settings: Settings, _ report: Report) async throws {
    let directory = try await filled(shape, settings, report)
    let database = try WellflowDatabase.open(
      directory: directory, schema: WellflowFeatures.schema, legacyTimeZone: utc)
    let repository = SQLiteMoodRepository(writer: database.writer)
    let clock = ManualClock(now: end, timeZone: utc)
    let user = shape.queried
    let history = MoodHistoryUseCase(repository: repository, clock: clock, currentUser: { user })
    let list = MoodEntriesUseCase(repository: repository, clock: clock, currentUser: { user })

    let calls = settings.count(20, quick: 5)
    let repetitions = settings.repetitions(5)
    progress(
      "[4] 30-day history on \(shape.label): \(repetitions) × \(calls) calls of each kind, alternating")
    // What the two screens read must be what the whole entries say.
    let whole = try await history.history(in: .month)
    let listings = try await list.listings(in: .month)
    let statistics = try await history.statistics(in: .month)
    guard
      listings.map(\.entry)
        == MoodEntryListing.newestFirst(
          whole.entries.map(MoodEntrySummary.init), in: clock.calendar
        ).map(\.entry),
      whole.statistics == statistics, listings.count == statistics.count, !listings.isEmpty
    else {
      throw BenchmarkError(
        "history of \(user): \(listings.count) listed, \(whole.entries.count) entries, statistics count \(statistics.count)"
      )
    }
    let listed = listings.count
    // Three reads, in a rotating order: the list and statistics the two screens load,
    // the whole entries with their statistics (what the list read before), and the
    // statistics alone.
    var samples: [[Double]] = [[], [], []]
    for repetition in 0..<repetitions {
      for call in 0..<calls {
        let first = (repetition * calls + call) % 3
        for side in [first, (first + 1) % 3, (first + 2) % 3] {
          let start = ContinuousClock.now
          let count: Int
          switch side {
          case 0:
            let listings = try await list.listings(in: .month)
            let statistics = try await history.statistics(in: .month)
            count = min(listings.count, statistics.count)
          case 1:
            count = try await history.history(in: .month).entries.count
          default:
            count = try await history.statistics(in: .month).count
          }
          samples[side].append(seconds(ContinuousClock.now - start) * 1_000)
          guard count == listed else { throw BenchmarkError("history changed mid-run") }
        }
      }
    }
    report.add(
      Figure(
        "4 30-day history, entries list + statistics: \(shape.label) (\(grouped(Double(listed))) listed)",
        unit: "ms", samples: samples[0], goal: .atMost(5)))
    report.add(
      Figure(
        "4   whole entries + statistics (the list's read before): \(shape.label)", unit: "ms",
        samples: samples[1]))
    report.add(
      Figure("4   statistics alone (mood.history): \(shape.label)", unit: "ms", samples: samples[2]))
    report.note(
      "4 \(shape.label): \(user)'s 30 days hold \(listed) entries, average "
        + String(format: "%.2f", statistics.average ?? 0)
        + ", streak \(statistics.streak) days; the list is MoodEntriesUseCase.listings (mood.entries: "
        + "option ids, newest first), the statistics MoodHistoryUseCase.statistics (mood.history)")
  }

  // MARK: The fill

  /// The folder holding the shape's database, filled now unless a matching fill is there.
  static func filled(_ shape: Shape, _ settings: Settings, _ report: Report) async throws -> URL {
    let directory = settings.locations.benchData.appendingPathComponent("history-\(shape.key)")
    let markerFile = directory.appendingPathComponent("shape.txt")
    let marker = """
      wellflow-bench history data v\(dataVersion)
      users \(shape.users), entries per user \(shape.entriesPerUser), days \(shape.days), end \(end.timeIntervalSince1970)
      migrations \(WellflowFeatures.schema.migrator(legacyTimeZone: utc).migrations.joined(separator: ","))

      """
    if (try? String(contentsOf: markerFile, encoding: .utf8)) == marker {
      progress("[4] reusing \(directory.path)")
      return directory
    }
    try? FileManager.default.removeItem(at: directory)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let total = shape.users * shape.entriesPerUser
    progress("[4] filling \(directory.path): \(grouped(Double(total))) entries (once; later runs reuse it)")
    let watch = Stopwatch()
    do {
      let database = try WellflowDatabase.open(
        directory: directory, schema: WellflowFeatures.schema, legacyTimeZone: utc)
      try await fill(SQLiteMoodRepository(writer: database.writer), shape)
      try await database.writer.writeWithoutTransaction { db in
        // A sync takes each synced row out of the outbox (`SQLiteOutbox.record`).
        try db.execute(sql: "DELETE FROM outbox WHERE status = 'synced'; PRAGMA incremental_vacuum")
        _ = try db.checkpoint(Database.CheckpointMode.truncate)
      }
    }
    try marker.write(to: markerFile, atomically: true, encoding: .utf8)
    report.note(
      "4 filled \(shape.label) in \(Int(watch.wall)) s through SQLiteMoodRepository.save (kept in \(directory.path))"
    )
    return directory
  }

  /// Every user's entries in time order across users, in batches of one transaction.
  static func fill(_ repository: SQLiteMoodRepository, _ shape: Shape) async throws {
    let calendar = ManualClock.gregorian(in: utc)
    let step = Double(shape.days) * 86_400 / Double(shape.entriesPerUser)
    let start = end.timeIntervalSince1970 - Double(shape.days) * 86_400
    let total = shape.users * shape.entriesPerUser
    var lastDay = Array(repeating: Int.min, count: shape.users)
    var batch: [(entry: MoodEntry, outbox: OutboxRow)] = []
    batch.reserveCapacity(5_000)
    var made = 0
    var reported = ContinuousClock.now
    for index in 0..<shape.entriesPerUser {
      for user in 0..<shape.users {
        let date = Date(
          timeIntervalSince1970: start + (Double(index) + (Double(user) + 0.5) / Double(shape.users)) * step)
        let day = MoodDay(date, in: calendar)
        let kind: MoodKind = day.dayNumber == lastDay[user] ? .momentaryEmotion : .dailyMood
        lastDay[user] = day.dayNumber
        batch.append(try synced(entryOf: Shape.user(user), at: date, day: day, kind: kind, number: made))
        made += 1
        if batch.count == 5_000 || made == total {
          try await repository.save(batch)
          batch.removeAll(keepingCapacity: true)
          if ContinuousClock.now - reported > .seconds(10) {
            reported = ContinuousClock.now
            progress("    \(grouped(Double(made))) / \(grouped(Double(total)))")
          }
        }
      }
    }
  }

  /// An entry as the check-in saves it, with its outbox row, both as they are once
  /// the backend has the entry (synced, with the backend's id).
  static func synced(entryOf user: String, at date: Date, day: MoodDay, kind: MoodKind, number: Int) throws
    -> (entry: MoodEntry, outbox: OutboxRow)
  {
    var (entry, outbox) = try saved(entryOf: user, at: date, day: day, kind: kind, number: number)
    let backendID = UUID().uuidString.lowercased()
    outbox.status = .synced
    outbox.backendID = backendID
    entry.backendID = backendID
    entry.syncStatus = .synced
    return (entry, outbox)
  }

  /// An entry as `SaveMoodUseCase` makes it for a check-in (time-ordered ids, the
  /// score's labels, one or two associations, a note on every fourth), with the
  /// outbox row saved beside it; both pending.
  static func saved(entryOf user: String, at date: Date, day: MoodDay, kind: MoodKind, number: Int) throws
    -> (entry: MoodEntry, outbox: OutboxRow)
  {
    let score = (number &* 7 &+ number / 13) % 10 + 1
    let notes = number % 4 == 0 ? "Slept well, a walk before work" : nil
    let all = MoodAssociation.allCases
    let first = all[number % all.count]
    let second = all[(number / 7) % all.count]
    let entry = MoodEntry(
      id: TimeOrderedID.make(at: date), userID: user, date: date, day: day, score: score,
      valence: try MoodTranslation.valence(forScore: score),
      labels: try MoodTranslation.labels(forScore: score, notes: notes),
      associations: number % 3 == 0 || first == second ? [first] : [first, second],
      notes: notes, kind: kind, source: .userEntry, createdAt: date, updatedAt: date)
    return (entry, OutboxRow.mood(entry, operation: .create, id: TimeOrderedID.make(at: date), now: date))
  }
}
