import Foundation
import Hummingbird

/// Requests answered and the time they took, by method, route and status, in Prometheus'
/// text format (`GET /metrics`).
final class RequestMetrics: @unchecked Sendable {
  /// Upper bounds of the duration histogram's buckets, in seconds.
  static let bounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
  /// Methods named as they are; any other is `other`, so a client cannot mint series.
  static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]

  struct Key: Hashable {
    var method: String
    var route: String
    var status: Int
  }

  struct Series {
    var count = 0
    var seconds = 0.0
    var buckets = [Int](repeating: 0, count: RequestMetrics.bounds.count)
  }

  /// Guarded by `lock`.
  private var series: [Key: Series] = [:]
  private let lock = NSLock()

  func record(method: String, route: String, status: Int, seconds: Double) {
    let key = Key(method: Self.methods.contains(method) ? method : "other", route: route, status: status)
    lock.withLock {
      var entry = series[key, default: Series()]
      entry.count += 1
      entry.seconds += seconds
      if let bucket = Self.bounds.firstIndex(where: { seconds <= $0 }) { entry.buckets[bucket] += 1 }
      series[key] = entry
    }
  }

  /// The exposition, series in a stable order (method, route, status).
  var text: String {
    let snapshot = lock.withLock { series }.sorted { a, b in
      (a.key.route, a.key.method, a.key.status) < (b.key.route, b.key.method, b.key.status)
    }
    var lines = [
      "# HELP wellflow_http_requests_total Requests answered, by method, route and status.",
      "# TYPE wellflow_http_requests_total counter",
    ]
    for (key, entry) in snapshot {
      lines.append("wellflow_http_requests_total{\(Self.labels(key))} \(entry.count)")
    }
    lines += [
      "# HELP wellflow_http_request_duration_seconds Time to answer a request, by method, route and status.",
      "# TYPE wellflow_http_request_duration_seconds histogram",
    ]
    for (key, entry) in snapshot {
      let labels = Self.labels(key)
      var cumulative = 0
      for (bound, count) in zip(Self.bounds, entry.buckets) {
        cumulative += count
        lines.append("wellflow_http_request_duration_seconds_bucket{\(labels),le=\"\(bound)\"} \(cumulative)")
      }
      lines.append("wellflow_http_request_duration_seconds_bucket{\(labels),le=\"+Inf\"} \(entry.count)")
      lines.append("wellflow_http_request_duration_seconds_sum{\(labels)} \(entry.seconds)")
      lines.append("wellflow_http_request_duration_seconds_count{\(labels)} \(entry.count)")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  private static func labels(_ key: Key) -> String {
    "method=\"\(escape(key.method))\",route=\"\(escape(key.route))\",status=\"\(key.status)\""
  }

  /// A label value as the format writes it: backslash, quote and line feed escaped.
  static func escape(_ value: String) -> String {
    value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      .replacingOccurrences(of: "\n", with: "\\n")
  }

  /// `GET /metrics`'s answer.
  func response() -> Response {
    var headers = HTTPFields()
    headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
  }
}

/// Counts every request and its duration under the route the router matched (`unmatched`
/// for none, so a scan of random paths adds one series, not one per path).
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
  let metrics: RequestMetrics

  @concurrent func handle(
    _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
  )
    async throws -> Response
  {
    let started = ContinuousClock.now
    let response = try await next(request, context)
    let took = ContinuousClock.now - started
    metrics.record(
      method: request.method.rawValue, route: context.coreContext.endpointPath.value ?? "unmatched",
      status: response.status.code,
      seconds: Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18)
    return response
  }
}
