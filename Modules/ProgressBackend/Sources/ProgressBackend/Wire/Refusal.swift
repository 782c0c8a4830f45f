import FlowKit
import Foundation
import ProgressContract

/// A refusal, sent as `{"error":{"message","code"}}`. Thrown by middleware and route
/// handlers; `ErrorMiddleware` answers it.
struct Refusal: Error {
  var status: Int
  var code: String
  var message: String
  /// With a 405: the methods the path takes.
  var allow: [String]? = nil

  static func invalid(_ message: String) -> Refusal {
    Refusal(status: 400, code: "validation_failed", message: message)
  }

  static func notFound(_ id: String) -> Refusal {
    Refusal(status: 404, code: "not_found", message: "no progress entry \(id)")
  }

  /// No row `id` of the user's `resource`.
  static func noRow(_ resource: String, _ id: String) -> Refusal {
    Refusal(status: 404, code: "not_found", message: "no \(resource) row \(id)")
  }

  static func noEndpoint(method: String, path: String) -> Refusal {
    Refusal(status: 404, code: "not_found", message: "no such endpoint: \(method) \(path)")
  }

  static func notAllowed(method: String, path: String, allow: [String]) -> Refusal {
    Refusal(
      status: 405, code: "method_not_allowed", message: "\(method) is not allowed on \(path)", allow: allow)
  }

  var response: BackendResponse {
    var bytes: [UInt8] = []
    ErrorEnvelope(message: message, code: code).appendJSON(to: &bytes)
    return BackendResponse(status: status, body: Data(bytes), allow: allow)
  }

  /// Ids and keys are bound into SQL, which ends a text at a NUL (`a\u{0}b` would be
  /// `a`): one holding a control character names nothing and is refused (400).
  static func checkName(_ text: String, _ what: String) throws(Refusal) {
    if let control = ControlCharacter.first(in: text) { throw Refusal.invalid("\(what) holds \(control)") }
  }
}

/// A status and a JSON body.
struct BackendResponse: Sendable {
  var status: Int
  var body: Data
  var replayed = false
  /// The methods a 405's path takes, for its `Allow` header (RFC 9110).
  var allow: [String]? = nil
}
