import FlowKit
import Foundation
import MoodTracking
import ProgressBackend
import Storage
import Sync

/// Entries per second from the outbox to the local progress server over loopback,
/// one request at a time against several in flight.
enum SyncBenchmark {
  static let user = "bench-user"
  static let concurrencies = [1, 2, 4, 8]

  static func run(scale: Double) async throws {
    let count = max(Int(10_000 * scale), 100)
    print("sync: \(count) pending mood entries to the local server (SQLite outbox, SQLite backend)")
    var rates: [Int: Double] = [:]
    for concurrency in concurrencies {
      rates[concurrency] = try await measure(count: count, concurrency: concurrency)
      let speedup = rates[concurrency]! / rates[1]!
      print(
        "  concurrency \(concurrency): \(grouped(rates[concurrency]!)) entries/s"
          + (concurrency == 1 ? " (sequential)" : String(format: " (%.2f× sequential)", speedup)))
    }
    print(
      "  the processor's default concurrency is \(OutboxProcessor.defaultConcurrency): "
        + "\(grouped(rates[OutboxProcessor.defaultConcurrency] ?? .nan)) entries/s")
  }

  /// Entries per second for one full sync of `count` fresh rows.
  static func measure(count: Int, concurrency: Int) async throws -> Double {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("wellflow-sync-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let server = try ProgressServer(
      configuration: ProgressServer.Configuration(
        databasePath: directory.appendingPathComponent("backend.sqlite").path, apiKey: "bench",
        jwtSecret: "bench-secret"))
    let url = try await server.start()
    let database = try WellflowDatabase.open(
      directory: directory.appendingPathComponent("app"), legacyTimeZone: TimeZone(identifier: "UTC")!)
    let clock = ManualClock(
      now: Date(timeIntervalSince1970: 1_767_614_400), timeZone: TimeZone(identifier: "UTC")!)
    try await seed(SQLiteMoodRepository(writer: database.writer), count: count, clock: clock)
    let outbox = SQLiteOutbox(writer: database.writer)
    let processor = OutboxProcessor(
      outbox: outbox,
      api: ProgressAPIClient(
        credentials: BackendCredentials(baseURL: url, apiKey: "bench", token: server.token(for: user)),
        maxConnections: concurrency),
      clock: clock, concurrency: concurrency)
    let start = ContinuousClock.now
    let report = try await processor.run(userID: user, ignoringBackoff: true)
    let elapsed = seconds(ContinuousClock.now - start)
    await server.stop()
    guard report.synced == count, try await outbox.pendingCount(userID: user) == 0 else {
      throw BenchmarkError(description: "only \(report.synced) of \(count) entries were synced: \(report)")
    }
    return Double(count) / elapsed
  }

  /// `count` momentary moods, one a minute back from now, with their outbox rows.
  static func seed(_ repository: SQLiteMoodRepository, count: Int, clock: ManualClock) async throws {
    var batch: [(entry: MoodEntry, outbox: OutboxRow)] = []
    for index in 0..<count {
      let date = clock.now.addingTimeInterval(-Double(count - index) * 60)
      let score = index % 10 + 1
      let entry = MoodEntry(
        id: UUID(), userID: user, date: date, day: MoodDay(date, in: clock.calendar), score: score,
        valence: try MoodTranslation.valence(forScore: score),
        labels: try MoodTranslation.labels(forScore: score, notes: nil), kind: .momentaryEmotion,
        createdAt: date, updatedAt: date)
      batch.append((entry, .mood(entry, operation: .create, id: UUID(), now: date)))
    }
    try await repository.save(batch)
  }

  struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
  }
}
