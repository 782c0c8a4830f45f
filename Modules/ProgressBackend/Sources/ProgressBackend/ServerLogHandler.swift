import Logging

/// The server's own log (Hummingbird's lines, critical ones alone): swift-log's standard
/// error handler, except that metadata is kept as given until a line is logged. That
/// handler formats all of a logger's metadata each time a key is set, and Hummingbird sets
/// its request id on every request: 5% of a `GET`'s time, for lines never written.
struct ServerLogHandler: LogHandler {
  let label: String
  var metadata: Logger.Metadata = [:]
  var metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider
  var logLevel: Logger.Level = .info

  init(label: String) {
    self.label = label
  }

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    var handler = StreamLogHandler.standardError(label: label, metadataProvider: metadataProvider)
    handler.logLevel = logLevel
    handler.metadata = metadata
    handler.log(event: event)
  }
}
