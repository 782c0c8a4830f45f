import Foundation
import Hummingbird
import NIOCore
import ProgressContract

/// Before any route: headers the API reads must be UTF-8 text, and the body is read once,
/// up to `ProgressServer.maxBodyBytes` (413 beyond).
struct RequestGuardMiddleware: RouterMiddleware {
  typealias Context = BackendContext

  /// The headers the API reads (lower case).
  static let readHeaders: Set<String> = Set(
    [APIHeader.authorization, APIHeader.apiKey, APIHeader.idempotencyKey, "Content-Length"].map {
      $0.lowercased()
    })

  static let tooLarge = Refusal(
    status: 413, code: "payload_too_large",
    message: "the body must be at most \(ProgressServer.maxBodyBytes) bytes (1 MiB)")

  @concurrent func handle(
    _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
  )
    async throws -> Response
  {
    for field in request.headers {
      // The HTTP parser turns bytes that are not UTF-8 into U+FFFD, so two different
      // keys (0x85 and 0x86) would arrive as one: a header the API reads that holds
      // U+FFFD is refused rather than merged with another.
      if field.value.unicodeScalars.contains("\u{FFFD}"), Self.readHeaders.contains(field.name.canonicalName)
      {
        return try Refusal.invalid("the \(field.name.rawName) header is not UTF-8 text").response
          .response(from: request, context: context)
      }
    }
    if let length = request.header(.contentLength).flatMap({ Int($0) }), length > ProgressServer.maxBodyBytes
    {
      return try Self.tooLarge.response.response(from: request, context: context)
    }
    // Reading the body replaces the request's stream with what was read.
    var request = request
    var context = context
    do {
      context.body = Data(try await request.collectBody(upTo: ProgressServer.maxBodyBytes).readableBytesView)
    } catch is NIOTooManyBytesError {
      return try Self.tooLarge.response.response(from: request, context: context)
    }
    return try await next(request, context)
  }
}

/// A refusal thrown anywhere inside is answered with the error envelope; any other error
/// is logged with an id and answered 500 naming only that id (its text, SQL or paths, is
/// no client's business).
struct ErrorMiddleware: RouterMiddleware {
  typealias Context = BackendContext
  let failed: @Sendable (_ id: String, _ error: any Error) -> Void

  @concurrent func handle(
    _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
  )
    async throws -> Response
  {
    do {
      return try await next(request, context)
    } catch let refusal as Refusal {
      return try refusal.response.response(from: request, context: context)
    } catch {
      let id = String(UUID().uuidString.prefix(8)).lowercased()
      failed(id, error)
      return try Refusal(
        status: 500, code: "internal", message: "the server failed; its log names this failure \(id)"
      ).response.response(from: request, context: context)
    }
  }
}

/// Runs before each request; a fault it names is answered instead (fault tests).
struct FaultMiddleware: RouterMiddleware {
  typealias Context = BackendContext
  let fault: @Sendable (_ method: String, _ path: String) async -> ProgressServer.Fault?

  @concurrent func handle(
    _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
  )
    async throws -> Response
  {
    switch await fault(request.method.rawValue, request.uri.path) {
    case nil: return try await next(request, context)
    case .status(let status, let message):
      return try Refusal(status: status, code: "injected", message: message).response
        .response(from: request, context: context)
    case .hang:
      while !Task.isCancelled { try await Task.sleep(for: .seconds(3_600)) }
      throw CancellationError()
    }
  }
}
