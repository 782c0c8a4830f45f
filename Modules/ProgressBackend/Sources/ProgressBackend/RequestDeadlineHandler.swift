import NIOCore
import NIOHTTPTypes

/// Closes a connection that does not send a complete request within `timeout` of being
/// opened or of its last response: half-open connections, partial requests and requests
/// dripped a byte at a time. The time is not extended by parts of a request as they
/// arrive (Hummingbird's own `idleTimeout` is), and it does not run while a request
/// that was read whole is being answered, however long that takes.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  private let timeout: TimeAmount
  /// Requests read to their end, and responses written to theirs. The clock runs while
  /// no request read whole waits for its response.
  private var requestsRead = 0
  private var responsesWritten = 0
  private var deadline: Scheduled<Void>?

  init(timeout: TimeAmount) {
    self.timeout = timeout
  }

  func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive { update(context) }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    disarm()
  }

  func channelActive(context: ChannelHandlerContext) {
    update(context)
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    disarm()
    context.fireChannelInactive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if case .end = unwrapInboundIn(data) {
      requestsRead += 1
      update(context)
    }
    context.fireChannelRead(data)
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    if case .end = unwrapOutboundIn(data) {
      responsesWritten += 1
      update(context)
    }
    context.write(data, promise: promise)
  }

  /// Runs the clock while waiting for a request (a response may be written before its
  /// request's end is read, as for a body refused as too large: that still waits).
  private func update(_ context: ChannelHandlerContext) {
    if requestsRead > responsesWritten {
      disarm()
    } else if deadline == nil, context.channel.isActive {
      deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
        deadline = nil
        context.close(promise: nil)
      }
    }
  }

  private func disarm() {
    deadline?.cancel()
    deadline = nil
  }
}
