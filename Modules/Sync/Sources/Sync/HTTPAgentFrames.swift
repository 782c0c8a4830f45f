import Foundation

/// The frames `HTTPAgentTransport` and the `wellflow-http` agent exchange over the
/// agent's standard input and output: a 4-byte big-endian length, then the frame.
/// Requests carry an id the answer repeats, so many may be in flight at once.
///
///     request  = id u64, method, url, headers, body?, idle f64, deadline f64, connections u16
///     response = id u64, kind u8 (0 answer, 1 timeout, 2 offline, 3 unreachable, 4 too large),
///                answer: status u16, headers, body / others: message
///     string   = length u32, UTF-8;  headers = count u16, (name, value)…;  body? = flag u8, bytes
///
/// Every length and count is checked against what is left, so a truncated or garbled
/// frame is an error, never a trap.
public enum HTTPAgentFrames {
  /// The largest frame either side accepts: far above the backend's 1 MiB bodies and
  /// the 8 MiB answers the agent passes on, far below what would hurt.
  public static let maxFrame = 64 << 20

  public struct Malformed: Error, CustomStringConvertible {
    public let description: String
  }

  // MARK: Requests

  public static func request(id: UInt64, _ request: HTTPExchangeRequest, connections: Int) -> [UInt8] {
    var writer = Writer()
    writer.u64(id)
    writer.string(request.method)
    writer.string(request.url.absoluteString)
    writer.headers(request.headers)
    writer.optionalBytes(request.body)
    writer.f64(request.idleTimeout)
    writer.f64(request.deadline)
    writer.u16(UInt16(clamping: connections))
    return writer.framed()
  }

  public static func readRequest(_ frame: [UInt8]) throws(Malformed) -> (
    id: UInt64, request: HTTPExchangeRequest, connections: Int
  ) {
    var reader = Reader(frame)
    let id = try reader.u64()
    let method = try reader.string()
    let address = try reader.string()
    guard let url = URL(string: address) else {
      throw Malformed(description: "not a URL: \(address.prefix(80))")
    }
    let headers = try reader.headers()
    let body = try reader.optionalBytes()
    let idle = try reader.f64()
    let deadline = try reader.f64()
    let connections = Int(try reader.u16())
    try reader.end()
    return (
      id,
      HTTPExchangeRequest(
        method: method, url: url, headers: headers, body: body, idleTimeout: idle, deadline: deadline),
      connections
    )
  }

  // MARK: Responses

  public static func response(id: UInt64, _ result: Result<HTTPExchangeResponse, HTTPTransportFailure>)
    -> [UInt8]
  {
    var writer = Writer()
    writer.u64(id)
    switch result {
    case .success(let answer):
      writer.u8(0)
      writer.u16(UInt16(clamping: answer.status))
      writer.headers(answer.headers)
      writer.optionalBytes(answer.body)
    case .failure(.timeout):
      writer.u8(1)
      writer.string("")
    case .failure(.offline):
      writer.u8(2)
      writer.string("")
    case .failure(.unreachable(let message)):
      writer.u8(3)
      writer.string(message)
    case .failure(.tooLarge):
      writer.u8(4)
      writer.string("")
    }
    return writer.framed()
  }

  public static func readResponse(_ frame: [UInt8]) throws(Malformed) -> (
    id: UInt64, result: Result<HTTPExchangeResponse, HTTPTransportFailure>
  ) {
    var reader = Reader(frame)
    let id = try reader.u64()
    let kind = try reader.u8()
    let result: Result<HTTPExchangeResponse, HTTPTransportFailure>
    switch kind {
    case 0:
      let status = Int(try reader.u16())
      let headers = try reader.headers()
      let body = try reader.optionalBytes() ?? Data()
      result = .success(HTTPExchangeResponse(status: status, headers: headers, body: body))
    case 1, 2, 3, 4:
      let message = try reader.string()
      switch kind {
      case 1: result = .failure(.timeout)
      case 2: result = .failure(.offline)
      case 3: result = .failure(.unreachable(message))
      default: result = .failure(.tooLarge)
      }
    default:
      throw Malformed(description: "unknown answer kind \(kind)")
    }
    try reader.end()
    return (id, result)
  }

  /// The length a frame's 4-byte prefix announces, checked against `maxFrame`.
  public static func length(_ prefix: some Collection<UInt8>) throws(Malformed) -> Int {
    guard prefix.count == 4 else { throw Malformed(description: "a length prefix is 4 bytes") }
    let length = prefix.reduce(0) { $0 << 8 | Int($1) }
    guard length <= maxFrame else {
      throw Malformed(description: "a frame of \(length) bytes is over the limit")
    }
    return length
  }

  /// Takes the first whole frame (without its length prefix) off the front of bytes
  /// read so far; nil until one has fully arrived.
  public static func nextFrame(_ buffer: inout [UInt8]) throws(Malformed) -> [UInt8]? {
    guard buffer.count >= 4 else { return nil }
    let length = try length(buffer[0..<4])
    guard buffer.count >= 4 + length else { return nil }
    defer { buffer.removeFirst(4 + length) }
    return Array(buffer[4..<4 + length])
  }

  // MARK: Encoding

  struct Writer {
    var bytes: [UInt8] = [0, 0, 0, 0]

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { withUnsafeBytes(of: value.bigEndian) { bytes += $0 } }
    mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.bigEndian) { bytes += $0 } }
    mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.bigEndian) { bytes += $0 } }
    mutating func f64(_ value: Double) { u64(value.bitPattern) }
    mutating func string(_ value: String) {
      let utf8 = value.utf8
      u32(UInt32(clamping: utf8.count))
      bytes += utf8
    }
    mutating func headers(_ headers: [String: String]) {
      let kept = headers.prefix(Int(UInt16.max))
      u16(UInt16(kept.count))
      for (name, value) in kept {
        string(name)
        string(value)
      }
    }
    mutating func optionalBytes(_ data: Data?) {
      guard let data else { return u8(0) }
      u8(1)
      u32(UInt32(clamping: data.count))
      bytes += data
    }
    /// The bytes with the length prefix filled in.
    func framed() -> [UInt8] {
      var framed = bytes
      let length = UInt32(clamping: bytes.count - 4)
      withUnsafeBytes(of: length.bigEndian) { framed.replaceSubrange(0..<4, with: $0) }
      return framed
    }
  }

  struct Reader {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func take(_ count: Int) throws(Malformed) -> ArraySlice<UInt8> {
      guard count >= 0, count <= bytes.count - offset else {
        throw Malformed(
          description: "the frame ends early (\(count) bytes wanted at \(offset) of \(bytes.count))")
      }
      defer { offset += count }
      return bytes[offset..<offset + count]
    }
    mutating func integer(_ size: Int) throws(Malformed) -> UInt64 {
      try take(size).reduce(0) { $0 << 8 | UInt64($1) }
    }
    mutating func u8() throws(Malformed) -> UInt8 { UInt8(try integer(1)) }
    mutating func u16() throws(Malformed) -> UInt16 { UInt16(try integer(2)) }
    mutating func u32() throws(Malformed) -> UInt32 { UInt32(try integer(4)) }
    mutating func u64() throws(Malformed) -> UInt64 { try integer(8) }
    mutating func f64() throws(Malformed) -> Double { Double(bitPattern: try u64()) }
    mutating func string() throws(Malformed) -> String {
      let length = Int(try u32())
      return String(decoding: try take(length), as: UTF8.self)
    }
    mutating func headers() throws(Malformed) -> [String: String] {
      let count = Int(try u16())
      var headers: [String: String] = [:]
      for _ in 0..<count {
        let name = try string()
        headers[name] = try string()
      }
      return headers
    }
    mutating func optionalBytes() throws(Malformed) -> Data? {
      switch try u8() {
      case 0: return nil
      case 1: return Data(try take(Int(try u32())))
      case let flag: throw Malformed(description: "a body flag is 0 or 1, not \(flag)")
      }
    }
    func end() throws(Malformed) {
      guard offset == bytes.count else {
        throw Malformed(description: "\(bytes.count - offset) bytes left over after the frame")
      }
    }
  }
}
