import FlowKit
import Foundation
import GRDB
import JournalSQLite
import MoodTrackingSQLite
import ScriptTestSupport
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

  /// The app's CSV header: its features' columns (`FeatureStorage.export`), so a feature
  /// added to the app adds columns without a change here.
  static let header = ExportCommand.csvHeader(ExportCommand.exports)

  /// One CSV line under the app's header: `fields` are the CSV fields (already quoted) by
  /// column; every other column is empty.
  static func line(_ fields: [String: String]) -> String {
    for column in fields.keys { #expect(header.contains(column), "no column \(column) in \(header)") }
    return header.map { fields[$0] ?? "" }.joined(separator: ",") + "\r\n"
  }

  /// The mood's and the journal's columns, as the app that ships them wrote them: a
  /// change here changes every export a user has.
  @Test func theMoodAndJournalColumnsAreTodays() {
    let seed = ExportCommand.exports(
      of: SQLiteSchema([MoodTrackingStorage.storage, JournalStorage.storage]))
    #expect(
      ExportCommand.csvHeader(seed).joined(separator: ",")
        == "type,date,kind,score,valence,labels,associations,notes,primary,secondary,strategy,initiated_by")
    // The app's header holds them, in that order, whatever it adds.
    #expect(Self.header.filter(ExportCommand.csvHeader(seed).contains) == ExportCommand.csvHeader(seed))
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
        == Self.header.joined(separator: ",") + "\r\n"
        + Self.line([
          "type": "mood", "date": "2026-03-01T20:00:00+01:00", "kind": "dailyMood", "score": "7",
          "valence": valence7, "labels": "happy;peaceful",
          "notes": "\"walked, then \"\"rested\"\"\nsecond line\"",
        ])
        + Self.line([
          "type": "mood", "date": "2026-03-02T20:00:00+01:00", "kind": "dailyMood", "score": "4",
          "valence": valence4, "labels": "calm;proud", "associations": "work",
        ])
        + Self.line([
          "type": "journal", "date": "2026-03-02T20:30:00+01:00", "primary": "1", "initiated_by": "self",
        ]))
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
    #expect(nobody == Self.header.joined(separator: ",") + "\r\n")
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

  /// The folder's files with their bytes, the WAL and its index (`-shm`) included: an
  /// export makes no file there, not even those any SQLite reader of a WAL database makes,
  /// so a folder on a read-only file system can be exported.
  func snapshot(_ folder: String) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
      files[name] = try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(name))
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

  /// Notes a spreadsheet would run as a formula are written with a leading `'` in CSV
  /// (and unchanged in JSON); numbers, negative ones included, stay numbers.
  @Test func csvNeutralizesFormulaCells() async throws {
    let workspace = Workspace()
    let script = workspace.write(
      "formulas.yaml",
      """
      name: Formulas
      user: alice
      start: 2026-03-05T20:00
      timezone: Europe/Berlin
      steps:
        - run: {file: log.yaml, env: {NOTES: '=HYPERLINK("http://x","y")', DAY: "2026-03-01"}}
        - run: {file: log.yaml, env: {NOTES: "+1+cmd|x", DAY: "2026-03-02"}}
        - run: {file: log.yaml, env: {NOTES: "@SUM(A1)", DAY: "2026-03-03"}}
        - run: {file: log.yaml, env: {NOTES: "-2", DAY: "2026-03-04"}}
        - run: {file: log.yaml, env: {NOTES: "-", DAY: "2026-03-05"}}
      """)
    workspace.write(
      "log.yaml",
      """
      name: Log
      steps:
        - start: mood.log
        - set: {score: 1}
        - enter: {notes: '${NOTES}'}
        - enter: {date: "${DAY}"}
        - tap: save
      """)
    let data = workspace.path("data")
    let outcome = await wellflowRun([script]) { $0.dataDirectory = data }
    #expect(outcome.code == 0, "\(outcome.outText)\n\(outcome.errText)")
    let (code, out, err) = await export({ $0.format = .csv }, dataDirectory: data)
    #expect(code == 0, "\(err)")
    // The notes are the last mood field, before the four journal ones.
    for notes in [#""'=HYPERLINK(""http://x"",""y"")""#, "'+1+cmd|x", "'@SUM(A1)", "-2", "'-"] {
      #expect(out.contains(",\(notes),,,,\r\n"), "\(notes)")
    }
    #expect(!out.contains(",=") && !out.contains(",+") && !out.contains(",@"))
    // The valence of a score of 1 is -1 and stays a number.
    #expect(out.contains("mood,2026-03-02T20:00:00+01:00,dailyMood,1,-1.0,"))
    let (_, json, _) = await export({ $0.format = .json }, dataDirectory: data)
    #expect(json.contains(#""notes":"=HYPERLINK(\"http://x\",\"y\")""#))
    #expect(json.contains(#""notes":"+1+cmd|x""#))
  }

  @Test func formulaCellsAreTheOnesASpreadsheetRuns() {
    for text in [
      "=1+1", "+A1", "-A1", "@SUM(A1)", "\tx", "\rx", "-", "+", "--1", "-1-1", "-1e", "-.e1", "=1",
    ] {
      #expect(
        ExportCommand.csvField(text).hasPrefix("'") || ExportCommand.csvField(text).hasPrefix("\"'"),
        "\(text)")
    }
    for text in ["-2", "+3.5", "-0.5", "-.5", "1e-3", "-1E+10", "walk", "", "a=b", " =1", "7"] {
      #expect(ExportCommand.csvField(text) == text, "\(text)")
    }
    #expect(ExportCommand.csvField("\rx") == "\"'\rx\"")
  }

  /// Without `--from`/`--to`, every entry, whatever its year: before 1970 and after
  /// 4000 (beyond Foundation's `distantFuture`) too.
  @Test func withoutARangeEveryEntryIsExported() async throws {
    let workspace = Workspace()
    let early = workspace.write(
      "early.yaml",
      """
      name: Early
      user: alice
      start: 1970-01-01T09:00
      timezone: Europe/Berlin
      steps:
        - start: mood.log
        - set: {score: 2}
        - enter: {date: "1969-12-31"}
        - tap: save
        - expect: {data: {mood.count: 1}}
      """)
    let late = workspace.write(
      "late.yaml",
      """
      name: Late
      user: alice
      start: 9999-12-30T09:00
      timezone: Europe/Berlin
      steps:
        - start: mood.log
        - set: {score: 9}
        - tap: save
        - expect: {data: {mood.count: 2}}
      """)
    let data = workspace.path("data")
    let outcome = await wellflowRun([early, late]) { $0.dataDirectory = data }
    #expect(outcome.code == 0, "\(outcome.outText)\n\(outcome.errText)")
    let (code, out, err) = await export({ _ in }, dataDirectory: data)
    #expect(code == 0, "\(err)")
    let dates = out.split(separator: "\r\n").dropFirst().map { $0.split(separator: ",")[1] }
    #expect(dates == ["1969-12-31T09:00:00+01:00", "9999-12-30T09:00:00+01:00"])
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

  /// `export` reaches features only through their `FeatureExport` registrations: its
  /// source imports no feature module (it parsed days with the mood domain's `MoodDay`).
  @Test func exportNamesNoFeature() throws {
    let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Apps/Wellflow/Sources/WellflowCore/ExportCommand.swift").standardized
    let imports = try String(contentsOf: source, encoding: .utf8).split(separator: "\n")
      .filter { $0.hasPrefix("import ") }.map { String($0.dropFirst("import ".count)) }
    // YAMLTree: `clipped` for the refused --user (the YAML reader names no feature either);
    // ArgumentParser: the configuration declares the command's options.
    #expect(
      imports == ["ArgumentParser", "FlowKit", "Foundation", "Storage", "WellflowComposition", "YAMLTree"])
  }
}
