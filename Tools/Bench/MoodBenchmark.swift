import FlowKit
import Foundation
import GRDB
import MoodTracking
import Storage

/// One user's ten years of moods: the indexed history path against the seed design's
/// fetch-everything-and-filter, and saves per second with their outbox rows.
enum MoodBenchmark {
  static let user = "bench-user"
  static let years = 10

  static func run(scale: Double) async throws {
    let count = max(Int(1_000_000 * scale), 1_000)
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("wellflow-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    // The app's own database: the same file, configuration and schema users get.
    let database = try WellflowDatabase.open(
      directory: directory, legacyTimeZone: TimeZone(identifier: "UTC")!)
    guard let pool = database.writer as? DatabasePool else { fatalError("the app's database is a pool") }

    let clock = ManualClock(
      now: Date(timeIntervalSince1970: 1_767_614_400), timeZone: TimeZone(identifier: "UTC")!)
    let fillSeconds = try fill(pool, count: count, endingAt: clock.now)
    print("fill: \(count) entries over \(years) years in \(format(fillSeconds)) s")

    let repository = SQLiteMoodRepository(writer: pool)
    let history = MoodHistoryUseCase(repository: repository, clock: clock, currentUser: { user })
    let interval = try MoodHistoryRange.month.interval(today: history.today, in: clock.calendar)

    var indexed = MoodStatistics.empty
    let statisticsTime = try await measureMedianAsync(runs: 21) {
      indexed = try await history.statistics(in: .month)
    }
    var listed = 0
    let historyTime = try await measureMedianAsync(runs: 11) {
      listed = try await history.entries(in: .month).count
      indexed = try await history.statistics(in: .month)
    }
    var naive = MoodStatistics.empty
    var naiveListed = 0
    let naiveTime = try await measureMedianAsync(runs: 3) {
      (naiveListed, naive) = try await naiveHistory(pool, interval: interval, today: history.today)
    }
    guard naive == indexed, naiveListed == listed else {
      print("MISMATCH: indexed \(indexed) (\(listed) entries) vs naive \(naive) (\(naiveListed) entries)")
      return
    }
    print(
      "30-day history: \(listed) entries, average \(format(indexed.average ?? 0)), streak \(indexed.streak) days"
    )
    print("indexed statistics (history screen): median \(milliseconds(statisticsTime)) ms  (target <= 5 ms)")
    print("indexed entries + statistics:        median \(milliseconds(historyTime)) ms")
    print("naive fetch-all, filter, sort:       median \(milliseconds(naiveTime)) ms")
    print("ratio naive / indexed statistics:    \(Int(naiveTime / statisticsTime))x  (target >= 100x)")
    print("ratio naive / indexed entries+stats: \(Int(naiveTime / historyTime))x")

    try await measureSaves(repository: repository, clock: clock, total: max(count / 20, 1_000))
  }

  /// Raw inserts in large transactions: the fill is setup, not what is measured.
  private static func fill(_ pool: DatabasePool, count: Int, endingAt end: Date) throws -> Double {
    let span = Double(years) * 365.25 * 86_400
    let step = span / Double(count)
    let start = end.timeIntervalSince1970 - span
    let batch = 50_000
    var utc = Calendar(identifier: .gregorian)
    utc.timeZone = TimeZone(identifier: "UTC")!
    let calendar = utc
    return try timeOnce {
      var lastDay = -1
      var dayText = ""
      for first in stride(from: 0, to: count, by: batch) {
        try pool.write { db in
          let entry = try db.makeStatement(
            sql: """
              INSERT INTO mood_entries (id, user_id, date, day, score, valence, labels, associations,
                kind, source, created_at, updated_at, sync_status, save_seq)
              VALUES (?, ?, ?, ?, ?, ?, ?, '', ?, 'userEntry', ?, ?, 'synced', ?)
              """)
          let label = try db.makeStatement(
            sql: "INSERT INTO mood_entry_labels (entry_id, position, label) VALUES (?, ?, ?)")
          for index in first..<min(first + batch, count) {
            let date = start + Double(index) * step
            let dayNumber = Int(date / 86_400)
            let kind = dayNumber == lastDay ? "momentaryEmotion" : "dailyMood"
            if dayNumber != lastDay {
              lastDay = dayNumber
              dayText = MoodDay(Date(timeIntervalSince1970: date), in: calendar).description
            }
            let score = index % 10 + 1
            let labels = try MoodTranslation.labels(forScore: score)
            let id = UUID().uuidString
            try entry.execute(arguments: [
              id, user, date, dayText, score, try MoodTranslation.valence(forScore: score),
              labels.map(\.rawValue).joined(separator: ","), kind, date, date, index + 1,
            ])
            for (position, value) in labels.enumerated() {
              try label.execute(arguments: [id, position, value.rawValue])
            }
          }
          try db.execute(sql: "UPDATE mood_save_sequence SET value = ?", arguments: [count])
        }
      }
    }
  }

  /// The seed design: every entry of the user into memory, then filter, sort and count.
  private static func naiveHistory(_ pool: DatabasePool, interval: DateInterval, today: MoodDay) async throws
    -> (Int, MoodStatistics)
  {
    let all = try await pool.read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT id, user_id, date, day, score, valence, labels, associations, notes, kind, source,
            created_at, updated_at, backend_id, sync_status, save_seq
          FROM mood_entries WHERE user_id = ?
          """, arguments: [user]
      ).map { row -> (MoodEntry, Int) in
        let entry = MoodEntry(
          id: UUID(uuidString: row[0])!, userID: row[1], date: Date(timeIntervalSince1970: row[2]),
          day: MoodDay(row[3] as String)!, score: row[4], valence: row[5],
          labels: (row[6] as String).split(separator: ",").compactMap { MoodLabel(storedName: String($0)) },
          associations: (row[7] as String).split(separator: ",").compactMap {
            MoodAssociation(rawValue: String($0))
          }, notes: row[8], kind: MoodKind(rawValue: row[9])!, source: MoodSource(rawValue: row[10])!,
          createdAt: Date(timeIntervalSince1970: row[11]), updatedAt: Date(timeIntervalSince1970: row[12]),
          backendID: row[13], syncStatus: SyncStatus(rawValue: row[14])!)
        return (entry, row[15])
      }
    }
    let inRange = all.filter { $0.0.date >= interval.start && $0.0.date < interval.end }
      .sorted { ($0.0.date, $0.1) < ($1.0.date, $1.1) }
      .map(\.0)
    let scores = inRange.map(\.score)
    return (
      inRange.count,
      MoodStatistics(
        count: inRange.count,
        average: scores.isEmpty ? nil : Double(scores.reduce(0, +)) / Double(scores.count),
        highest: scores.max(), lowest: scores.min(), latest: inRange.last,
        streak: currentStreak(days: Set(all.map(\.0.day)), today: today))
    )
  }

  private static func measureSaves(repository: SQLiteMoodRepository, clock: ManualClock, total: Int)
    async throws
  {
    let batchSize = 1_000
    var made = 0
    func nextBatch(_ size: Int) throws -> [(entry: MoodEntry, outbox: OutboxRow)] {
      try (0..<size).map { _ in
        made += 1
        let score = made % 10 + 1
        let date = clock.now.addingTimeInterval(-Double(made))
        let entry = MoodEntry(
          id: TimeOrderedID.make(at: date), userID: "saver", date: date,
          day: MoodDay(date, in: clock.calendar), score: score,
          valence: try MoodTranslation.valence(forScore: score),
          labels: try MoodTranslation.labels(forScore: score),
          associations: [.work], notes: "bench", kind: .momentaryEmotion, createdAt: date, updatedAt: date)
        // Ids as the app makes them (`SaveMoodUseCase`): time-ordered.
        return (entry, OutboxRow.mood(entry, operation: .create, id: TimeOrderedID.make(at: date), now: date))
      }
    }
    let batches = try (0..<max(total / batchSize, 1)).map { _ in try nextBatch(batchSize) }
    let start = ContinuousClock.now
    for batch in batches { try await repository.save(batch) }
    let batched = Double(batches.count * batchSize) / seconds(since: start)
    print(
      "batched saves with outbox row:       \(Int(batched))/s  (\(batches.count) x \(batchSize), target >= 5000/s)"
    )

    let singles = try nextBatch(500)
    let singleStart = ContinuousClock.now
    for item in singles { try await repository.save(item.entry, outbox: item.outbox) }
    let single = Double(singles.count) / seconds(since: singleStart)
    print("single saves (one transaction each): \(Int(single))/s  (\(singles.count))")
  }

  private static func seconds(since start: ContinuousClock.Instant) -> Double {
    let duration = ContinuousClock.now - start
    return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }

  private static func milliseconds(_ seconds: Double) -> String { format(seconds * 1_000) }

  private static func format(_ value: Double) -> String { String(format: "%.3f", value) }
}
