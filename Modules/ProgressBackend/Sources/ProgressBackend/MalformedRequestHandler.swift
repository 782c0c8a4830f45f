import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request the HTTP parser could not read (headers over its 80 KiB, bytes that
/// are not HTTP) with the API's error envelope, where Hummingbird would send 400 with an
/// empty body. The answer waits for the responses to the requests read before it, so it
/// never cuts into one; an error in the middle of a request's body is left to Hummingbird,
/// which is reading that request. After such bytes no next request can be found, so the
/// server then stops writing and drops what the client still sends until it closes (or
/// the request deadline does): closing at once, with the rest of a 1 MB header unread,
/// would reset the connection and the client could lose the answer.
final class MalformedRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  /// Requests whose head was read, whose end was read, and responses written to their end.
  private var headsRead = 0
  private var endsRead = 0
  private var responsesWritten = 0
  private var waiting: HTTPParserError?
  private var answered = false

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head: headsRead += 1
    case .end: endsRead += 1
    case .body: break
    }
    context.fireChannelRead(data)
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    let ends = if case .end = unwrapOutboundIn(data) { true } else { false }
    context.write(data, promise: promise)
    guard ends else { return }
    responsesWritten += 1
    if let error = waiting, responsesWritten >= endsRead {
      waiting = nil
      answer(error, context)
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    // The parser drops the bytes after its error, saying so for each read.
    if answered || waiting != nil, error is ByteToMessageDecoderError { return }
    guard let error = error as? HTTPParserError, headsRead == endsRead, !answered else {
      context.fireErrorCaught(error)
      return
    }
    if responsesWritten >= endsRead {
      answer(error, context)
    } else {
      waiting = error
    }
  }

  private func answer(_ error: HTTPParserError, _ context: ChannelHandlerContext) {
    answered = true
    let refusal = Self.refusal(for: error).response
    var fields = HTTPFields()
    fields[.contentType] = "application/json"
    fields[.contentLength] = String(refusal.body.count)
    fields[.connection] = "close"
    let head = HTTPResponse(status: HTTPResponse.Status(code: refusal.status), headerFields: fields)
    context.write(wrapOutboundOut(.head(head)), promise: nil)
    context.write(wrapOutboundOut(.body(ByteBuffer(bytes: refusal.body))), promise: nil)
    context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
      let closed = context.eventLoop.makePromise(of: Void.self)
      closed.futureResult.assumeIsolated().whenFailure { _ in context.close(promise: nil) }
      context.close(mode: .output, promise: closed)
    }
  }

  static func refusal(for error: HTTPParserError) -> Refusal {
    if case .headerOverflow = error {
      return Refusal(
        status: 431, code: "headers_too_large",
        message: "the request's headers are over the server's limit (80 KiB in all, 1000 fields)")
    }
    return Refusal(
      status: 400, code: "malformed_request",
      message: "the request is not HTTP/1.1 the server can read (\(error))")
  }
}
