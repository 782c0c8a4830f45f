import Crypto
import Foundation
import StrictJSON

/// A write as one request or one batch item: the idempotency key, what a reused key
/// is compared against, and what to do.
struct Write: Sendable {
  var key: String?
  /// SHA-256 of the method, the path and the body as JSON values (key order and
  /// spacing do not count), so a batch item and a single call can be the same request.
  var fingerprint: Data
  /// What to do, or why the request is refused. A refusal is answered only after the
  /// key is looked up: a reused key with another body is a 422, not a 400.
  var action: Result<WriteAction, Refusal>
}

/// Idempotency keys: a key the user sent before gets the first answer again.
enum IdempotentWrites {
  /// A single call's write; `body` nil for a method without one (`DELETE`).
  static func single(
    method: String, path: String, body: Data?, key: String?,
    _ action: ([String: JSONValue]) throws(Refusal) -> WriteAction
  ) -> Write {
    let parsed = body.flatMap { try? JSONValue.parse($0) }
    var canonical: [UInt8] = []
    if let parsed {
      canonical.append(1)
      parsed.canonical(into: &canonical)
    } else if let body {
      canonical.append(2)
      canonical.append(contentsOf: body)
    }
    return Write(
      key: key, fingerprint: fingerprint(method: method, path: path, body: canonical),
      action: refusing { () throws(Refusal) in
        guard body != nil else { return try action([:]) }
        guard case .object(let object) = parsed else {
          throw Refusal.invalid("the body must be a JSON object")
        }
        return try action(object)
      })
  }

  static func fingerprint(method: String, path: String, body: [UInt8]) -> Data {
    var hash = SHA256()
    hash.update(data: Array(method.utf8) + [0] + Array(path.utf8) + [0])
    hash.update(data: body)
    return Data(hash.finalize())
  }

  static func refusing(_ body: () throws(Refusal) -> WriteAction) -> Result<WriteAction, Refusal> {
    do {
      return .success(try body())
    } catch {
      return .failure(error)
    }
  }

  /// The answer to `write` when its key was seen before: the first answer again when the
  /// request is the same (method, path, body), else a 422.
  static func replay(_ first: KeptAnswer, to write: Write, key: String) -> BackendResponse {
    // Keys kept before fingerprints were (nil) replay as they always did.
    if let fingerprint = first.fingerprint, fingerprint != write.fingerprint {
      return Refusal(
        status: 422, code: "idempotency_key_reused",
        message:
          "the Idempotency-Key \"\(key.prefix(100))\" was used for another request (method, path or body); "
          + "send a new key for a new request"
      ).response
    }
    return first.response
  }

  /// Inside a write transaction: the answer to `write`. A key the user sent before gets
  /// the first answer again, and nothing is written, when the request is the same
  /// (method, path, body); another request under that key is refused with 422. Otherwise
  /// the write runs, and a success is kept under its key. Refusals are not kept, so a
  /// request that failed may be sent again with its key.
  static func perform(_ write: Write, userID: String, in store: any BackendTransaction) throws
    -> BackendResponse
  {
    if let key = write.key, let first = try store.keptAnswer(userID: userID, key: key) {
      return replay(first, to: write, key: key)
    }
    let action: WriteAction
    switch write.action {
    case .success(let value): action = value
    case .failure(let refusal): return refusal.response
    }
    let response = try action.apply(userID: userID, in: store)
    if let key = write.key, (200..<300).contains(response.status) {
      try store.keep(response, fingerprint: write.fingerprint, userID: userID, key: key)
    }
    return response
  }
}
