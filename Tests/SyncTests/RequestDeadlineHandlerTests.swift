import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

@testable import ProgressBackend

/// The connection deadline of `serve` and `preview`, on an event loop whose clock the
/// test moves: what it promises holds however slow the machine is.
@Suite struct RequestDeadlineHandlerTests {
  /// A connected channel with the handler and a one-second deadline.
  private func connection() throws -> (EmbeddedChannel, EmbeddedEventLoop) {
    let loop = EmbeddedEventLoop()
    let channel = EmbeddedChannel(handler: RequestDeadlineHandler(timeout: .seconds(1)), loop: loop)
    try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    return (channel, loop)
  }

  private let head = HTTPRequestPart.head(
    HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/slow"))

  @Test func aConnectionThatSendsNothingIsClosedAtTheDeadline() throws {
    let (channel, loop) = try connection()
    loop.advanceTime(by: .milliseconds(999))
    #expect(channel.isActive)
    loop.advanceTime(by: .milliseconds(1))
    #expect(!channel.isActive)
  }

  @Test func partsOfARequestDoNotMoveTheDeadline() throws {
    let (channel, loop) = try connection()
    try channel.writeInbound(head)
    loop.advanceTime(by: .milliseconds(600))
    try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "x")))
    loop.advanceTime(by: .milliseconds(399))
    #expect(channel.isActive)
    loop.advanceTime(by: .milliseconds(1))
    #expect(!channel.isActive)
  }

  @Test func aRequestReadWholeIsAnsweredHoweverLongItTakesThenTheClockRunsAgain() throws {
    let (channel, loop) = try connection()
    try channel.writeInbound(head)
    loop.advanceTime(by: .milliseconds(900))
    try channel.writeInbound(HTTPRequestPart.end(nil))
    loop.advanceTime(by: .hours(1))
    #expect(channel.isActive, "the answer takes an hour and the connection waits for it")
    try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .serviceUnavailable)))
    try channel.writeOutbound(HTTPResponsePart.end(nil))
    // The next request has a whole deadline from the response.
    loop.advanceTime(by: .milliseconds(999))
    #expect(channel.isActive)
    loop.advanceTime(by: .milliseconds(1))
    #expect(!channel.isActive)
  }

  @Test func aResponseWrittenBeforeItsRequestEndedLeavesTheClockRunning() throws {
    // As for a body refused as too large: the rest of the request still has the deadline.
    let (channel, loop) = try connection()
    try channel.writeInbound(head)
    try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .contentTooLarge)))
    try channel.writeOutbound(HTTPResponsePart.end(nil))
    loop.advanceTime(by: .milliseconds(999))
    #expect(channel.isActive)
    loop.advanceTime(by: .milliseconds(1))
    #expect(!channel.isActive)
  }
}
