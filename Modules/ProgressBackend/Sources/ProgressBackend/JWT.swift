import Crypto
import FlowKit
import Foundation
import StrictJSON

/// HS256 JSON Web Tokens: the bearer tokens of the progress API, whose `sub` is the user.
/// A token is accepted only with `alg` HS256, `exp` a number in the future,
/// `nbf`/`iat` (when present) numbers not in the future, `sub` a whole user id.
public enum JWT {
  /// Seconds `nbf` and `iat` may lie ahead of the server's clock (clocks drift).
  public static let leeway: TimeInterval = 30

  public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed
    case unsupportedAlgorithm(String)
    case badSignature
    case expired
    case missingSubject
    /// The subject is no user id: why, as `UserID.problem(with:)` says.
    case invalidSubject(String)
    case missingExpiry
    /// A time claim (`exp`, `nbf`, `iat`) that is not a JSON number.
    case notANumber(claim: String)
    case notYetValid
    case issuedInTheFuture
    case wrongIssuer
    case wrongAudience

    public var description: String {
      switch self {
      case .malformed: "the bearer token is not a JWT"
      case .unsupportedAlgorithm(let alg):
        "the bearer token is signed with \(alg.prefix(32)); only HS256 is accepted"
      case .badSignature: "the bearer token's signature does not match"
      case .expired: "the bearer token has expired"
      case .missingSubject: "the bearer token names no user (sub)"
      case .invalidSubject(let problem): "the bearer token's user (sub) \(problem) (\(UserID.rule))"
      case .missingExpiry: "the bearer token has no expiry (exp); every token must expire"
      case .notANumber(let claim): "the bearer token's \(claim) is not a number (seconds since 1970)"
      case .notYetValid: "the bearer token is not valid yet (nbf)"
      case .issuedInTheFuture: "the bearer token was issued in the future (iat)"
      case .wrongIssuer: "the bearer token is not from the issuer this server accepts (iss)"
      case .wrongAudience: "the bearer token is not meant for this server (aud)"
      }
    }
  }

  /// A token for `subject` valid until `expiresAt`; `iss` and `aud` when given. Every
  /// token made here expires. The subject is not checked: `issue` checks it.
  public static func sign(
    subject: String, secret: String, issuedAt: Date, expiresAt: Date, issuer: String? = nil,
    audience: String? = nil
  ) -> String {
    var claims: [String: Any] = [
      "sub": subject, "iat": Int(issuedAt.timeIntervalSince1970), "exp": Int(expiresAt.timeIntervalSince1970),
    ]
    if let issuer { claims["iss"] = issuer }
    if let audience { claims["aud"] = audience }
    let payload = (try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])) ?? Data()
    return sign(payload: String(decoding: payload, as: UTF8.self), secret: secret)
  }

  /// A token for `subject` lasting `ttl` from `now`, refused (`.invalidSubject`) for a
  /// subject the server would refuse: what `wellflow token` prints.
  public static func issue(
    subject: String, secret: String, now: Date, ttl: TimeInterval, issuer: String? = nil,
    audience: String? = nil
  ) throws(Failure) -> String {
    if let problem = UserID.problem(with: subject) { throw .invalidSubject(problem) }
    return sign(
      subject: subject, secret: secret, issuedAt: now, expiresAt: now.addingTimeInterval(ttl), issuer: issuer,
      audience: audience)
  }

  /// `header` and `payload` (JSON text, taken as they are) signed with HMAC-SHA256 under
  /// `secret`: for tests and tools that need tokens `sign` never makes.
  public static func sign(
    header: String = #"{"alg":"HS256","typ":"JWT"}"#, payload: String, secret: String
  ) -> String {
    let signingInput = base64URL(Data(header.utf8)) + "." + base64URL(Data(payload.utf8))
    return signingInput + "." + base64URL(signature(signingInput, secret: secret))
  }

  /// The subject of a valid token; throws for a forged, expired, malformed or otherwise
  /// refused one. `issuer` and `audience`, when given, must be the token's `iss` and `aud`.
  public static func verify(
    _ token: String, secret: String, now: Date, issuer: String? = nil, audience: String? = nil
  ) throws(Failure) -> String {
    try signed(token, secret: secret, issuer: issuer, audience: audience).subject(at: now)
  }

  /// A token whose signature and claims check out, with what remains to check at the
  /// time of use.
  struct Signed: Sendable {
    var subject: String
    /// `exp`, `nbf` and `iat` in seconds since 1970.
    var expiry: Double
    var notBefore: Double?
    var issuedAt: Double?

    func subject(at now: Date) throws(Failure) -> String {
      let seconds = now.timeIntervalSince1970
      if seconds >= expiry { throw .expired }
      if let notBefore, notBefore > seconds + JWT.leeway { throw .notYetValid }
      if let issuedAt, issuedAt > seconds + JWT.leeway { throw .issuedInTheFuture }
      return subject
    }
  }

  /// Checks what depends on the token, the secret and the server's settings alone (so the
  /// result may be kept): the form, the algorithm, the signature, then the claims' types
  /// and the subject. Not the times.
  static func signed(
    _ token: String, secret: String, issuer: String? = nil, audience: String? = nil
  ) throws(Failure) -> Signed {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let headerData = decodeBase64URL(parts[0]),
      let payloadData = decodeBase64URL(parts[1]), let signatureData = decodeBase64URL(parts[2]),
      case .object(let header)? = try? JSONValue.parse(headerData)
    else { throw .malformed }
    guard case .string(let alg)? = header["alg"], alg == "HS256" else {
      if case .string(let alg)? = header["alg"] { throw .unsupportedAlgorithm(alg) }
      throw .unsupportedAlgorithm("nothing")
    }
    let signingInput = Data("\(parts[0]).\(parts[1])".utf8)
    guard
      HMAC<SHA256>.isValidAuthenticationCode(
        signatureData, authenticating: signingInput, using: SymmetricKey(data: Data(secret.utf8)))
    else { throw .badSignature }
    // The claims are read only once they are known to come from a holder of the secret.
    guard case .object(let claims)? = try? JSONValue.parse(payloadData) else { throw .malformed }
    let subject: String
    switch claims["sub"] {
    case nil, .null: throw .missingSubject
    case .string(let text):
      if text.isEmpty { throw .missingSubject }
      if let problem = UserID.problem(with: text) { throw .invalidSubject(problem) }
      subject = text
    default: throw .invalidSubject("is not text")
    }
    func time(_ claim: String) throws(Failure) -> Double? {
      switch claims[claim] {
      case nil: return nil
      case .number(let seconds): return seconds
      default: throw .notANumber(claim: claim)
      }
    }
    guard let expiry = try time("exp") else { throw .missingExpiry }
    let notBefore = try time("nbf")
    let issuedAt = try time("iat")
    if let issuer, claims["iss"] != .string(issuer) { throw .wrongIssuer }
    if let audience {
      // `aud` is one name or a list of them (RFC 7519 §4.1.3).
      switch claims["aud"] {
      case .string(let name) where name == audience: break
      case .array(let names) where names.contains(.string(audience)): break
      default: throw .wrongAudience
      }
    }
    return Signed(subject: subject, expiry: expiry, notBefore: notBefore, issuedAt: issuedAt)
  }

  private static func signature(_ input: String, secret: String) -> Data {
    Data(HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data(secret.utf8))))
  }

  static func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
      of: "/", with: "_"
    )
    .replacingOccurrences(of: "=", with: "")
  }

  static func decodeBase64URL(_ text: Substring) -> Data? {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    return Data(base64Encoded: base64)
  }

  /// Reads a duration such as `90s`, `30m`, `1h`, `7d`.
  /// The longest lifetime a token may have: ten years.
  public static let maxTTL: TimeInterval = 10 * 366 * 86_400

  /// `90s`, `30m`, `1h`, `7d`: digits (and a fraction) with a unit, more than zero and at
  /// most `maxTTL`; nil for anything else (signs, exponents, `inf`, `nan`).
  public static func parseTTL(_ text: String) -> TimeInterval? {
    let number = text.dropLast()
    guard let unit = text.last, !number.isEmpty, number.count <= 20, number.first != ".", number.last != ".",
      number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(number), value > 0
    else { return nil }
    let seconds: TimeInterval
    switch unit {
    case "s": seconds = value
    case "m": seconds = value * 60
    case "h": seconds = value * 3_600
    case "d": seconds = value * 86_400
    default: return nil
    }
    return seconds <= maxTTL ? seconds : nil
  }
}

/// Tokens whose signature checked out, so a client's every request does not verify its
/// token again. Bounded; the expiry is still checked on each use.
final class TokenCache: @unchecked Sendable {
  /// Guarded by `lock`.
  private var entries: [String: JWT.Signed] = [:]
  private let lock = NSLock()
  let capacity: Int

  init(capacity: Int = 1_024) {
    self.capacity = capacity
  }

  /// The token's subject, checked now; forged, malformed, expired tokens throw. One cache
  /// serves one server, so `issuer` and `audience` are the same on every call.
  func subject(
    of token: String, secret: String, now: Date, issuer: String? = nil, audience: String? = nil
  ) throws(JWT.Failure) -> String {
    if let signed = lock.withLock({ entries[token] }) { return try signed.subject(at: now) }
    let signed = try JWT.signed(token, secret: secret, issuer: issuer, audience: audience)
    let subject = try signed.subject(at: now)
    if token.utf8.count <= 4_096 {
      lock.withLock {
        if entries.count >= capacity { entries.remove(at: entries.startIndex) }
        entries[token] = signed
      }
    }
    return subject
  }
}
