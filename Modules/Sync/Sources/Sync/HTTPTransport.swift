import Foundation

/// One HTTP request as the progress client makes it.
public struct HTTPExchangeRequest: Sendable, Equatable {
  public var method: String
  public var url: URL
  /// Names as sent; each at most once.
  public var headers: [String: String]
  public var body: Data?
  /// The longest the transport may wait for the next byte (URLSession's request timeout).
  public var idleTimeout: TimeInterval
  /// The most the whole exchange may take, first byte to last.
  public var deadline: TimeInterval

  public init(
    method: String, url: URL, headers: [String: String] = [:], body: Data? = nil, idleTimeout: TimeInterval,
    deadline: TimeInterval
  ) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
    self.idleTimeout = idleTimeout
    self.deadline = deadline
  }
}

/// The server's answer, whatever its status.
public struct HTTPExchangeResponse: Sendable, Equatable {
  public var status: Int
  /// Names lowercased.
  public var headers: [String: String]
  public var body: Data

  public init(status: Int, headers: [String: String], body: Data) {
    self.status = status
    self.headers = Dictionary(
      headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
    self.body = body
  }

  public func header(_ name: String) -> String? { headers[name.lowercased()] }

  /// The largest body a transport accepts, counted after decompression: far above the
  /// backend's largest page, and what a hostile or broken peer can make a sync hold.
  public static let maxBodyBytes = 8 << 20
}

/// Why no answer came.
public enum HTTPTransportFailure: Error, Sendable, Equatable {
  /// The deadline or the idle timeout passed, or the request was cancelled.
  case timeout
  /// The device has no network.
  case offline
  /// Anything else: refused connection, unknown host, a broken answer.
  case unreachable(String)
  /// The body passed `HTTPExchangeResponse.maxBodyBytes` (decompressed); the rest was
  /// not read.
  case tooLarge
}

/// Sends HTTP requests: the seam between the progress client and a networking stack.
///
/// `HTTPClientTransport` (the `SyncHTTPClient` library, async-http-client) is what
/// `wellflow` sends with, in process; `URLSessionTransport` (`SyncURLSession`) is what an
/// Apple app links. Both follow no redirect, cap a body at `maxBodyBytes` and race each
/// request's whole deadline.
public protocol HTTPTransport: Sendable {
  func send(_ request: HTTPExchangeRequest) async -> Result<HTTPExchangeResponse, HTTPTransportFailure>
}

/// Standard reason phrases, for refusals that carry no message of their own.
public enum HTTPStatusText {
  public static func reason(_ status: Int) -> String {
    if let phrase = phrases[status] { return phrase }
    switch status {
    case 100..<200: return "Informational"
    case 200..<300: return "Success"
    case 300..<400: return "Redirection"
    case 400..<500: return "Client Error"
    case 500..<600: return "Server Error"
    default: return "HTTP status \(status)"
    }
  }

  private static let phrases: [Int: String] = [
    100: "Continue", 101: "Switching Protocols", 102: "Processing", 200: "OK", 201: "Created",
    202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content", 205: "Reset Content",
    206: "Partial Content", 207: "Multi-Status", 208: "Already Reported", 226: "IM Used",
    300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
    305: "Use Proxy", 307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request",
    401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
    405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required",
    408: "Request Timeout", 409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed",
    413: "Payload Too Large", 414: "URI Too Long", 415: "Unsupported Media Type",
    416: "Range Not Satisfiable", 417: "Expectation Failed", 421: "Misdirected Request",
    422: "Unprocessable Entity", 423: "Locked", 424: "Failed Dependency", 426: "Upgrade Required",
    428: "Precondition Required", 429: "Too Many Requests", 431: "Request Header Fields Too Large",
    451: "Unavailable For Legal Reasons", 500: "Internal Server Error", 501: "Not Implemented",
    502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout", 505: "HTTP Version Not Supported",
    506: "Variant Also Negotiates", 507: "Insufficient Storage", 508: "Loop Detected", 510: "Not Extended",
    511: "Network Authentication Required",
  ]
}
