import Crypto
import Foundation

/// HS256 JSON Web Tokens: the bearer tokens of the progress API, whose `sub` is the user.
public enum JWT {
  public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed
    case unsupportedAlgorithm(String)
    case badSignature
    case expired
    case missingSubject

    public var description: String {
      switch self {
      case .malformed: "the bearer token is not a JWT"
      case .unsupportedAlgorithm(let alg): "the bearer token is signed with \(alg); only HS256 is accepted"
      case .badSignature: "the bearer token's signature does not match"
      case .expired: "the bearer token has expired"
      case .missingSubject: "the bearer token names no user (sub)"
      }
    }
  }

  /// A token for `subject` valid until `expiresAt`.
  public static func sign(subject: String, secret: String, issuedAt: Date, expiresAt: Date) -> String {
    let header = #"{"alg":"HS256","typ":"JWT"}"#
    let claims: [String: Any] = [
      "sub": subject, "iat": Int(issuedAt.timeIntervalSince1970), "exp": Int(expiresAt.timeIntervalSince1970),
    ]
    let payload = (try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])) ?? Data()
    let signingInput = base64URL(Data(header.utf8)) + "." + base64URL(payload)
    return signingInput + "." + base64URL(signature(signingInput, secret: secret))
  }

  /// The subject of a valid token; throws for a forged, expired or malformed one.
  public static func verify(_ token: String, secret: String, now: Date) throws(Failure) -> String {
    try signed(token, secret: secret).subject(at: now)
  }

  /// A token whose signature checks out, with what remains to check at the time of use.
  struct Signed: Sendable {
    var subject: String?
    /// `exp` in seconds since 1970; nil: it does not expire.
    var expiry: Double?

    func subject(at now: Date) throws(Failure) -> String {
      if let expiry, now.timeIntervalSince1970 >= expiry { throw .expired }
      guard let subject, !subject.isEmpty else { throw .missingSubject }
      return subject
    }
  }

  /// Checks the form, the algorithm and the signature, which depend on the token and
  /// the secret alone (so the result may be kept); not the expiry.
  static func signed(_ token: String, secret: String) throws(Failure) -> Signed {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let headerData = decodeBase64URL(parts[0]),
      let payloadData = decodeBase64URL(parts[1]), let signatureData = decodeBase64URL(parts[2]),
      let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
      let claims = (try? JSONSerialization.jsonObject(with: payloadData)) as? [String: Any]
    else { throw .malformed }
    guard let alg = header["alg"] as? String, alg == "HS256" else {
      throw .unsupportedAlgorithm((header["alg"] as? String) ?? "nothing")
    }
    let signingInput = Data("\(parts[0]).\(parts[1])".utf8)
    guard
      HMAC<SHA256>.isValidAuthenticationCode(
        signatureData, authenticating: signingInput, using: SymmetricKey(data: Data(secret.utf8)))
    else { throw .badSignature }
    return Signed(subject: claims["sub"] as? String, expiry: (claims["exp"] as? NSNumber)?.doubleValue)
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

  /// The token's subject, checked now; forged, malformed, expired tokens throw.
  func subject(of token: String, secret: String, now: Date) throws(JWT.Failure) -> String {
    if let signed = lock.withLock({ entries[token] }) { return try signed.subject(at: now) }
    let signed = try JWT.signed(token, secret: secret)
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
