import FlowKit
import Foundation
import MoodTracking
import MoodTrackingSQLite
import MoodTrackingSync
import MoodTrackingTesting
import Storage
import SyncHTTPClient
import SyncURLSession
import Testing

@testable import Sync

/// Hostile peers: a backend that redirects, answers without end or pages
/// without end cannot take the credentials elsewhere, fill the memory or hold a sync.
@Suite struct HostilePeerTests {
  /// A listener that records what reaches it: where a redirect would have sent the client.
  static func otherHost() throws -> ScriptedServer {
    try ScriptedServer { _ in .http(200, "OK", body: MisbehavingBackendTests.created) }
  }

  @Test func aRedirectToAnotherHostIsNotFollowedAndTheRowWaitsWithTheLocationNamed() async throws {
    let other = try Self.otherHost()
    defer { other.stop() }
    let location = other.url.absoluteString + "/api/v1/progress/batch"
    let backend = try ScriptedServer { _ in
      .http(307, "Temporary Redirect", headers: ["Location": location], body: "")
    }
    defer { backend.stop() }
    let clock = testClock()
    let (database, directory) = try makeAppDatabase()
    defer { try? FileManager.default.removeItem(at: directory) }
    try await seedMoods(SQLiteMoodRepository(writer: database.writer), user: "alice", count: 2, clock: clock)
    let outbox = SQLiteOutbox(database: database)

    let report = try await OutboxProcessor(outbox: outbox, api: backend.client(), clock: clock)
      .run(userID: "alice")
    let message = "the backend answered 307 redirecting to \(location); redirects are not followed"
    #expect(report.stop == .backendUnavailable(message))
    #expect(report.retrying == 2 && report.failed == 0 && report.synced == 0)
    let rows = try await outbox.pending(userID: "alice", dueAt: nil, limit: 10)
    #expect(rows.count == 2 && rows.allSatisfy { $0.status == .pending && $0.lastError == message })
    #expect(try await outbox.failedCount(userID: "alice") == 0)
    #expect(backend.requests.count == 1)  // one batch
    #expect(backend.requests.first?.headers["x-api-key"] == apiKey)
    #expect(other.requests.isEmpty, "the redirect was followed: \(other.requests.map(\.headers))")
  }

  @Test func noRedirectIsFollowedForAnyMethodStatusOrScheme() async throws {
    let other = try Self.otherHost()
    defer { other.stop() }
    let host = other.url.host ?? "127.0.0.1"
    let port = other.url.port ?? 0
    let locations = [
      "http://\(host):\(port)/api/v1/progress", "https://\(host):\(port)/api/v1/progress",
      "ftp://\(host):\(port)/x", "/api/v1/progress",
    ]
    for status in [301, 302, 303, 307, 308] {
      for location in locations {
        let backend = try ScriptedServer { _ in
          .http(status, HTTPStatusText.reason(status), headers: ["Location": location], body: "moved")
        }
        defer { backend.stop() }
        let client = backend.client()
        let redirected = ProgressAPIError.redirected(status: status, location: location)
        await #expect(throws: redirected) {
          _ = try await client.createProgress(body: progressBody(), idempotencyKey: "k")
        }
        await #expect(throws: redirected) {
          _ = try await client.updateProgress(id: "b1", body: progressBody(), idempotencyKey: "k")
        }
        await #expect(throws: redirected) { try await client.deleteProgress(id: "b1", idempotencyKey: "k") }
        await #expect(throws: redirected) { _ = try await client.listProgress(ListQuery()) }
        #expect(backend.requests.count == 4, "\(status) \(location)")
      }
    }
    #expect(other.requests.isEmpty)
    // Without a Location, the status is named.
    #expect(
      ProgressAPIError.redirected(status: 302, location: nil).description
        == "the backend answered 302 Found; redirects are not followed")
  }

  @Test func aLocationIsNamedWithItsControlCharactersEscapedAndClipped() {
    let hostile = "http://x/\u{1B}]52;c;Zm9v\u{07}" + String(repeating: "a", count: 500)
    let message = ProgressAPIError.redirected(status: 307, location: hostile).description
    #expect(!message.unicodeScalars.contains { $0.value < 0x20 })
    #expect(
      message
        == "the backend answered 307 redirecting to http://x/\\u{1B}]52;c;Zm9v\\u{7}"
        + String(repeating: "a", count: 200 - 21) + "…; redirects are not followed")
  }

  /// A page of one row, then spaces (JSON allows them) to `size` bytes in all.
  static func paddedPage(size: Int) -> Data {
    var page = Data(
      #"{"data":{"entries":[{"id":"b1","type":"mood_score","quantity":7,"date":"2026-03-01"}],"total":1,"limit":100,"offset":0}}"#
        .utf8)
    page.append(Data(repeating: UInt8(ascii: " "), count: size - page.count))
    return page
  }

  /// `data` gzipped by the system's `gzip`.
  static func gzipped(_ data: Data) throws -> Data {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "wellflow-gzip-\(UUID().uuidString)")
    defer {
      try? FileManager.default.removeItem(at: file)
      try? FileManager.default.removeItem(at: file.appendingPathExtension("gz"))
    }
    try data.write(to: file)
    let gzip = Process()
    gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    gzip.arguments = ["gzip", "-9", file.path]
    try gzip.run()
    gzip.waitUntilExit()
    return try Data(contentsOf: file.appendingPathExtension("gz"))
  }

  static func answer(_ body: Data, gzip: Bool) -> ScriptedServer.Answer {
    var head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
    if gzip { head += "Content-Encoding: gzip\r\n" }
    return .raw(Data((head + "Connection: close\r\n\r\n").utf8) + body)
  }

  @Test func aGzipBodyThatInflatesPastTheLimitIsRefused() async throws {
    let bomb = try Self.gzipped(Self.paddedPage(size: HTTPExchangeResponse.maxBodyBytes + 1))
    #expect(bomb.count < 64 << 10)
    let server = try ScriptedServer { _ in Self.answer(bomb, gzip: true) }
    defer { server.stop() }
    let report = try await MoodPull(
      api: server.client(), repository: InMemoryMoodRepository(), clock: testClock()
    )
    .run(userID: "alice")
    #expect(report.error == .tooLarge && report.imported == 0)
    #expect(
      ProgressAPIError.tooLarge.description
        == "the backend's answer is over 8 MiB (counted decompressed) and was refused")
    #expect(ProgressAPIError.tooLarge.isTransient && ProgressAPIError.tooLarge.endsPass)

    // Through URLSession, as an Apple app sends.
    let client = ProgressAPIClient(
      credentials: BackendCredentials(baseURL: server.url, apiKey: apiKey, token: "token"),
      transport: URLSessionTransport(), timeout: 600)
    await #expect(throws: ProgressAPIError.tooLarge) { _ = try await client.listProgress(ListQuery()) }
  }

  @Test func aPlainBodyIsCappedAtTheLimitToo() async throws {
    let atLimit = Self.paddedPage(size: HTTPExchangeResponse.maxBodyBytes)
    let overLimit = Self.paddedPage(size: HTTPExchangeResponse.maxBodyBytes + 1)
    let server = try ScriptedServer { request in
      Self.answer(request.path.contains("offset=1") ? overLimit : atLimit, gzip: false)
    }
    defer { server.stop() }
    let client = server.client()
    #expect(try await client.listProgress(ListQuery(offset: 0)).entries.count == 1)
    await #expect(throws: ProgressAPIError.tooLarge) {
      _ = try await client.listProgress(ListQuery(offset: 1))
    }
    // The gzipped page at the limit is read whole.
    let gzipped = try Self.gzipped(atLimit)
    let compressed = try ScriptedServer { _ in Self.answer(gzipped, gzip: true) }
    defer { compressed.stop() }
    #expect(try await compressed.client().listProgress(ListQuery()).entries.count == 1)
  }

  /// A GET answered with `rows` unreadable-as-mood rows (quantity 0: skipped, cheap) and
  /// `total`, offset by the request's; after `cutOff` requests, an empty page.
  static func endlessBackend(rows: Int = 100, total: @escaping @Sendable (Int) -> Int, cutOff: Int = 150)
    throws -> ScriptedServer
  {
    let served = Locked(0)
    return try ScriptedServer { request in
      let count = served.withLock { count -> Int in
        count += 1
        return count
      }
      let offset =
        URLComponents(string: request.path)?.queryItems?.first { $0.name == "offset" }?.value.flatMap {
          Int($0)
        }
        ?? 0
      let entries = (count > cutOff ? 0..<0 : 0..<rows).map { index in
        #"{"id":"r\#(offset + index)","type":"mood_score","quantity":0,"date":"2026-03-01"}"#
      }
      return .http(
        200, "OK",
        body: #"{"data":{"entries":["# + entries.joined(separator: ",")
          + #"],"total":\#(total(count)),"limit":100,"offset":\#(offset)}}"#)
    }
  }

  @Test func onePullReadsAtMost100PagesAndTheNextSyncGoesOn() async throws {
    let server = try Self.endlessBackend(total: { _ in 2_000_000_000 }, cutOff: 1_000)
    defer { server.stop() }
    let clock = testClock()
    let repository = InMemoryMoodRepository()
    let report = try await MoodPull(api: server.client(), repository: repository, clock: clock).run(
      userID: "alice")
    #expect(server.requests.count == 100)
    #expect(report.skippedCount == 10_000 && report.error == nil && report.resumeOffset == 10_000)
    #expect(
      report.unfinished
        == "the pull stopped after 100 pages (at row 10000 of a total of 2000000000); the next sync goes on from there"
    )

    struct Connector: BackendConnector {
      let client: ProgressAPIClient
      func api(for userID: String) async throws -> any ProgressAPI { client }
    }
    let service = SyncService(
      connector: Connector(client: server.client()), outbox: repository.outbox, moods: repository,
      clock: clock,
      connectivity: NetworkSwitch())
    let first = try await service.sync(userID: "alice")
    #expect(first.pullUnfinished == report.unfinished)
    #expect(server.requests[100].path.contains("offset=0"))
    _ = try await service.sync(userID: "alice")
    #expect(server.requests[200].path.contains("offset=10000"))
  }

  @Test func aPullStopsAtTheFirstTotalAndAtTotalsThatDoNotAddUp() async throws {
    // The total grows with every page: the pull ends at the first one's.
    let growing = try Self.endlessBackend(total: { count in 150 * count })
    defer { growing.stop() }
    let pull = { (server: ScriptedServer) in
      try await MoodPull(api: server.client(), repository: InMemoryMoodRepository(), clock: testClock())
        .run(userID: "alice")
    }
    var report = try await pull(growing)
    #expect(growing.requests.count == 2 && report.unfinished == nil && report.skippedCount == 200)

    // A total that shrinks (rows deleted meanwhile) ends it sooner.
    let shrinking = try Self.endlessBackend(total: { count in count == 1 ? 1_000 : 150 })
    defer { shrinking.stop() }
    report = try await pull(shrinking)
    #expect(shrinking.requests.count == 2)

    let negative = try Self.endlessBackend(total: { _ in -1 })
    defer { negative.stop() }
    report = try await pull(negative)
    #expect(negative.requests.count == 1 && report.skippedCount == 0)
    #expect(report.unfinished == "the backend's total (-1) is not a count of rows")

    let oversized = try Self.endlessBackend(rows: 150, total: { _ in 1_000_000 })
    defer { oversized.stop() }
    report = try await pull(oversized)
    #expect(oversized.requests.count == 1 && report.skippedCount == 150)
    #expect(report.unfinished == "the backend answered 150 rows for a page of 100")
  }
}
