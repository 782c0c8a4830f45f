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
  /// envelope (`MalformedRequestHandler`). With `onEventLoop`, each connection's requests
  /// are answered on its event loop's thread (`EventLoopConnections`): for handlers that
  /// never block for long.
  public static func http1(
    closingAfter seconds: TimeInterval?, envelopes: Bool = false, onEventLoop: Bool = false
  ) -> HTTPServerBuilder {
    let timeout = seconds.map(ProgressServer.timeAmount)
    let configuration = HTTP1Channel.Configuration(
      additionalChannelHandlers: (timeout.map { [RequestDeadlineHandler(timeout: $0)] } ?? [])
        + (envelopes ? [MalformedRequestHandler()] : []))
    guard onEventLoop else { return .http1(configuration: configuration) }
    return HTTPServerBuilder { responder in
      EventLoopConnections(base: HTTP1Channel(responder: responder, configuration: configuration))
    }
  }
}
