import FlowKit
import Foundation
import GRDB
import Storage
import Testing
import WellflowCore

/// `wellflow export` over the data a real run left in `--data-dir`.
@MainActor
@Suite("wellflow export")
struct ExportCommandTests {
  let berlin = TimeZone(identifier: "Europe/Berlin")!

  /// Runs a script that logs two moods (one with hostile notes), edits one, deletes
  /// none, and logs a journal entry, keeping the data in the workspace's `data` folder.
  func seededData(_ workspace: Workspace) async throws -> String {
    let script = workspace.write(
      "seed.yaml",
      """
      name: Seed
      user: alice
      start: 2026-03-02T20:00
      timezone: Europe/Berlin
      steps:
        - start: mood.log
        - set: {score: 7}
        - enter: {notes: "walked, then \\"rested\\"\\nsecond line"}
        - enter: {date: "2026-03-01"}
        - tap: save
        - start: mood.log
        - set: {score: 4}
        - tap: save
        - start: mood.entries
        - select: {entry: "2026-03-02T20:00"}
        - tap: edit
        - select: {labels: [calm, proud]}
        - select: {associations: [work]}
        - tap: save
        - close
        - advance: 30m
        - start: journal
        - select: {entry: 1}
        - tap: confirm
        - tap: decline
        - tap: decline
        - tap: ok
        - expect: {data: {mood.count: 2, journal.count: 1}}
      """)
    let data = workspace.path("data")
    let outcome = await wellflowRun([script]) { $0.dataDirectory = data }
    #expect(outcome.code == 0, "\(outcome.outText)\n\(outcome.errText)")
    return data
  }

  func export(_ configure: (inout ExportConfiguration) -> Void, dataDirectory: String) async -> (
    code: Int32, out: String, err: [String]
  ) {
    var configuration = ExportConfiguration(dataDirectory: dataDirectory)
    configuration.userID = "alice"
    configuration.timeZone = berlin
    configure(&configuration)
    let out = Locked("")
    let err = Locked<[String]>([])
    let code = await ExportCommand.execute(
      configuration, write: { text in out.withLock { $0 += text } },
      console: Console(out: { _ in }, err: { text in err.withLock { $0.append(text) } }))
    return (code, out.current, err.current)
  }

  @Test func csvQuotesHostileNotesPerRFC4180() async throws {
    let workspace = Workspace()
    let data = try await seededData(workspace)
    let (code, out, err) = await export({ $0.format = .csv }, dataDirectory: data)
    #expect(code == 0, "\(err)")
    let valence7 = String((7.0 - 1) / 4.5 - 1)
    let valence4 = String((4.0 - 1) / 4.5 - 1)
    #expect(
      out
        == "type,date,kind,score,valence,labels,associations,notes,primary,secondary,strategy,initiated_by\r\n"
        + "mood,2026-03-01T20:00:00+01:00,dailyMood,7,\(valence7),happy;peaceful,,"
        + "\"walked, then \"\"rested\"\"\nsecond line\",,,,\r\n"
        + "mood,2026-03-02T20:00:00+01:00,dailyMood,4,\(valence4),calm;proud,work,,,,,\r\n"
        + "journal,2026-03-02T20:30:00+01:00,,,,,,,1,,,self\r\n")
  }

  @Test func jsonIsOneArrayWithOffsetsAndNulls() async throws {
    let workspace = Workspace()
    let data = try await seededData(workspace)
    let (code, out, _) = await export({ $0.format = .json }, dataDirectory: data)
    #expect(code == 0)
    let array = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])
    #expect(array.count == 3)
    #expect(array.map { $0["type"] as? String } == ["mood", "mood", "journal"])
    #expect(array[0]["date"] as? String == "2026-03-01T20:00:00+01:00")
    #expect(array[0]["notes"] as? String == "walked, then \"rested\"\nsecond line")
    #expect(array[1]["labels"] as? [String] == ["calm", "proud"])
    #expect(array[1]["associations"] as? [String] == ["work"])
    #expect(array[1]["notes"] is NSNull)
    #expect(array[1]["kind"] as? String == "dailyMood")
    #expect(array[1]["score"] as? Int == 4)
    #expect(array[2]["primary"] as? Int == 1)
    #expect(array[2]["secondary"] is NSNull)
    #expect(array[2]["initiated_by"] as? String == "self")
    #expect(out.split(separator: "\n").count == 5, "one object a line between the brackets")
  }

  @Test func aRangeOfDaysAndAnotherUserAndAnotherZone() async throws {
    let workspace = Workspace()
    let data = try await seededData(workspace)
    let (_, second, _) = await export(
      {
        $0.from = "2026-03-02"
        $0.to = "2026-03-02"
      }, dataDirectory: data)
    #expect(second.split(separator: "\r\n").count == 3, "the header, the second mood and the journal entry")
    let (_, first, _) = await export({ $0.to = "2026-03-01" }, dataDirectory: data)
    #expect(first.split(separator: "\r\n").count == 2)
    let (_, utc, _) = await export(
      {
        $0.to = "2026-03-01"
        $0.timeZone = TimeZone(identifier: "UTC")!
      }, dataDirectory: data)
    #expect(utc.contains("2026-03-01T19:00:00+00:00"))
    let (code, nobody, _) = await export({ $0.userID = "bob" }, dataDirectory: data)
    #expect(code == 0)
    #expect(
      nobody
        == "type,date,kind,score,valence,labels,associations,notes,primary,secondary,strategy,initiated_by\r\n"
    )
    let (_, empty, _) = await export(
      {
        $0.userID = "bob"
        $0.format = .json
      }, dataDirectory: data)
    #expect(empty == "[]\n")
  }

  @Test func badInputIsRefusedWithAMessageAndExit2() async throws {
    let workspace = Workspace()
    let data = try await seededData(workspace)
    let cases: [((inout ExportConfiguration) -> Void, String, String)] = [
      (
        { $0.from = "2026-02-30" }, data,
        "wellflow export: --from '2026-02-30' is not a calendar day written YYYY-MM-DD, e.g. 2026-03-02"
      ),
      (
        { $0.to = "March 1st" }, data,
        "wellflow export: --to 'March 1st' is not a calendar day written YYYY-MM-DD, e.g. 2026-03-02"
      ),
      (
        {
          $0.from = "2026-03-05"
          $0.to = "2026-03-01"
        }, data,
        "wellflow export: the range starts 2026-03-05, after it ends 2026-03-01; pick a start on or before the end"
      ),
      (
        { _ in }, workspace.path("missing"),
        "wellflow export: --data-dir \(workspace.path("missing")): no such folder"
      ),
      (
        { _ in }, workspace.path(""),
        "wellflow export: --data-dir \(workspace.path("")) holds no Wellflow data (no wellflow.sqlite); "
          + "give the folder `wellflow run --data-dir` wrote"
      ),
    ]
    for (configure, directory, message) in cases {
      let (code, out, err) = await export(configure, dataDirectory: directory)
      #expect(code == 2)
      #expect(out.isEmpty)
      #expect(err == [message])
    }
    #expect(!FileManager.default.fileExists(atPath: workspace.path("missing")), "nothing is created")
  }

  /// The folder's files with their bytes, but for what holds no data: the WAL index
  /// (`-shm`, shared memory every reader marks its reads in) and an empty WAL (SQLite
  /// makes both when it reads a WAL database whose writer closed).
  func snapshot(_ folder: String) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: folder) where !name.hasSuffix("-shm") {
      let bytes = try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(name))
      if name.hasSuffix("-wal") && bytes.isEmpty { continue }
      files[name] = bytes
    }
    return files
  }

  /// An export reads the folder without changing it: no migration, no write.
  @Test func anExportLeavesTheFolderAsItWas() async throws {
    let workspace = Workspace()
    let data = try await seededData(workspace)
    let file = URL(fileURLWithPath: data).appendingPathComponent(WellflowDatabase.fileName)
    // As an older version left it: the last migration not yet run.
    do {
      let pool = try DatabasePool(path: file.path)
      try await pool.write { db in
        try db.execute(
          sql: "DELETE FROM grdb_migrations WHERE identifier = ?",
          arguments: [MoodSchema.moodEntriesWithoutChildTablesMigration])
        try db.execute(
          sql: """
            CREATE TABLE mood_entry_labels (entry_id TEXT NOT NULL, position INTEGER NOT NULL, label TEXT NOT NULL,
              PRIMARY KEY (entry_id, position)) WITHOUT ROWID;
            CREATE TABLE mood_entry_associations (entry_id TEXT NOT NULL, association TEXT NOT NULL,
              PRIMARY KEY (entry_id, association)) WITHOUT ROWID;
            """)
      }
      try pool.close()
    }
    let before = try snapshot(data)
    let (code, out, err) = await export({ $0.format = .json }, dataDirectory: data)
    #expect(code == 0, "\(err)")
    #expect(out.contains("\"score\":7") && out.contains("\"score\":4"))
    #expect(try snapshot(data) == before)
  }

  @Test func aFolderANewerWellflowWroteIsRefusedClearly() async throws {
    let workspace = Workspace()
    let data = try await seededData(workspace)
    let file = URL(fileURLWithPath: data).appendingPathComponent(WellflowDatabase.fileName)
    do {
      let pool = try DatabasePool(path: file.path)
      try await pool.write { try $0.execute(sql: "INSERT INTO grdb_migrations VALUES ('v9_fromTheFuture')") }
      try pool.close()
    }
    let before = try snapshot(data)
    let (code, out, err) = await export({ _ in }, dataDirectory: data)
    #expect(code == 2)
    #expect(out.isEmpty)
    #expect(
      err == [
        "wellflow export: --data-dir \(data) was written by a newer wellflow (its data has changes this version "
          + "does not know: v9_fromTheFuture); export it with that version or a newer one"
      ])
    #expect(try snapshot(data) == before)
  }

  @Test func timestampsCarryTheOffsetOfTheirDay() {
    let newYork = TimeZone(identifier: "America/New_York")!
    // 2026-03-08 is the spring-forward day in New York.
    #expect(
      ExportCommand.timestamp(Date(timeIntervalSince1970: 1_772_949_600), in: newYork)
        == "2026-03-08T01:00:00-05:00")
    #expect(
      ExportCommand.timestamp(Date(timeIntervalSince1970: 1_772_956_800), in: newYork)
        == "2026-03-08T04:00:00-04:00")
    #expect(
      ExportCommand.timestamp(Date(timeIntervalSince1970: 0), in: TimeZone(identifier: "Asia/Kolkata")!)
        == "1970-01-01T05:30:00+05:30")
  }
}
