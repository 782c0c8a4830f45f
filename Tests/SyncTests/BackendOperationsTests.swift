import Foundation
import ProgressBackend
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif
#if canImport(Glibc)
  import Glibc
  private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
  import Darwin
  private let streamSocket = SOCK_STREAM
#endif

/// What `serve` tells its operators: Prometheus metrics and the contract.
@Suite struct BackendOperationsTests {
  @Test func metricsCountRequestsByMethodRouteAndStatusWithoutAuth() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let headers = backend.headers()
    #expect(try await backend.raw("GET", "/api/v1/progress", headers: headers).status == 200)
    #expect(try await backend.raw("GET", "/api/v1/progress?limit=0", headers: headers).status == 400)
    #expect(try await backend.raw("GET", "/api/v1/progress/some-id", headers: headers).status == 404)
    #expect(try await backend.raw("GET", "/nowhere/\(UUID())", headers: headers).status == 404)
    let (status, contentType, text) = try await Self.get(backend.url, "/metrics")
    #expect(status == 200)
    #expect(contentType == "text/plain; version=0.0.4; charset=utf-8")
    let lines = Set(text.split(separator: "\n").map(String.init))
    #expect(lines.contains("# TYPE wellflow_http_requests_total counter"))
    #expect(
      lines.contains(#"wellflow_http_requests_total{method="GET",route="/api/v1/progress",status="200"} 1"#))
    #expect(
      lines.contains(#"wellflow_http_requests_total{method="GET",route="/api/v1/progress",status="400"} 1"#))
    #expect(
      lines.contains(
        #"wellflow_http_requests_total{method="GET",route="/api/v1/progress/{id}",status="404"} 1"#))
    // A path no route takes is one series, whatever the path: a scan cannot mint series.
    #expect(lines.contains(#"wellflow_http_requests_total{method="GET",route="unmatched",status="404"} 1"#))
    #expect(!text.contains("nowhere"))
    #expect(
      lines.contains(
        #"wellflow_http_request_duration_seconds_count{method="GET",route="/api/v1/progress",status="200"} 1"#
      ))
    #expect(
      lines.contains(
        #"wellflow_http_request_duration_seconds_bucket{method="GET",route="/api/v1/progress",status="200",le="+Inf"} 1"#
      ))
  }

  @Test func openAPIYamlIsTheContractDocumentByteForByte() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let document = try String(
      contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Modules/ProgressAPI/openapi.yaml").standardized, encoding: .utf8)
    let (status, contentType, text) = try await Self.get(backend.url, "/openapi.yaml")
    #expect(status == 200 && contentType == "application/yaml")
    #expect(text == document)
  }

  @Test func anotherMethodOnMetricsOrTheDocumentIs405NamingGET() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    for path in ["/metrics", "/openapi.yaml"] {
      var request = URLRequest(url: URL(string: backend.url.absoluteString + path)!, timeoutInterval: 600)
      request.httpMethod = "POST"
      let (data, response) = try await URLSession.shared.data(for: request)
      let http = try #require(response as? HTTPURLResponse)
      #expect(http.statusCode == 405 && http.value(forHTTPHeaderField: "Allow") == "GET", "\(path)")
      let json = (try JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
      #expect(json.errorCode == "method_not_allowed")
      #expect(json.errorMessage == "POST is not allowed on \(path)")
    }
  }

  /// Beyond loopback the API's port does not answer /metrics; `--metrics-port` does.
  @Test func withoutLoopbackMetricsAreOnTheirOwnPortOnly() async throws {
    let port = try Self.freePort()
    let server = try ProgressServer(
      configuration: ProgressServer.Configuration(
        apiKey: apiKey, jwtSecret: jwtSecret, servesMetrics: false, metricsPort: port))
    let backend = TestBackend(server: server, url: try await server.start())
    defer { Task { await backend.stop() } }
    let (status, json) = try await backend.raw("GET", "/metrics", headers: [:])
    #expect(status == 404 && json.errorCode == "not_found")
    #expect(json.errorMessage == "no such endpoint: GET /metrics")
    #expect(try await backend.raw("GET", "/api/v1/progress", headers: backend.headers()).status == 200)
    // The metrics listener starts beside the API's; it may take a moment to bind.
    var answer: (status: Int, contentType: String?, text: String)?
    for _ in 0..<200 where answer == nil {
      answer = try? await Self.get(URL(string: "http://127.0.0.1:\(port)")!, "/metrics")
      if answer == nil { try await Task.sleep(for: .milliseconds(50)) }
    }
    let metrics = try #require(answer)
    #expect(metrics.status == 200)
    #expect(
      metrics.text.contains(#"wellflow_http_requests_total{method="GET",route="unmatched",status="404"} 1"#))
  }

  private static func get(_ base: URL, _ path: String) async throws -> (
    status: Int, contentType: String?, text: String
  ) {
    let (data, response) = try await URLSession.shared.data(
      for: URLRequest(url: URL(string: base.absoluteString + path)!, timeoutInterval: 600))
    let http = response as! HTTPURLResponse
    return (
      http.statusCode, http.value(forHTTPHeaderField: "Content-Type"), String(decoding: data, as: UTF8.self)
    )
  }

  /// A port nothing listens on now: bound to 0, read, closed.
  private static func freePort() throws -> Int {
    let fd = socket(AF_INET, streamSocket, 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}
