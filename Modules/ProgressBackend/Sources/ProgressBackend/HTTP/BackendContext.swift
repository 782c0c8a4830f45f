import Foundation
import HTTPTypes
import Hummingbird

/// What a request carries through the middleware to its route: the body read once (within
/// the limit), then the user the token names and the request's idempotency key.
struct BackendContext: RequestContext {
  var coreContext: CoreRequestContextStorage
  var body = Data()
  var userID = ""
  var idempotencyKey: String?

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
  }
}

extension Request {
  /// The query's parameters, percent-decoded; a name given twice keeps its last value.
  var apiQuery: [String: String] {
    var query: [String: String] = [:]
    for (name, value) in uri.queryParameters {
      let text = String(value)
      // Foundation's decoding costs more than the rest of reading a query; text without
      // a `%` decodes to itself.
      query[String(name)] =
        text.utf8.contains(UInt8(ascii: "%")) ? text.removingPercentEncoding ?? text : text
    }
    return query
  }

  /// A header's last value, as the API reads headers.
  func header(_ name: HTTPField.Name) -> String? {
    headers[values: name].last
  }
}

extension BackendResponse: ResponseGenerator {
  func response(from request: Request, context: some RequestContext) throws -> Response {
    var headers = HTTPFields()
    if !body.isEmpty { headers[.contentType] = "application/json" }
    if let allow { headers[.allow] = allow.joined(separator: ", ") }
    return Response(
      status: HTTPResponse.Status(code: status), headers: headers,
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
  }
}
