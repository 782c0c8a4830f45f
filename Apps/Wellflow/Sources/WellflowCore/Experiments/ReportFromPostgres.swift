import FlowKit
import Foundation
import PostgresNIO
import ProgressBackend

/// `wellflow report postgres://… --experiment KEY`: the table's events, in the order they
/// were stored, are streamed into a file of the events file's form, which the report then
/// reads as any other: the same reader, builder and statistics, so the report equals the
/// one of the same events in a file. Every event is read, not only exposed users' from
/// their exposure on: CUPED's covariate comes from before it, and a metric's field is
/// checked on every event. The client holds one batch of rows at a time; the counting is
/// the client's, not yet SQL's.
public enum ReportFromPostgres {
  @MainActor
  public static func execute(_ configuration: ReportConfiguration, console: Console = .standard) async
    -> Int32
  {
    guard PostgresLocation.isURL(configuration.eventsPath) else {
      return ReportCommand.execute(configuration, console: console)
    }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "wellflow-report-\(UUID().uuidString).ndjson"
    ).path
    defer { try? FileManager.default.removeItem(atPath: file) }
    do {
      let location = try PostgresLocation(url: configuration.eventsPath)
      try await export(from: location, to: file)
    } catch {
      console.err("error: \(terminalSafe(error.description))")
      return 2
    }
    var local = configuration
    local.eventsPath = file
    return ReportCommand.execute(local, console: console)
  }

  /// Writes the table's events to `path`, one JSON object a line.
  static func export(from location: PostgresLocation, to path: String)
    async throws(PostgresFailure)
  {
    guard FileManager.default.createFile(atPath: path, contents: nil),
      let handle = FileHandle(forWritingAtPath: path)
    else {
      throw PostgresFailure(location: location.description, reason: "cannot write the temporary file \(path)")
    }
    defer { try? handle.close() }
    let connection = try await location.connect()
    defer { connection.closeInBackground() }
    let logger = PostgresLocation.quietLogger
    do {
      var buffer: [UInt8] = []
      buffer.reserveCapacity(1 << 17)
      func add(_ line: String) throws {
        buffer += line.utf8
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 1 << 16 {
          try handle.write(contentsOf: buffer)
          buffer.removeAll(keepingCapacity: true)
        }
      }
      let rows = try await connection.query("SELECT data::text FROM events ORDER BY seq", logger: logger)
      for try await line in rows.decode(String.self) {
        try add(line)
      }
      try handle.write(contentsOf: buffer)
    } catch {
      throw PostgresFailure(location: location.description, error: error)
    }
  }
}
