import Logging
import Testing

@testable import ProgressBackend

/// The server's log handler keeps a logger's metadata and level as values, as swift-log's
/// handlers must (Hummingbird sets a request id on a copy per request).
@Suite struct ServerLogHandlerTests {
  @Test func metadataAndLevelAreValuesOfEachLogger() {
    var logger = Logger(label: "wellflow.backend", factory: ServerLogHandler.init(label:))
    logger.logLevel = .critical
    var copy = logger
    copy[metadataKey: "hb.request.id"] = "7"
    #expect(copy[metadataKey: "hb.request.id"] == "7")
    #expect(logger[metadataKey: "hb.request.id"] == nil)
    #expect(copy.logLevel == .critical)
    var handler = ServerLogHandler(label: "wellflow.backend")
    handler[metadataKey: "a"] = "1"
    #expect(handler.metadata == ["a": "1"])
  }
}
