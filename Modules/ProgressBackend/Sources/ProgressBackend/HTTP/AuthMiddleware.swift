import Foundation
import HTTPTypes
import Hummingbird
import ProgressContract

/// Every API request carries the server's key in `X-API-Key` (401 otherwise).
struct APIKeyMiddleware: RouterMiddleware {
  typealias Context = BackendContext
  let apiKey: String

  @concurrent func handle(
    _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
  )
    async throws -> Response
  {
    try check(request)
    return try await next(request, context)
  }

  func check(_ request: Request) throws(Refusal) {
    guard let key = request.header(.apiKey), !key.isEmpty else {
      throw Refusal(status: 401, code: "missing_api_key", message: "send the API key in X-API-Key")
    }
    guard Self.constantTimeEquals(key, apiKey) else {
      throw Refusal(status: 401, code: "invalid_api_key", message: "the API key is not valid")
    }
  }

  private static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    guard x.count == y.count else { return false }
    return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
  }
}

/// Every API request carries a bearer token signed with the server's secret;
/// its `sub` is the user the request acts for.
struct BearerTokenMiddleware: RouterMiddleware {
  typealias Context = BackendContext
  let secret: String
  let issuer: String?
  let audience: String?
  let now: @Sendable () -> Date
  let tokens = TokenCache()

  @concurrent func handle(
    _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
  )
    async throws -> Response
  {
    var context = context
    context.userID = try user(of: request)
    return try await next(request, context)
  }

  func user(of request: Request) throws(Refusal) -> String {
    guard let authorization = request.header(.authorization), authorization.hasPrefix("Bearer "),
      authorization.count > 7
    else {
      throw Refusal(
        status: 401, code: "missing_token", message: "send a bearer token in Authorization: Bearer <token>")
    }
    do throws(JWT.Failure) {
      return try tokens.subject(
        of: String(authorization.dropFirst(7)), secret: secret, now: now(), issuer: issuer, audience: audience
      )
    } catch {
      throw Refusal(
        status: 401, code: error == .expired ? "token_expired" : "invalid_token", message: error.description)
    }
  }
}

/// Reads `Idempotency-Key` for the write routes; one holding a control character is
/// refused (400) on every route, as it names nothing.
struct IdempotencyKeyMiddleware: RouterMiddleware {
  typealias Context = BackendContext

  @concurrent func handle(
    _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
  )
    async throws -> Response
  {
    var context = context
    context.idempotencyKey = try Self.key(of: request)
    return try await next(request, context)
  }

  static func key(of request: Request) throws(Refusal) -> String? {
    guard let key = request.header(.idempotencyKey), !key.isEmpty else { return nil }
    try Refusal.checkName(key, "the Idempotency-Key")
    return key
  }
}

extension HTTPField.Name {
  static let apiKey = Self(APIHeader.apiKey)!
  static let idempotencyKey = Self(APIHeader.idempotencyKey)!
}
