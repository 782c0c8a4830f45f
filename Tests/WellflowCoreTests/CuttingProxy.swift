import FlowKit
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A TCP proxy on loopback in front of a server (PostgreSQL): it forwards both ways, counts
/// the bytes the server sends, and cuts each connection once the server has sent it
/// `cutAfter` bytes — a database that goes away in the middle of an answer. With
/// `cutAfter: .max` it only counts (`largestAnswer`: the most one connection received).
final class CuttingProxy: Sendable {
  let port: Int
  private let listener: Int32
  private let received = Locked(0)

  /// The most bytes the server sent on one connection so far.
  var largestAnswer: Int { received.current }

  init(to target: Int, cutAfter: Int) throws {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard listener >= 0 else { throw POSIXError(.EMFILE) }
    var address = Self.loopback(port: 0)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(listener, 16) == 0 else {
      close(listener)
      throw POSIXError(.EADDRINUSE)
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    self.listener = listener
    port = Int(UInt16(bigEndian: address.sin_port))
    let received = received
    // The accept thread owns the listening socket: `stop` only shuts it down, so its
    // number is not reused while the thread may still be in `accept`.
    Thread.detachNewThread {
      defer { close(listener) }
      while true {
        let client = accept(listener, nil, nil)
        if client < 0 {
          if errno == EINTR { continue }
          return
        }
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var target = Self.loopback(port: target)
        let connected = withUnsafePointer(to: &target) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
          }
        }
        guard server >= 0, connected == 0 else {
          close(client)
          if server >= 0 { close(server) }
          continue
        }
        // Each direction on a thread of its own; whichever ends first ends both, and the
        // sockets close once neither thread can use them.
        let pair = Pair(client, server)
        Thread.detachNewThread { Self.pump(from: client, to: server, limit: .max, counted: nil, pair) }
        Thread.detachNewThread {
          Self.pump(from: server, to: client, limit: cutAfter, counted: received, pair)
        }
      }
    }
  }

  /// Stops accepting; connections already open go on until either side ends them.
  func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

  deinit { stop() }

  /// A connection's two sockets, closed when both of its pumps have ended.
  private final class Pair: Sendable {
    let sockets: (Int32, Int32)
    private let ended = Locked(0)

    init(_ first: Int32, _ second: Int32) { sockets = (first, second) }

    func pumpEnded() {
      guard
        ended.withLock({ count -> Bool in
          count += 1
          return count == 2
        })
      else { return }
      close(sockets.0)
      close(sockets.1)
    }
  }

  /// Copies `from` to `to` until either ends or `limit` bytes have gone; then shuts both
  /// down, so the other pump sees its end.
  private static func pump(from: Int32, to: Int32, limit: Int, counted: Locked<Int>?, _ pair: Pair) {
    var total = 0
    var buffer = [UInt8](repeating: 0, count: 16_384)
    loop: while total < limit {
      let read = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, min($0.count, limit - total), 0) }
      if read <= 0 { break }
      var sent = 0
      while sent < read {
        let written = buffer.withUnsafeBytes {
          send(to, $0.baseAddress! + sent, read - sent, Int32(MSG_NOSIGNAL))
        }
        if written <= 0 { break loop }
        sent += written
      }
      total += read
      counted?.withLock { $0 = max($0, total) }
    }
    shutdown(from, Int32(SHUT_RDWR))
    shutdown(to, Int32(SHUT_RDWR))
    pair.pumpEnded()
  }

  private static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    return address
  }
}
