import FlowKit
import Foundation
import Testing
import WellflowCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `serve`'s request log is written through a `BatchedLines`: lines in order, whole, and
/// none lost when it is flushed or the server stops.
@Suite struct BatchedLinesTests {
  /// What a buffer wrote, write by write.
  final class Writes: @unchecked Sendable {
    private let lock = NSLock()
    private var writes: [String] = []

    func add(_ bytes: UnsafeRawBufferPointer) {
      let text = String(decoding: bytes, as: UTF8.self)
      lock.withLock { writes.append(text) }
    }

    var all: [String] { lock.withLock { writes } }
  }

  @Test func linesWaitForAFlushThenAreWrittenInOrderAtOnce() {
    let writes = Writes()
    let buffer = BatchedLines(limit: 1_000) { writes.add($0) }
    buffer.append("GET /a 200 0.1 ms")
    buffer.append("POST /b 201 0.2 ms")
    #expect(writes.all.isEmpty)
    buffer.flush()
    #expect(writes.all == ["GET /a 200 0.1 ms\nPOST /b 201 0.2 ms\n"])
    buffer.flush()
    #expect(writes.all.count == 1)
  }

  @Test func linesAreWrittenWithoutAFlushOnceTheLimitWaits() {
    let writes = Writes()
    let buffer = BatchedLines(limit: 20) { writes.add($0) }
    buffer.append("0123456789")
    #expect(writes.all.isEmpty)
    buffer.append("abcdefghij")
    #expect(writes.all == ["0123456789\nabcdefghij\n"])
  }

  @Test func linesFromManyThreadsAreAllWrittenWhole() async {
    let writes = Writes()
    let buffer = BatchedLines(limit: 256) { writes.add($0) }
    await withTaskGroup(of: Void.self) { group in
      for task in 0..<8 {
        group.addTask {
          for line in 0..<500 { buffer.append("task \(task) line \(line)") }
        }
      }
    }
    buffer.flush()
    let lines = writes.all.joined().split(separator: "\n").map(String.init)
    #expect(lines.count == 4_000)
    #expect(Set(lines).count == 4_000)
    // Each task's lines keep their order.
    for task in 0..<8 {
      let own = lines.filter { $0.hasPrefix("task \(task) ") }
      #expect(own == (0..<500).map { "task \(task) line \($0)" })
    }
  }

  /// `wellflow serve` writes a request's line while it runs, and one answered just before
  /// SIGTERM is on its output when it has stopped.
  @Test func serveLosesNoLineWhenItStops() async throws {
    let process = Process()
    process.executableURL = try PreviewProcess.executable()
    process.arguments = ["serve", "--port", "0"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    defer { if process.isRunning { process.terminate() } }
    let lines = Locked<[String]>([])
    let ended = Locked(false)
    PreviewProcess.readLines(from: pipe.fileHandleForReading, into: lines) { ended.withLock { $0 = true } }
    func line(_ matches: @escaping (String) -> Bool) async -> String? {
      // A bound on a hang, not a speed.
      let deadline = ContinuousClock.now + .seconds(600)
      while ContinuousClock.now < deadline, process.isRunning {
        if let line = lines.current.first(where: matches) { return line }
        try? await Task.sleep(for: .milliseconds(10))
      }
      return lines.current.first(where: matches)
    }
    let startLine = await line { $0.hasPrefix("serving the progress API on ") }
    let started = try #require(startLine)
    let base = String(started.dropFirst("serving the progress API on ".count).prefix { $0 != " " })
    func get(_ path: String) async throws -> Int {
      let request = URLRequest(url: URL(string: base + path)!, timeoutInterval: 600)
      let (_, response) = try await URLSession.shared.data(for: request)
      return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
    #expect(try await get("/openapi.yaml") == 200)
    // Written while the server runs, by the buffer's timer.
    let logged = await line { $0.hasPrefix("GET /openapi.yaml 200 ") }
    #expect(logged != nil)
    #expect(try await get("/nowhere") == 404)
    process.terminate()
    process.waitUntilExit()
    // The reading thread takes the last bytes from the pipe.
    let deadline = ContinuousClock.now + .seconds(600)
    while !ended.current, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
    let log = lines.current.filter { $0.hasPrefix("GET ") }
    #expect(log.count == 2, "\(lines.current)")
    #expect(log.last?.hasPrefix("GET /nowhere 404 ") == true, "\(lines.current)")
    #expect(log.allSatisfy { $0.hasSuffix(" ms") })
  }
}
