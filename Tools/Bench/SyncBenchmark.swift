import FlowKit
import Foundation
import GRDB
import MoodTracking
import MoodTrackingSQLite
import ProgressBackend
import Storage
import Sync
import SyncHTTPClient
import WellflowComposition

/// Figure 5: pending mood entries from the app's SQLite outbox to a separate
/// `wellflow serve` process (SQLite backend) over loopback, through the product's
/// `OutboxProcessor` and the client `wellflow run --backend` uses
/// (`FixedBackendConnector`): entries per second at the processor's default
/// concurrency and one at a time, alternated run by run, each run on a fresh app
/// database and a fresh server.
///
/// Figure 6: the app database's size per entry once they are saved and synced (the
/// file plus its WAL after a truncating checkpoint, divided by the entries).
@MainActor
enum SyncBenchmark {
  static let user = "bench-user"
  static let apiKey = "bench-key"
  static let jwtSecret = "bench-secret"
  /// The serve process's rows: a SQLite file unless WELLFLOW_BENCH_DATABASE names PostgreSQL.
  static let postgres =
    ProcessInfo.processInfo.environment["WELLFLOW_BENCH_DATABASE"]?.hasPrefix("postgres") ?? false
  /// Entries a second the contract asks of `serve`: 10,000 on SQLite, 5,000 on PostgreSQL.
  static let syncGoal: Double = postgres ? 5_000 : 10_000

  struct Outcome {
    var entriesPerSecond: Double
    var bytesPerEntry: Double
    /// CPU the server process used, per entry (start-up included).
    var serverMicrosecondsPerEntry: Double
  }

  static func run(_ settings: Settings, _ report: Report) async throws {
    let wellflow = settings.locations.wellflow.path
    let concurrent = OutboxProcessor.defaultConcurrency
    let names = (
      concurrent: "5 sync entries/s → wellflow serve process, concurrency \(concurrent) (default)",
      sequential: "5   sync entries/s, concurrency 1 (sequential)",
      ratio: "5   concurrency \(concurrent) ÷ sequential (ratio of medians; min–max per pair)",
      bytes: "6 app database bytes per saved + synced entry (incl. WAL after checkpoint)"
    )
    guard FileManager.default.isExecutableFile(atPath: wellflow) else {
      let reason =
        "no wellflow binary at \(wellflow) to serve (swift build -c \(settings.locations.configuration) --product wellflow)"
      report.add(.missing(names.concurrent, unit: "/s", goal: .atLeast(syncGoal), because: reason))
      report.add(.missing(names.bytes, unit: "B", goal: .atMost(600), because: reason))
      return
    }
    let count = settings.count(10_000, quick: 300)
    let repetitions = settings.repetitions(5, quick: 2)
    progress(
      "[5] sync \(grouped(Double(count))) entries: \(repetitions) pairs (1 and \(concurrent) in flight, alternating)"
    )
    var sequential: [Double] = []
    var parallel: [Double] = []
    var ratios: [Double] = []
    var bytes: [Double] = []
    var serverCPU: [Double] = []
    for repetition in 0..<repetitions {
      var pair: [Int: Double] = [:]
      for concurrency in repetition % 2 == 0 ? [1, concurrent] : [concurrent, 1] {
        let outcome = try await once(count: count, concurrency: concurrency, wellflow: wellflow)
        progress("    concurrency \(concurrency): \(grouped(outcome.entriesPerSecond)) entries/s")
        pair[concurrency] = outcome.entriesPerSecond
        bytes.append(outcome.bytesPerEntry)
        serverCPU.append(outcome.serverMicrosecondsPerEntry)
      }
      sequential.append(pair[1]!)
      parallel.append(pair[concurrent]!)
      ratios.append(pair[concurrent]! / pair[1]!)
    }
    report.add(Figure(names.concurrent, unit: "/s", samples: parallel, goal: .atLeast(syncGoal)))
    report.add(Figure(names.sequential, unit: "/s", samples: sequential))
    var ratio = Figure(names.ratio, unit: "×", samples: ratios)
    ratio.headline = medianOf(parallel) / medianOf(sequential)
    report.add(ratio)
    report.add(Figure("5   server process CPU per entry (start-up incl.)", unit: "µs", samples: serverCPU))
    report.add(Figure(names.bytes, unit: "B", samples: bytes, goal: .atMost(600)))
    report.note(
      "5/6 \(grouped(Double(count))) entries per run; 6 is over every run of 5 (both concurrencies)")
  }

  /// One sync of `count` fresh entries to a fresh server process.
  static func once(count: Int, concurrency: Int, wellflow: String) async throws -> Outcome {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("wellflow-sync-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    // WELLFLOW_BENCH_DATABASE=postgres://… serves from PostgreSQL (Tools/postgres-bench.sh);
    // each run's entries are new, so the database need not be.
    let serverDatabase =
      ProcessInfo.processInfo.environment["WELLFLOW_BENCH_DATABASE"]
      ?? directory.appendingPathComponent("backend.sqlite").path
    let server = try ChildProcess.spawn(
      wellflow,
      ["serve", "--port", "0", "--database", serverDatabase, "--api-key", apiKey, "--jwt-secret", jwtSecret],
      captureOutput: true)
    var running = true
    defer { if running { _ = try? server.stop() } }
    // "serving the progress API on http://127.0.0.1:PORT (Ctrl-C stops)"
    guard let line = server.readLine(),
      let address = line.split(separator: " ").first(where: { $0.hasPrefix("http://") }),
      let url = URL(string: String(address))
    else {
      throw BenchmarkError("wellflow serve did not say where it listens")
    }
    server.drainOutput()

    let clock = ManualClock(now: Date(), timeZone: MoodBenchmark.utc)
    let appDirectory = directory.appendingPathComponent("app")
    var database: WellflowDatabase? = try WellflowDatabase.open(
      directory: appDirectory, schema: WellflowFeatures.schema, legacyTimeZone: MoodBenchmark.utc)
    try await seed(SQLiteMoodRepository(writer: database!.writer), count: count, clock: clock)
    let outbox = SQLiteOutbox(database: database!)
    let now = Date()
    let connector = FixedBackendConnector(
      credentials: BackendCredentials(
        baseURL: url, apiKey: apiKey,
        token: JWT.sign(
          subject: user, secret: jwtSecret, issuedAt: now, expiresAt: now.addingTimeInterval(3_600))),
      transport: HTTPClientTransport.shared)
    let processor = OutboxProcessor(
      outbox: outbox, api: connector.client, resources: try WellflowFeatures.syncResources, clock: clock,
      concurrency: concurrency)

    let start = ContinuousClock.now
    let synced = try await processor.run(userID: user, ignoringBackoff: true)
    let elapsed = seconds(ContinuousClock.now - start)
    let usage = try server.stop()
    running = false
    guard synced.synced == count, try await outbox.pendingCount(userID: user) == 0 else {
      throw BenchmarkError("only \(synced.synced) of \(count) entries were synced: \(synced)")
    }

    try await database!.writer.writeWithoutTransaction { db in
      _ = try db.checkpoint(Database.CheckpointMode.truncate)
    }
    let files = ["", "-wal"].map { appDirectory.appendingPathComponent(WellflowDatabase.fileName + $0).path }
    let size = try files.reduce(0) { total, path in
      guard FileManager.default.fileExists(atPath: path) else { return total }
      return total + ((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
    }
    database = nil
    return Outcome(
      entriesPerSecond: Double(count) / elapsed, bytesPerEntry: Double(size) / Double(count),
      serverMicrosecondsPerEntry: usage.cpu / Double(count) * 1e6)
  }

  /// `count` check-in moods, one a minute back from now, with their outbox rows.
  static func seed(_ repository: SQLiteMoodRepository, count: Int, clock: ManualClock) async throws {
    var batch: [(entry: MoodEntry, outbox: OutboxRow)] = []
    var lastDay = Int.min
    for index in 0..<count {
      let date = clock.now.addingTimeInterval(-Double(count - index) * 60)
      let day = MoodDay(date, in: clock.calendar)
      let kind: MoodKind = day.dayNumber == lastDay ? .momentaryEmotion : .dailyMood
      lastDay = day.dayNumber
      batch.append(try MoodBenchmark.saved(entryOf: user, at: date, day: day, kind: kind, number: index))
      if batch.count == 1_000 || index == count - 1 {
        try await repository.save(batch)
        batch.removeAll(keepingCapacity: true)
      }
    }
  }
}
