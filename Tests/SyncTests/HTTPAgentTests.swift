import FlowKit
import Foundation
import ProgressBackend
import Testing

@testable import Sync

/// `wellflow` sends HTTP through the `wellflow-http` agent process (built beside the test
/// bundle, as beside `wellflow`): the frames between them, the agent against the real
/// server, and what happens when the agent is missing, dies or answers garbage.
@Suite struct HTTPAgentTests {
  let request = HTTPExchangeRequest(
    method: "PUT", url: URL(string: "http://127.0.0.1:1/api/v1/progress/a%2Fb?limit=5")!,
    headers: ["Idempotency-Key": "k-1", "Content-Type": "application/json", "Empty": ""],
    body: Data("{\"é\":\"\\u0000\"}".utf8), idleTimeout: 15, deadline: 0.25)

  @Test func framesRoundTripEveryField() throws {
    let frame = HTTPAgentFrames.request(id: 42, request, connections: 3)
    #expect(try HTTPAgentFrames.length(frame[0..<4]) == frame.count - 4)
    let read = try HTTPAgentFrames.readRequest(Array(frame[4...]))
    #expect(read.id == 42 && read.request == request && read.connections == 3)

    var noBody = request
    noBody.body = nil
    #expect(
      try HTTPAgentFrames.readRequest(Array(HTTPAgentFrames.request(id: 1, noBody, connections: 1)[4...]))
        .request == noBody)

    let answers: [Result<HTTPExchangeResponse, HTTPTransportFailure>] = [
      .success(HTTPExchangeResponse(status: 201, headers: ["Retry-After": "3"], body: Data("{}".utf8))),
      .success(HTTPExchangeResponse(status: 204, headers: [:], body: Data())),
      .failure(.timeout), .failure(.offline), .failure(.unreachable("connection refused")),
      .failure(.tooLarge),
    ]
    for (id, answer) in answers.enumerated() {
      let frame = HTTPAgentFrames.response(id: UInt64(id), answer)
      let read = try HTTPAgentFrames.readResponse(Array(frame[4...]))
      #expect(read.id == UInt64(id))
      #expect(read.result == answer)
    }
    #expect(
      try HTTPAgentFrames.readResponse(Array(HTTPAgentFrames.response(id: 0, answers[0])[4...])).result.get()
        .header("retry-after") == "3")
  }

  @Test func aTruncatedOrGarbledFrameIsAnErrorNotATrap() throws {
    let frame = Array(HTTPAgentFrames.request(id: 7, request, connections: 1)[4...])
    for cut in [0, 1, 8, 12, frame.count / 2, frame.count - 1] {
      #expect(throws: HTTPAgentFrames.Malformed.self) {
        try HTTPAgentFrames.readRequest(Array(frame[..<cut]))
      }
    }
    let leftOver = #expect(throws: HTTPAgentFrames.Malformed.self) {
      try HTTPAgentFrames.readRequest(frame + [0])
    }
    #expect(leftOver?.description == "1 bytes left over after the frame")
    let kind = #expect(throws: HTTPAgentFrames.Malformed.self) {
      try HTTPAgentFrames.readResponse([0, 0, 0, 0, 0, 0, 0, 1, 9])
    }
    #expect(kind?.description == "unknown answer kind 9")
    // A string announcing 4 GiB in a 20-byte frame.
    let huge = #expect(throws: HTTPAgentFrames.Malformed.self) {
      try HTTPAgentFrames.readResponse([0, 0, 0, 0, 0, 0, 0, 1, 3, 0xFF, 0xFF, 0xFF, 0xFF, 65])
    }
    #expect(huge?.description == "the frame ends early (4294967295 bytes wanted at 13 of 14)")
    let long = #expect(throws: HTTPAgentFrames.Malformed.self) {
      try HTTPAgentFrames.length([0xFF, 0xFF, 0xFF, 0xFF])
    }
    #expect(long?.description == "a frame of 4294967295 bytes is over the limit")
  }

  @Test func theAgentSendsThroughURLSessionToTheRealServer() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let transport = HTTPAgentTransport(agent: HTTPAgentTransport.defaultAgentPath())
    let client = ProgressAPIClient(
      credentials: BackendCredentials(
        baseURL: backend.url, apiKey: apiKey, token: backend.server.token(for: "alice")),
      transport: transport, timeout: 60)
    // Concurrent requests share the one agent and each gets its own answer. Nothing here
    // waits on a deadline, so it is generous: the agent starts and eight requests queue
    // for two connections, which took more than 10 s on a busy machine.
    let created = try await withThrowingTaskGroup(of: ProgressRecord.self) { group in
      for score in 1...8 {
        group.addTask {
          try await client.createProgress(
            body: progressBody(quantity: Double(score)), idempotencyKey: "key-\(score)")
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(Set(created.map(\.quantity)) == Set((1...8).map(Double.init)))
    let page = try await client.listProgress(ListQuery(limit: 50))
    #expect(page.total == 8)
    // The server's refusal arrives as the same classified error as in process.
    await #expect(throws: ProgressAPIError.badRequest("quantity must be a whole number from 1 to 10, got 11"))
    {
      _ = try await client.createProgress(body: progressBody(quantity: 11), idempotencyKey: "key-11")
    }
  }

  @Test func aMissingAgentIsAClearErrorAndLeavesTheRowPending() async throws {
    let transport = HTTPAgentTransport(agent: "/nonexistent/wellflow-http")
    let result = await transport.send(request)
    #expect(
      result
        == .failure(
          .unreachable(
            "no HTTP agent at /nonexistent/wellflow-http: build it with `swift build --product wellflow-http`"
              + " or set WELLFLOW_HTTP_AGENT")))
    #expect(ProgressAPIError.unreachable("").isTransient)
  }

  @Test func anAgentThatDiesFailsWhatIsInFlightAndTheNextRequestStartsAnother() async throws {
    // A server that accepts and never answers keeps a request in flight.
    let silent = try SilentServer()
    var hanging = request
    hanging.url = URL(string: "http://127.0.0.1:\(silent.port)/")!
    hanging.deadline = 30
    let transport = HTTPAgentTransport(agent: HTTPAgentTransport.defaultAgentPath())
    async let answer = transport.send(hanging)
    var agent: Int32?
    for _ in 0..<6_000 where agent == nil {
      try await Task.sleep(for: .milliseconds(10))
      agent = transport.agentProcessIdentifier
    }
    let pid = try #require(agent)
    try await Task.sleep(for: .milliseconds(200))
    kill(pid, SIGKILL)
    #expect(await answer == .failure(.unreachable("the HTTP agent \(transport.agent) exited")))

    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    var health = request
    health.method = "GET"
    health.url = backend.url.appendingPathComponent("api/v1/progress")
    health.body = nil
    health.deadline = 60
    let next = await transport.send(health)
    #expect((try? next.get().status) == 401)  // no credentials: the server answered
    #expect(transport.agentProcessIdentifier != pid)
  }

  @Test func theAgentsDeadlineEndsARequestToASilentServer() async throws {
    let silent = try SilentServer()
    var hanging = request
    hanging.url = URL(string: "http://127.0.0.1:\(silent.port)/")!
    hanging.deadline = 0.3
    let transport = HTTPAgentTransport(agent: HTTPAgentTransport.defaultAgentPath())
    #expect(await transport.send(hanging) == .failure(.timeout))
  }
}

/// A loopback listener that accepts connections and never answers.
final class SilentServer: @unchecked Sendable {
  let port: Int
  private let socket: Int32
  private var accepted: [Int32] = []
  private let lock = NSLock()

  init() throws {
    let listener = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    socket = listener
    port = Int(UInt16(bigEndian: address.sin_port))
    Thread.detachNewThread { [weak self] in
      while true {
        let connection = accept(listener, nil, nil)
        guard connection >= 0, let self else { return }
        self.lock.lock()
        self.accepted.append(connection)
        self.lock.unlock()
      }
    }
  }

  deinit {
    shutdown(socket, Int32(SHUT_RDWR))
    close(socket)
    for connection in accepted { close(connection) }
  }
}
