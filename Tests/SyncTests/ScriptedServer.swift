import AsyncHTTPClient
import FlowKit
import Foundation
import Sync
import SyncHTTPClient

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A misbehaving HTTP server for fault tests: a raw socket on 127.0.0.1 (a free port)
/// that reads each request and answers with whatever bytes the test scripts, which the
/// real backend never sends (a 429 with `Retry-After`, a captive portal's HTML, a cut
/// body, one byte at a time). One thread per connection; every answer closes it.
final class ScriptedServer: Sendable {
  struct Request: Sendable {
    var method: String
    var path: String
    var headers: [String: String]
    var body: Data
  }

  enum Answer: Sendable {
    /// These bytes, then the connection closes.
    case raw(Data)
    /// The head at once, then the body one byte per `interval`, until the client hangs up.
    case drip(head: String, body: Data, interval: Double)
  }

  let url: URL
  private let listener: Int32
  private let stopped = Locked(false)
  private let log = Locked<[Request]>([])
  private let respond: @Sendable (Request) -> Answer
  /// This server's own connection pool, shut down with it: no pooled connection or queued
  /// request of another test's server (one that had this port before) can reach it.
  private let http = HTTPClient(
    eventLoopGroup: HTTPClient.defaultEventLoopGroup,
    configuration: HTTPClientTransport.configuration(idle: 600, connections: 2))

  /// Every request so far, in arrival order.
  var requests: [Request] { log.current }

  init(_ respond: @escaping @Sendable (Request) -> Answer) throws {
    self.respond = respond
    #if canImport(Darwin)
      let stream = SOCK_STREAM
    #else
      let stream = Int32(SOCK_STREAM.rawValue)
    #endif
    let socketFD = socket(AF_INET, stream, 0)
    guard socketFD >= 0 else { throw SocketFailure("socket") }
    var yes: Int32 = 1
    setsockopt(socketFD, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
        bind(socketFD, generic, length) == 0 && listen(socketFD, 16) == 0
          && getsockname(socketFD, generic, &length) == 0
      }
    }
    guard bound else {
      close(socketFD)
      throw SocketFailure("bind")
    }
    listener = socketFD
    url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")!
    let thread = Thread { [self] in acceptLoop() }
    thread.start()
  }

  /// Stops accepting; connections being answered end at their next write.
  func stop() {
    let first = stopped.withLock { stopped in
      defer { stopped = true }
      return !stopped
    }
    if first { http.shutdown { _ in } }
  }

  deinit {
    stop()
    close(listener)
  }

  private func acceptLoop() {
    while !stopped.current {
      var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, 50) > 0 else { continue }
      let connection = accept(listener, nil, nil)
      guard connection >= 0 else { continue }
      #if canImport(Darwin)
        var yes: Int32 = 1
        setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
      #endif
      let thread = Thread { [self] in
        serve(connection)
        close(connection)
      }
      thread.start()
    }
  }

  private func serve(_ connection: Int32) {
    guard let request = read(connection) else { return }
    log.withLock { $0.append(request) }
    switch respond(request) {
    case .raw(let bytes):
      _ = write(bytes, to: connection)
    case .drip(let head, let body, let interval):
      guard write(Data(head.utf8), to: connection) else { return }
      for byte in body {
        Thread.sleep(forTimeInterval: interval)
        guard !stopped.current, write(Data([byte]), to: connection) else { return }
      }
    }
  }

  /// The request head and its `Content-Length` body; nil if the client hung up first.
  private func read(_ connection: Int32) -> Request? {
    var buffer = Data()
    var chunk = [UInt8](repeating: 0, count: 4_096)
    let separator = Data("\r\n\r\n".utf8)
    var headEnd: Range<Data.Index>?
    var answeredContinue = false
    while true {
      if headEnd == nil { headEnd = buffer.range(of: separator) }
      if let headEnd {
        let head = String(decoding: buffer[..<headEnd.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        var headers: [String: String] = [:]
        for line in lines {
          guard let colon = line.firstIndex(of: ":") else { continue }
          headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
            .trimmingCharacters(in: .whitespaces)
        }
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        if headers["expect"]?.lowercased() == "100-continue", !answeredContinue {
          answeredContinue = true
          _ = write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8), to: connection)
        }
        let body = buffer[headEnd.upperBound...]
        if body.count >= length, requestLine.count >= 2 {
          return Request(
            method: String(requestLine[0]), path: String(requestLine[1]), headers: headers,
            body: Data(body.prefix(length)))
        }
      }
      let count = recv(connection, &chunk, chunk.count, 0)
      guard count > 0 else { return nil }
      buffer.append(contentsOf: chunk[0..<count])
    }
  }

  private func write(_ data: Data, to connection: Int32) -> Bool {
    #if canImport(Darwin)
      let flags: Int32 = 0
    #else
      let flags = Int32(MSG_NOSIGNAL)
    #endif
    return data.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let sent = send(connection, bytes.baseAddress! + offset, bytes.count - offset, flags)
        guard sent > 0 else { return false }
        offset += sent
      }
      return true
    }
  }

  struct SocketFailure: Error, CustomStringConvertible {
    var description: String
    init(_ call: String) { description = "\(call) failed: \(String(cString: strerror(errno)))" }
  }
}

extension ScriptedServer.Answer {
  /// A whole HTTP answer with a body; `Connection: close` so each request dials anew.
  static func http(
    _ status: Int, _ reason: String, headers: [String: String] = [:], body: String,
    contentType: String = "application/json", contentLength: Int? = nil
  ) -> Self {
    var head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(contentType)\r\n"
    head += "Content-Length: \(contentLength ?? body.utf8.count)\r\nConnection: close\r\n"
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
    return .raw(Data((head + "\r\n" + body).utf8))
  }

  /// The backend's refusal: the status with `{"error":{"message","code"}}`.
  static func refusal(_ status: Int, _ reason: String, message: String, code: String) -> Self {
    .http(status, reason, body: #"{"error":{"message":"\#(message)","code":"\#(code)"}}"#)
  }
}

extension ScriptedServer {
  /// A client of this server, through its own pool; `deadline` bounds each whole request.
  /// By default it is far longer than any answer takes however busy the machine (an 8 MiB
  /// page took over 30 s under a full suite and two CPU burners); a test that wants a
  /// timeout asks for a short one.
  func client(deadline: TimeInterval = 600) -> ProgressAPIClient {
    ProgressAPIClient(
      credentials: BackendCredentials(baseURL: url, apiKey: apiKey, token: "token"),
      transport: HTTPClientTransport(client: http), timeout: 600, requestDeadline: deadline)
  }
}
