import FlowKit
import Foundation
import ProgressBackend

/// `wellflow run --events postgres://…`: the run writes its events to a file of its own,
/// as with `--events FILE` (every run's events reach it as the run ends, workers' files
/// are joined into it), and when the runs are done they go to the database's `events`
/// table in batches, in one transaction. The database is checked (connected, schema
/// migrated) before any script runs; if it fails later, the table holds none of this
/// run's events, the file is kept and named, and running again adds them once.
enum EventsInPostgres {
  static func execute(
    _ configuration: RunConfiguration, url: String, console: Console,
    run: (RunConfiguration) async -> Int32
  ) async -> Int32 {
    func failed(_ message: String) -> Int32 {
      console.err("error: \(terminalSafe(message))")
      return 2
    }
    let location: PostgresLocation
    do {
      location = try PostgresLocation(url: url)
      try await PostgresEvents.prepare(location)
    } catch {
      return failed(error.description)
    }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "wellflow-events-\(UUID().uuidString).ndjson"
    ).path
    var local = configuration
    local.eventsPath = file
    // The table only grows: --append changes nothing here.
    local.appendEvents = false
    let status = await run(local)
    guard FileManager.default.fileExists(atPath: file) else { return status }
    do {
      try await PostgresEvents.insert(ndjsonFile: file, into: location)
    } catch {
      return failed("\(error.description); the run's events are kept in \(file)")
    }
    try? FileManager.default.removeItem(atPath: file)
    return status
  }
}
