import FlowKit
import Foundation
import Hummingbird
import ProgressContract

/// Answers a request no route took: 405 with `Allow` on an API path that takes other
/// methods (after the same checks a route makes: key, token, idempotency key, id), else
/// 404. Hummingbird's router answers both with an empty 404.
struct UnmatchedRouteMiddleware: RouterMiddleware {
  typealias Context = BackendContext
  let apiKey: APIKeyMiddleware
  let bearer: BearerTokenMiddleware
  /// Paths outside the API, taken without auth (`/metrics`, `/openapi.yaml`), and their methods.
  let publicPaths: [String: [String]]

  @concurrent func handle(
    _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
  )
    async throws -> Response
  {
    // The router names the endpoint of every request it matched before any middleware runs.
    guard context.coreContext.endpointPath.value == nil else { return try await next(request, context) }
    let path = request.uri.path
    let method = request.method.rawValue
    let parts = path.split(separator: "/")
    if parts.count == 1, let allow = publicPaths["/" + parts[0]] {
      throw Refusal.notAllowed(method: method, path: path, allow: allow)
    }
    guard let allow = BackendRouter.methods(of: parts) else {
      throw Refusal.noEndpoint(method: method, path: path)
    }
    try apiKey.check(request)
    _ = try bearer.user(of: request)
    _ = try IdempotencyKeyMiddleware.key(of: request)
    // The one path with an id (`/api/v1/progress/{id}`) ends with it.
    if allow == BackendRouter.methods(of: APIPath.progressItem.split(separator: "/")) {
      _ = try ProgressController.id(String(parts[parts.count - 1]))
    }
    // A resource's paths are checked as their routes check them: the name, then the id.
    let resourceParts = APIPath.resources.split(separator: "/")
    if parts.count > resourceParts.count, Array(parts.prefix(resourceParts.count)) == resourceParts {
      _ = try ResourcesController.name(String(parts[resourceParts.count]))
      if parts.count == resourceParts.count + 2 {
        _ = try ProgressController.id(String(parts[parts.count - 1]))
      }
    }
    throw Refusal.notAllowed(method: method, path: path, allow: allow)
  }
}

/// One line per request answered: method, path (no query), status, milliseconds. Never a
/// header or a body: no key or token reaches a log.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
  let write: @Sendable (String) -> Void

  @concurrent func handle(
    _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
  )
    async throws -> Response
  {
    let started = ContinuousClock.now
    let response = try await next(request, context)
    write(Self.line(request, status: response.status.code, took: ContinuousClock.now - started))
    return response
  }

  static func line(_ request: Request, status: Int, took: Duration) -> String {
    let milliseconds = Double(took.components.seconds) * 1_000 + Double(took.components.attoseconds) / 1e15
    let path = terminalSafe(request.uri.path, limit: 200)
    return "\(request.method.rawValue) \(path) \(status) \(String(format: "%.1f", milliseconds)) ms"
  }
}
