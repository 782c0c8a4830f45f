import FlowKit
import Foundation
import GRDB
import MoodTracking
import Storage
import Sync

/// The outbox sent to a separate `wellflow serve` process over loopback (the release
/// `wellflow` beside this executable, a fresh SQLite backend per run): entries per
/// second one request at a time (sequential) against the processor's default, and, for
/// reference, each row in its own request as before batches (and as against a backend
/// without them), in interleaved rounds so that a busy machine weighs on all alike;
/// then the app's database bytes per saved entry once the entries are synced.
///
/// Self-contained on purpose (its own helpers), so the bench's shared code can change
/// without touching it.
enum SyncBenchmark {
  static let apiKey = "bench-key"
  static let jwtSecret = "bench-secret"
  static let rounds = 5

  struct Mode {
    var name: String
    var concurrency: Int
    var maxBatchItems = ProgressBatchItem.maxPerBatch
  }

  static let modes = [
    Mode(name: "sequential", concurrency: 1),
    Mode(name: "default", concurrency: OutboxProcessor.defaultConcurrency),
    Mode(name: "single calls", concurrency: 4, maxBatchItems: 1),
  ]

  static func run(scale: Double) async throws {
    let count = max(Int(10_000 * scale), 100)
    let wellflow = try wellflowExecutable()
    print(
      "sync: \(count) pending mood entries → a separate `wellflow serve` (\(wellflow.path)), "
        + "\(rounds) interleaved rounds")
    var rates: [String: [Double]] = [:]
    for round in 0..<rounds {
      // Alternate which mode goes first, so neither always runs on a warmer machine.
      for mode in round % 2 == 0 ? modes : modes.reversed() {
        rates[mode.name, default: []].append(try await measure(count: count, mode: mode, wellflow: wellflow))
      }
    }
    for mode in modes {
      let samples = rates[mode.name]!
      print(
        "  \(mode.name.padding(toLength: 12, withPad: " ", startingAt: 0)) concurrency \(mode.concurrency), "
          + "\(mode.maxBatchItems) a request: median \(grouped(median(samples))) entries/s "
          + "(min–max \(grouped(samples.min()!))–\(grouped(samples.max()!)))")
    }
    let ratio = median(rates["default"]!) / median(rates["sequential"]!)
    print("  default / sequential: \(String(format: "%.2f", ratio))×")

    for syncEvery in [nil, 100] {
      let size = try await bytesPerEntry(count: count, syncEvery: syncEvery, wellflow: wellflow)
      print(
        "  database bytes per saved entry, "
          + (syncEvery.map { "synced every \($0) saves" } ?? "all \(count) saved, then synced") + ": "
          + "\(grouped(size.file)) (file + WAL after a checkpoint; in use: \(grouped(size.live)))")
    }
  }

  /// Entries per second for one full sync of `count` fresh rows to a fresh server.
  static func measure(count: Int, mode: Mode, wellflow: URL) async throws -> Double {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let server = try ServerProcess(wellflow: wellflow, directory: directory)
    defer { server.stop() }
    let user = "bench-user"
    let database = try WellflowDatabase.open(
      directory: directory.appendingPathComponent("app"), legacyTimeZone: TimeZone(identifier: "UTC")!)
    let clock = benchClock()
    try await seed(SQLiteMoodRepository(writer: database.writer), user: user, count: count, clock: clock)
    let outbox = SQLiteOutbox(writer: database.writer)
    let processor = OutboxProcessor(
      outbox: outbox,
      api: try server.client(user: user, maxConnections: mode.concurrency),
      clock: clock, concurrency: mode.concurrency, maxBatchItems: mode.maxBatchItems)
    let start = ContinuousClock.now
    let report = try await processor.run(userID: user, ignoringBackoff: true)
    let elapsed = seconds(ContinuousClock.now - start)
    guard report.synced == count, try await outbox.pendingCount(userID: user) == 0 else {
      throw BenchmarkError(description: "only \(report.synced) of \(count) entries were synced: \(report)")
    }
    return Double(count) / elapsed
  }

  /// The app database's size per entry after `count` saves as the app makes them (the
  /// save use case, one transaction each, time-ordered ids) and their sync (in passes
  /// of `syncEvery` saves, or one at the end): the file and its WAL after a truncating
  /// checkpoint, and the pages in use (the file less its free pages).
  static func bytesPerEntry(count: Int, syncEvery: Int?, wellflow: URL) async throws
    -> (file: Double, live: Double)
  {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let server = try ServerProcess(wellflow: wellflow, directory: directory)
    defer { server.stop() }
    let user = "bench-user"
    let appDirectory = directory.appendingPathComponent("app")
    let database = try WellflowDatabase.open(
      directory: appDirectory, legacyTimeZone: TimeZone(identifier: "UTC")!)
    let clock = benchClock()
    clock.advance(by: -Double(count) * 60)
    let outbox = SQLiteOutbox(writer: database.writer)
    let processor = OutboxProcessor(
      outbox: outbox,
      api: try server.client(user: user, maxConnections: OutboxProcessor.defaultConcurrency),
      clock: clock, concurrency: OutboxProcessor.defaultConcurrency)
    let save = SaveMoodUseCase(
      repository: SQLiteMoodRepository(writer: database.writer), clock: clock, currentUser: { user })
    for index in 0..<count {
      clock.advance(by: 60)
      _ = try await save.save(SaveMoodRequest(score: index % 10 + 1, kind: .momentaryEmotion))
      if let syncEvery, (index + 1) % syncEvery == 0 {
        _ = try await processor.run(userID: user, ignoringBackoff: true)
      }
    }
    _ = try await processor.run(userID: user, ignoringBackoff: true)
    guard try await outbox.pendingCount(userID: user) == 0 else {
      throw BenchmarkError(description: "entries were left unsynced")
    }
    let pages = try await database.writer.writeWithoutTransaction { db in
      _ = try db.checkpoint(.truncate)
      return (
        size: try Int.fetchOne(db, sql: "PRAGMA page_size")!,
        count: try Int.fetchOne(db, sql: "PRAGMA page_count")!,
        free: try Int.fetchOne(db, sql: "PRAGMA freelist_count")!
      )
    }
    var bytes = 0
    for suffix in ["", "-wal"] {
      let path = appDirectory.appendingPathComponent(WellflowDatabase.fileName + suffix).path
      bytes += (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
    return (Double(bytes) / Double(count), Double((pages.count - pages.free) * pages.size) / Double(count))
  }

  /// `count` momentary moods of `user`, one a minute up to the clock's now, with their
  /// outbox rows (time-ordered ids, as the app makes them), saved in one transaction.
  static func seed(_ repository: SQLiteMoodRepository, user: String, count: Int, clock: ManualClock)
    async throws
  {
    var batch: [(entry: MoodEntry, outbox: OutboxRow)] = []
    for index in 0..<count {
      let date = clock.now.addingTimeInterval(-Double(count - index) * 60)
      let score = index % 10 + 1
      let entry = MoodEntry(
        id: TimeOrderedID.make(at: date), userID: user, date: date, day: MoodDay(date, in: clock.calendar),
        score: score, valence: try MoodTranslation.valence(forScore: score),
        labels: try MoodTranslation.labels(forScore: score, notes: nil), kind: .momentaryEmotion,
        createdAt: date, updatedAt: date)
      batch.append((entry, .mood(entry, operation: .create, id: TimeOrderedID.make(at: date), now: date)))
    }
    try await repository.save(batch)
  }

  static func benchClock() -> ManualClock {
    ManualClock(now: Date(timeIntervalSince1970: 1_767_614_400), timeZone: TimeZone(identifier: "UTC")!)
  }

  static func temporaryDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("wellflow-sync-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }

  /// The `wellflow` built beside this executable (`swift build -c release --product wellflow`),
  /// or `$WELLFLOW` when set.
  static func wellflowExecutable() throws -> URL {
    if let path = ProcessInfo.processInfo.environment["WELLFLOW"] { return URL(fileURLWithPath: path) }
    var candidates: [URL] = []
    if let executable = Bundle.main.executableURL {
      candidates.append(executable.deletingLastPathComponent())
    }
    candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
    for directory in candidates {
      let candidate = directory.appendingPathComponent("wellflow")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    throw BenchmarkError(
      description: "no wellflow beside the bench (\(candidates.map(\.path))): "
        + "swift build -c release --product wellflow")
  }

  /// `wellflow serve` on a free port with its rows in `directory`, stopped by `stop()`.
  final class ServerProcess {
    let wellflow: URL
    let process = Process()
    let url: URL

    init(wellflow: URL, directory: URL) throws {
      self.wellflow = wellflow
      process.executableURL = wellflow
      process.arguments = [
        "serve", "--port", "0", "--db", directory.appendingPathComponent("backend.sqlite").path, "--api-key",
        apiKey, "--jwt-secret", jwtSecret,
      ]
      let output = Pipe()
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      try process.run()
      // "serving the progress API on http://127.0.0.1:PORT (Ctrl-C stops)"
      let prefix = "serving the progress API on "
      var text = ""
      while !text.contains("\n") {
        let data = output.fileHandleForReading.availableData
        guard !data.isEmpty else { throw BenchmarkError(description: "wellflow serve exited: \(text)") }
        text += String(decoding: data, as: UTF8.self)
      }
      guard let start = text.range(of: prefix),
        let address = text[start.upperBound...].split(separator: " ").first,
        let url = URL(string: String(address))
      else {
        process.terminate()
        throw BenchmarkError(description: "unexpected output of wellflow serve: \(text)")
      }
      self.url = url
    }

    /// A client with a token from `wellflow token`.
    func client(user: String, maxConnections: Int) throws -> ProgressAPIClient {
      let token = Process()
      token.executableURL = wellflow
      token.arguments = ["token", user, "--jwt-secret", jwtSecret, "--ttl", "1d"]
      let output = Pipe()
      token.standardOutput = output
      try token.run()
      let data = output.fileHandleForReading.readDataToEndOfFile()
      token.waitUntilExit()
      let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
      guard token.terminationStatus == 0, !text.isEmpty else {
        throw BenchmarkError(description: "wellflow token failed: \(text)")
      }
      return ProgressAPIClient(
        credentials: BackendCredentials(baseURL: url, apiKey: apiKey, token: text),
        maxConnections: maxConnections)
    }

    func stop() {
      guard process.isRunning else { return }
      process.terminate()
      process.waitUntilExit()
    }
  }

  static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
  }

  static func median(_ samples: [Double]) -> Double {
    let sorted = samples.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1
      ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
  }

  /// "12,345".
  static func grouped(_ value: Double) -> String {
    guard value.isFinite else { return "-" }
    let digits = String(Int(value.rounded()))
    var result = ""
    for (index, character) in digits.enumerated() {
      if index > 0, (digits.count - index) % 3 == 0, character != "-" { result.append(",") }
      result.append(character)
    }
    return result
  }

  struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
  }
}
