import FlowKit
import Foundation
import NIOPosix
import ProgressBackend
import Testing

/// `serve` answers a connection's requests on that connection's event loop, and reads the
/// database there: nothing of a request waits for another thread to wake up.
@Suite struct EventLoopConnectionsTests {
  @Test func requestsAreAnsweredOnAnEventLoopThread() async throws {
    // The fault hook runs inside the middleware, where the routes run.
    let onLoop = Locked<[Bool]>([])
    let backend = try await TestBackend.start(fault: { _, _ in
      onLoop.withLock { $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil) }
      return nil
    })
    defer { Task { await backend.stop() } }
    let (status, _) = try await backend.raw("GET", "/api/v1/progress?limit=5", headers: backend.headers())
    #expect(status == 200)
    #expect(onLoop.current == [true])
  }

  @Test(arguments: [false, true])
  func pagesAreReadWhileOtherConnectionsWrite(inAFile: Bool) async throws {
    // Reads block their event loop while writes run on the writer's queue: neither waits
    // for the other (a file is a pool of readers beside one writer; memory is one queue).
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wellflow-loop-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let backend = try await TestBackend.start(
      databasePath: inAFile ? directory.appendingPathComponent("backend.sqlite").path : nil)
    defer { Task { await backend.stop() } }
    let headers = backend.headers(user: "loop-user")
    let body = String(decoding: progressBody(quantity: 4), as: UTF8.self)
    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
      for index in 0..<24 {
        group.addTask {
          index.isMultiple(of: 2)
            ? try await backend.raw("POST", "/api/v1/progress", body: body, headers: headers).status
            : try await backend.raw("GET", "/api/v1/progress?limit=50", headers: headers).status
        }
      }
      return try await group.reduce(into: [Int]()) { $0.append($1) }
    }
    #expect(statuses.sorted() == Array(repeating: 200, count: 12) + Array(repeating: 201, count: 12))
    let (status, json) = try await backend.raw("GET", "/api/v1/progress?limit=50", headers: headers)
    #expect(status == 200)
    let page = try #require(json["data"] as? [String: Any])
    #expect(page["total"] as? Int == 12)
    #expect((page["entries"] as? [Any])?.count == 12)
  }
}
