import FlowKit
import Foundation
import PostgresNIO
import ProgressBackend

/// `wellflow report postgres://… --experiment KEY`: the events the report can use, chosen
/// by PostgreSQL (each exposed user's events from their first exposure on, in the order
/// they were stored, and the names of the other experiments exposed), are streamed into a
/// file of the events file's form, which the report then reads as any other: the same
/// reader, builder and statistics, so the report equals the one of the same events in a
/// file. The client holds one batch of rows at a time.
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
      try await export(experiment: configuration.experiment, from: location, to: file)
    } catch {
      console.err("error: \(terminalSafe(error.description))")
      return 2
    }
    var local = configuration
    local.eventsPath = file
    return ReportCommand.execute(local, console: console)
  }

  /// Writes the events `experiment`'s report reads to `path`, one JSON object a line.
  static func export(experiment: String, from location: PostgresLocation, to path: String)
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
      // Other experiments' names only say what was exposed when this one was not: one
      // exposure each, first, before any user of this experiment is known.
      let others = try await connection.query(
        """
        SELECT DISTINCT data->>'experiment' FROM events
        WHERE event = 'experiment_viewed' AND data->>'experiment' IS NOT NULL
          AND data->>'experiment' <> \(experiment)
        """, logger: logger)
      for try await name in others.decode(String.self) {
        let quoted = String(decoding: try JSONEncoder().encode(name), as: UTF8.self)
        try add(
          #"{"ts":"1970-01-01T00:00:00Z","user":"","event":"experiment_viewed","experiment":"# + quoted + "}")
      }
      let rows = try await connection.query(
        """
        WITH exposed AS (
          SELECT user_id, min(seq) AS first FROM events
          WHERE event = 'experiment_viewed' AND data->>'experiment' = \(experiment)
          GROUP BY user_id)
        SELECT e.data::text FROM events e JOIN exposed x ON x.user_id = e.user_id AND e.seq >= x.first
        ORDER BY e.seq
        """, logger: logger)
      for try await line in rows.decode(String.self) {
        try add(line)
      }
      try handle.write(contentsOf: buffer)
    } catch {
      throw PostgresFailure(location: location.description, error: error)
    }
  }
}
