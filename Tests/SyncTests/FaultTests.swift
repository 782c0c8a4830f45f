import FlowKit
import Foundation
import MoodTracking
import MoodTrackingSQLite
import ProgressBackend
import Storage
import Sync
import SyncHTTPClient
import Testing

/// The processor against the real server when things go wrong.
@Suite struct FaultTests {
  @Test func aServerThatIsDownLeavesRowsPendingWithABackoff() async throws {
    let backend = try await TestBackend.start()
    let client = backend.client("alice")
    await backend.stop()
    let (database, directory) = try makeAppDatabase()
    defer { try? FileManager.default.removeItem(at: directory) }
    let clock = testClock()
    try await seedMoods(SQLiteMoodRepository(writer: database.writer), user: "alice", count: 3, clock: clock)
    let outbox = SQLiteOutbox(database: database)
    let report = try await OutboxProcessor(outbox: outbox, api: client, clock: clock, random: { 0.5 })
      .run(userID: "alice")
    // The three rows went as one batch: each waits out its backoff.
    #expect(report.synced == 0 && report.retrying == 3 && report.untried == 0)
    guard case .backendUnavailable = report.stop else {
      Issue.record("expected the pass to stop, got \(String(describing: report.stop))")
      return
    }
    #expect(try await outbox.pendingCount(userID: "alice") == 3)
    #expect(try await outbox.pending(userID: "alice", dueAt: clock.now, limit: 10).isEmpty)
    let later = try await outbox.pending(userID: "alice", dueAt: clock.now.addingTimeInterval(5), limit: 10)
    #expect(later.count == 3 && later.allSatisfy { $0.attempts == 1 })
  }

  @Test func a500ThenSuccessSendsTheRowOnce() async throws {
    let failures = Locked(1)
    let backend = try await TestBackend.start { method, _ in
      guard method == "POST" else { return nil }
      return failures.withLock { remaining in
        guard remaining > 0 else { return nil }
        remaining -= 1
        return .status(500, message: "database is having a moment")
      }
    }
    defer { Task { await backend.stop() } }
    let (database, directory) = try makeAppDatabase()
    defer { try? FileManager.default.removeItem(at: directory) }
    let clock = testClock()
    try await seedMoods(SQLiteMoodRepository(writer: database.writer), user: "alice", count: 1, clock: clock)
    let outbox = SQLiteOutbox(database: database)
    let processor = OutboxProcessor(outbox: outbox, api: backend.client("alice"), clock: clock)
    var report = try await processor.run(userID: "alice")
    #expect(report.retrying == 1)
    let waiting = try await outbox.pending(userID: "alice", dueAt: nil, limit: 1)
    #expect(waiting.first?.lastError == "the backend failed (500): database is having a moment")
    #expect(waiting.first?.attempts == 1)
    report = try await processor.run(userID: "alice", ignoringBackoff: true)
    #expect(report.synced == 1)
    #expect(try await outbox.pendingCount(userID: "alice") == 0)
    #expect(try await backend.client("alice").listProgress(ListQuery()).total == 1)
  }

  /// The deadline is the test's: it passes once the server holds the request, which it
  /// never answers, so a timeout is the only outcome however slow the machine. The retry
  /// must succeed, so it gets a generous deadline (a 1 s one failed it on a busy machine).
  @Test func aResponseThatNeverComesTimesOutAndTheRowWaits() async throws {
    let hang = Locked(true)
    let held = Locked(false)
    let backend = try await TestBackend.start { _, _ in
      guard hang.current else { return nil }
      held.withLock { $0 = true }
      return .hang
    }
    defer { Task { await backend.stop() } }
    let (database, directory) = try makeAppDatabase()
    defer { try? FileManager.default.removeItem(at: directory) }
    let clock = testClock()
    try await seedMoods(SQLiteMoodRepository(writer: database.writer), user: "alice", count: 2, clock: clock)
    let outbox = SQLiteOutbox(database: database)
    let transport = HTTPClientTransport { _ in
      while !held.current, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
    }
    let hanging = ProgressAPIClient(
      credentials: BackendCredentials(
        baseURL: backend.url, apiKey: apiKey, token: backend.server.token(for: "alice")),
      transport: transport, timeout: 600)
    let report = try await OutboxProcessor(outbox: outbox, api: hanging, clock: clock).run(userID: "alice")
    #expect(report.stop == .backendUnavailable("the backend did not answer in time"))
    #expect(report.retrying == 2 && report.untried == 0)  // one batch
    #expect(try await outbox.pendingCount(userID: "alice") == 2)
    hang.withLock { $0 = false }
    let retry = try await OutboxProcessor(
      outbox: outbox, api: backend.client("alice"), clock: clock
    )
    .run(userID: "alice", ignoringBackoff: true)
    #expect(retry.synced == 2, "\(retry)")
    #expect(try await backend.client("alice").listProgress(ListQuery()).total == 2)
  }

  @Test func aProcessKilledMidSyncResumesAndEveryRowArrivesOnce() async throws {
    let (database, directory) = try makeAppDatabase()
    defer { try? FileManager.default.removeItem(at: directory) }
    let backendFile = directory.appendingPathComponent("backend.sqlite").path
    let backend = try await TestBackend.start(databasePath: backendFile)
    defer { Task { await backend.stop() } }
    let clock = testClock()
    let entries = try await seedMoods(
      SQLiteMoodRepository(writer: database.writer), user: "alice", count: 1_000, clock: clock)
    let arguments = [
      directory.path, "alice", backend.url.absoluteString, apiKey, backend.server.token(for: "alice"), "4",
    ]

    let first = try ChildProcess(executable: try helperExecutable(), arguments: arguments)
    let reached = try await first.waitForLine { line in
      line.hasPrefix("synced ") && (Int(line.dropFirst(7)) ?? 0) >= 200
    }
    #expect(reached != nil, "the helper never reported progress: \(first.output)")
    first.kill()
    #expect(first.waitUntilExit() == SIGKILL)
    let afterKill = try await backend.client("alice").listProgress(ListQuery(limit: 1)).total
    #expect(afterKill >= 200 && afterKill < 1_000, "killed after \(afterKill) rows")

    let second = try ChildProcess(executable: try helperExecutable(), arguments: arguments)
    let done = try await second.waitForLine { $0 == "done" }
    #expect(done != nil, "the restarted helper did not finish: \(second.output)")
    #expect(second.waitUntilExit() == 0)

    let client = backend.client("alice")
    var seen: [String] = []
    var offset = 0
    while true {
      let page = try await client.listProgress(ListQuery(limit: 100, offset: offset))
      seen += page.entries.compactMap(\.entryID)
      offset += page.entries.count
      if page.entries.isEmpty { break }
    }
    #expect(seen.count == 1_000)
    #expect(Set(seen) == Set(entries.map(\.id.uuidString)))
    let outbox = SQLiteOutbox(database: database)
    #expect(try await outbox.pendingCount(userID: "alice") == 0)
    #expect(try await outbox.failedCount(userID: "alice") == 0)
  }
}

/// The `sync-crash-helper` built beside the tests.
func helperExecutable() throws -> URL {
  var candidates: [URL] = []
  if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
  candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
  for bundle in Bundle.allBundles { candidates.append(bundle.bundleURL.deletingLastPathComponent()) }
  for directory in candidates {
    var url = directory
    // Inside an .xctest bundle on macOS the products folder is a few levels up.
    for _ in 0..<4 {
      let candidate = url.appendingPathComponent("sync-crash-helper")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      url.deleteLastPathComponent()
    }
  }
  throw HelperMissing(description: "sync-crash-helper not found near \(candidates.map(\.path))")
}

struct HelperMissing: Error, CustomStringConvertible {
  var description: String
}

/// A child process whose standard output is read line by line.
final class ChildProcess: Sendable {
  private let process: Process
  private let lines = Locked<[String]>([])
  private let pipe = Pipe()

  init(executable: URL, arguments: [String]) throws {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    self.process = process
    try process.run()
    // A thread of its own reads until the end of the output. Not `readabilityHandler`:
    // with it, libdispatch's event loop crashed here under load (a bad pointer in
    // `_dispatch_event_loop_drain`, in a test process that ran these children).
    let lines = self.lines
    let handle = pipe.fileHandleForReading
    let reader = Thread {
      var pending = Data()
      while true {
        let data = handle.availableData
        if data.isEmpty { break }
        pending.append(data)
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
          let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
          pending.removeSubrange(pending.startIndex...newline)
          lines.withLock { $0.append(line) }
        }
      }
    }
    reader.start()
  }

  var output: [String] { lines.current }

  /// The first line that matches, polling for up to `timeout` seconds; nil if none came.
  func waitForLine(timeout: Double = 120, _ matches: @escaping (String) -> Bool) async throws -> String? {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while ContinuousClock.now < deadline {
      if let line = lines.current.first(where: matches) { return line }
      if !process.isRunning, lines.current.first(where: matches) == nil {
        try await Task.sleep(for: .milliseconds(50))
        return lines.current.first(where: matches)
      }
      try await Task.sleep(for: .milliseconds(5))
    }
    return nil
  }

  func kill() { Foundation.kill(process.processIdentifier, SIGKILL) }

  /// The exit status, or the signal that ended it.
  func waitUntilExit() -> Int32 {
    process.waitUntilExit()
    return process.terminationStatus
  }
}
