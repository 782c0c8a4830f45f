import Foundation
import Hummingbird
import JournalCatalog
import ProgressContract

/// The progress API's router: middleware for what every request goes through, then a route
/// collection per resource behind the API key and the bearer token.
enum BackendRouter {
  struct Settings: Sendable {
    var store: any BackendStore
    var catalog: JournalCatalog
    var apiKey: String
    var jwtSecret: String
    var jwtIssuer: String?
    var jwtAudience: String?
    var now: @Sendable () -> Date
    var fault: (@Sendable (_ method: String, _ path: String) async -> ProgressServer.Fault?)?
    var requestLog: (@Sendable (String) -> Void)?
    var failed: @Sendable (_ id: String, _ error: any Error) -> Void
    var metrics: RequestMetrics
    /// Whether this listener answers `GET /metrics` (loopback only).
    var servesMetrics: Bool
  }

  /// The API's paths and the methods each takes: what a 405's `Allow` says.
  static let routes: [(path: [Substring], methods: [String])] = [
    (APIPath.progress, ["GET", "POST"]), (APIPath.progressBatch, ["POST"]),
    (APIPath.progressItem, ["GET", "PUT", "DELETE"]), (APIPath.journal, ["GET", "POST"]),
    (APIPath.events, ["POST"]), (APIPath.resource, ["GET", "POST"]),
    (APIPath.resourceItem, ["GET", "PUT", "DELETE"]),
  ].map { ($0.split(separator: "/"), $1) }

  /// The methods the API path `parts` takes; nil when it is no API path. `{…}` in a
  /// template takes any one part.
  static func methods(of parts: [Substring]) -> [String]? {
    routes.first { route in
      route.path.count == parts.count
        && zip(route.path, parts).allSatisfy { pattern, part in pattern.hasPrefix("{") || pattern == part }
    }?.methods
  }

  static func build(_ settings: Settings) -> Router<BackendContext> {
    let router = Router(context: BackendContext.self)
    // Middleware applies to the routes added after it, outermost first.
    if let requestLog = settings.requestLog {
      router.add(middleware: RequestLogMiddleware(write: requestLog))
    }
    router.add(middleware: MetricsMiddleware(metrics: settings.metrics))
    if let fault = settings.fault { router.add(middleware: FaultMiddleware(fault: fault)) }
    router.add(middleware: RequestGuardMiddleware())
    router.add(middleware: ErrorMiddleware(failed: settings.failed))
    let apiKey = APIKeyMiddleware(apiKey: settings.apiKey)
    let bearer = BearerTokenMiddleware(
      secret: settings.jwtSecret, issuer: settings.jwtIssuer, audience: settings.jwtAudience,
      now: settings.now)
    router.add(
      middleware: UnmatchedRouteMiddleware(
        apiKey: apiKey, bearer: bearer,
        publicPaths: [APIPath.openAPIDocument: ["GET"]].merging(
          settings.servesMetrics ? [APIPath.metrics: ["GET"]] : [:]
        ) { a, _ in a }))

    router.get(RouterPath(APIPath.openAPIDocument)) { _, _ in openAPIResponse() }
    if settings.servesMetrics {
      let metrics = settings.metrics
      router.get(RouterPath(APIPath.metrics)) { _, _ in metrics.response() }
    }
    // A route collection per resource, behind the key and the token.
    let api = router.group()
      .add(middleware: apiKey)
      .add(middleware: bearer)
      .add(middleware: IdempotencyKeyMiddleware())
    api.addRoutes(BatchController(store: settings.store).routes, atPath: RouterPath(APIPath.progressBatch))
    api.addRoutes(ProgressController(store: settings.store).routes, atPath: RouterPath(APIPath.progress))
    api.addRoutes(
      JournalController(store: settings.store, catalog: settings.catalog).routes,
      atPath: RouterPath(APIPath.journal))
    api.addRoutes(EventsController(store: settings.store).routes, atPath: RouterPath(APIPath.events))
    api.addRoutes(ResourcesController(store: settings.store).routes, atPath: RouterPath(APIPath.resources))
    return router
  }

  /// `GET /openapi.yaml`: the contract the server is checked against.
  static func openAPIResponse() -> Response {
    var headers = HTTPFields()
    headers[.contentType] = "application/yaml"
    return Response(
      status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: OpenAPIDocument.yaml)))
  }

  /// A router that answers `GET /metrics` alone (`serve --metrics-port`).
  static func metricsOnly(_ metrics: RequestMetrics) -> Router<BasicRequestContext> {
    let router = Router()
    router.get(RouterPath(APIPath.metrics)) { _, _ in metrics.response() }
    return router
  }
}
