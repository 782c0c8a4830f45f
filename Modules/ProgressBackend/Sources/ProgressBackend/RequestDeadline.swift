import Foundation
import HummingbirdCore

/// The HTTP/1 server `serve` and `preview` both run: a connection that sends no complete
/// request within `seconds` is closed (`RequestDeadlineHandler`). Public so `preview`
/// (in WellflowCore, which already depends on this module) uses the same mechanism.
public enum RequestDeadline {
  /// Seconds a connection has to send a complete request; `serve`'s default.
  public static let defaultSeconds: TimeInterval = 10

  /// An HTTP/1 server whose connections have `seconds` for each request; nil: no limit.
  /// With `envelopes`, a request the parser cannot read is answered with the API's error
  /// envelope (`MalformedRequestHandler`).
  public static func http1(closingAfter seconds: TimeInterval?, envelopes: Bool = false) -> HTTPServerBuilder
  {
    .http1(configuration: configuration(closingAfter: seconds, envelopes: envelopes))
  }

  /// The same server, each connection's requests answered on its event loop's thread
  /// (`EventLoopConnections`): for `serve`'s API, whose handlers never block for long.
  static func http1OnEventLoop(closingAfter seconds: TimeInterval?, envelopes: Bool) -> HTTPServerBuilder {
    let configuration = configuration(closingAfter: seconds, envelopes: envelopes)
    return HTTPServerBuilder { responder in
      EventLoopConnections(base: HTTP1Channel(responder: responder, configuration: configuration))
    }
  }

  private static func configuration(closingAfter seconds: TimeInterval?, envelopes: Bool)
    -> HTTP1Channel.Configuration
  {
    let timeout = seconds.map(ProgressServer.timeAmount)
    return HTTP1Channel.Configuration(
      additionalChannelHandlers: (timeout.map { [RequestDeadlineHandler(timeout: $0)] } ?? [])
        + (envelopes ? [MalformedRequestHandler()] : []))
  }
}
