import ArgumentParser
import FlowKit
import Foundation
import Storage
import WellflowComposition
import YAMLTree

/// Everything `wellflow export` takes.
/// Everything `wellflow export` takes, declared once: the command line parses it.
public struct ExportConfiguration: ParsableArguments, Sendable {
  public enum Format: String, Sendable, CaseIterable, ExpressibleByArgument { case csv, json }

  @Option(name: .customLong("data-dir"), help: "The app's data folder.")
  public var dataDirectory: String

  @Option(name: .customLong("user"), help: "Whose entries (a script's `user:`).")
  public var userID: String = "user-1"

  /// Days `YYYY-MM-DD`, both included, in `timeZone`.
  @Option(help: ArgumentHelp("The first day to export, YYYY-MM-DD.", valueName: "DATE"))
  public var from: String?

  @Option(help: ArgumentHelp("The last day to export, YYYY-MM-DD.", valueName: "DATE"))
  public var to: String?

  @Option(help: "Output format: csv or json.")
  public var format: Format = .csv

  @Option(
    name: .customLong("timezone"),
    help: ArgumentHelp("The time zone of times and days (default: this machine's).", valueName: "ZONE"))
  public var timeZoneName: String?

  /// The zone the times are written in (and the days are read in): --timezone's, once
  /// `validate()` has checked it, else this machine's.
  public var timeZone: TimeZone = .current
  /// The features' storage the folder is read with, and whose exports are written: the
  /// app's (`WellflowFeatures.schema`); an app composed with more features gives its own
  /// (`SQLiteSchema(features.storage)`).
  public var schema: SQLiteSchema = WellflowFeatures.schema

  /// The options only: the zone and the schema are set in code, not parsed.
  private enum CodingKeys: String, CodingKey {
    case dataDirectory, userID, from, to, format, timeZoneName
  }

  public init() {}

  public init(dataDirectory: String) {
    self = .parsed(["--data-dir=\(dataDirectory)"])
  }

  public mutating func validate() throws {
    guard let timeZoneName else { return }
    guard let zone = TimeZone(identifier: timeZoneName) else {
      throw ValidationError("--timezone '\(timeZoneName)' is not a time zone (e.g. Europe/Berlin, UTC)")
    }
    timeZone = zone
  }
}

/// Why nothing was exported, in words a person can act on.
public struct ExportError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}

/// One exported row: an entry of the feature whose export has `type`.
public struct ExportRecord: Sendable, Equatable {
  public var type: String
  public var row: FeatureExport.Row

  public init(type: String, row: FeatureExport.Row) {
    self.type = type
    self.row = row
  }

  var date: Date { row.date }
}

/// `wellflow export`: a user's entries from an app data folder, of every feature that
/// registered an export (`FeatureStorage.export`; the shipped app's: mood and journal entries), as CSV
/// (RFC 4180) or a JSON array, oldest first, times in ISO 8601 with their offset.
public enum ExportCommand {
  /// Writes the export with `write` (the whole text at once); errors go to `console.err`.
  /// Exit 0 exported (possibly nothing), 2 nothing could be read.
  public static func execute(
    _ configuration: ExportConfiguration, write: @Sendable (String) -> Void, console: Console
  ) async -> Int32 {
    do {
      let records = try await read(configuration)
      write(
        render(
          records, format: configuration.format, timeZone: configuration.timeZone,
          exports: exports(of: configuration.schema)))
      return 0
    } catch let error as ExportError {
      console.err("wellflow export: \(error.message)")
      return 2
    } catch {
      console.err("wellflow export: the data could not be read: \(error)")
      return 2
    }
  }

  /// The instants from the start of `from` to the end of `to` in `timeZone`; open where
  /// a bound is not given: every entry, whatever its year (stored dates reach from before
  /// 1970 to the end of 9999, beyond `Date.distantPast`…`distantFuture`'s year 4001).
  public static func interval(from: String?, to: String?, timeZone: TimeZone) throws -> DateInterval {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    func day(_ text: String?, _ option: String) throws -> CalendarDay? {
      guard let text else { return nil }
      guard let day = CalendarDay(text) else {
        throw ExportError(
          message: "\(option) '\(text)' is not a calendar day written YYYY-MM-DD, e.g. 2026-03-02")
      }
      return day
    }
    let first = try day(from, "--from")
    let last = try day(to, "--to")
    if let first, let last, last < first {
      throw ExportError(message: CalendarDay.invertedRangeMessage(start: first, end: last))
    }
    return DateInterval(
      start: first?.start(in: calendar) ?? unbounded.start,
      end: last?.adding(days: 1).start(in: calendar) ?? unbounded.end)
  }

  /// Wider than any date a calendar gives: ±31 million years.
  static let unbounded = DateInterval(
    start: Date(timeIntervalSince1970: -1e15), end: Date(timeIntervalSince1970: 1e15))

  static func read(_ configuration: ExportConfiguration) async throws -> [ExportRecord] {
    if let problem = UserID.problem(with: configuration.userID) {
      throw ExportError(message: "--user '\(clipped(configuration.userID))' \(problem) (\(UserID.rule))")
    }
    if let problem = DataDirectory.problem(with: configuration.dataDirectory) {
      throw ExportError(message: problem)
    }
    let interval = try interval(
      from: configuration.from, to: configuration.to, timeZone: configuration.timeZone)
    let directory = URL(fileURLWithPath: configuration.dataDirectory, isDirectory: true)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw ExportError(message: "--data-dir \(configuration.dataDirectory): no such folder")
    }
    guard
      FileManager.default.fileExists(atPath: directory.appendingPathComponent(WellflowDatabase.fileName).path)
    else {
      throw ExportError(
        message:
          "--data-dir \(configuration.dataDirectory) holds no Wellflow data (no \(WellflowDatabase.fileName)); "
          + "give the folder `wellflow run --data-dir` wrote")
    }
    // Read only: an export changes nothing in the folder (data an older version wrote is
    // brought up to date in memory).
    let database: WellflowDatabase
    do {
      database = try WellflowDatabase.openForReading(
        directory: directory, schema: configuration.schema, legacyTimeZone: configuration.timeZone)
    } catch WellflowDatabase.ReadError.newerVersion(_, let unknown) {
      throw ExportError(
        message:
          "--data-dir \(configuration.dataDirectory) was written by a newer wellflow (its data has changes "
          + "this version does not know: \(unknown.joined(separator: ", "))); export it with that version or a newer one"
      )
    }
    var records: [ExportRecord] = []
    for export in exports(of: configuration.schema) {
      records += try await export.read(database, configuration.userID, interval).map {
        ExportRecord(type: export.type, row: $0)
      }
    }
    // Stable: the features' entries of the same instant in the app's order (moods before
    // journal entries), each in its own order.
    return records.enumerated().sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }
      .map(\.element)
  }

  /// The features' exports, in the app's order.
  public static var exports: [FeatureExport] { exports(of: WellflowFeatures.schema) }

  /// The exports of the features `schema` is made of, in its order.
  public static func exports(of schema: SQLiteSchema) -> [FeatureExport] {
    schema.features.compactMap(\.export)
  }

  /// The records as `format`; `exports` are the registrations whose columns the CSV has.
  public static func render(
    _ records: [ExportRecord], format: ExportConfiguration.Format, timeZone: TimeZone,
    exports: [FeatureExport] = exports
  ) -> String {
    switch format {
    case .csv: csv(records, timeZone: timeZone, exports: exports)
    case .json: json(records, timeZone: timeZone)
    }
  }

  /// `type`, `date`, then every feature's columns in the app's order, each once.
  public static func csvHeader(_ exports: [FeatureExport]) -> [String] {
    var header = ["type", "date"]
    for column in exports.flatMap(\.columns) where !header.contains(column) { header.append(column) }
    return header
  }

  /// RFC 4180: CRLF after every record, a field quoted when it holds a comma, a quote,
  /// CR or LF, quotes inside doubled. Labels and associations are `;`-separated.
  static func csv(_ records: [ExportRecord], timeZone: TimeZone, exports: [FeatureExport]) -> String {
    let header = csvHeader(exports)
    var lines = [header.joined(separator: ",")]
    for record in records {
      var fields = [record.type, timestamp(record.date, in: timeZone)]
      for column in header.dropFirst(2) {
        switch record.row.values[column] ?? .none {
        case .text(let text): fields.append(text)
        case .integer(let number): fields.append(String(number))
        case .decimal(let number): fields.append(String(number))
        case .list(let items): fields.append(items.joined(separator: ";"))
        case .none: fields.append("")
        }
      }
      lines.append(fields.map(csvField).joined(separator: ","))
    }
    return lines.map { $0 + "\r\n" }.joined()
  }

  /// A field of the export's CSV (`FlowKit.csvField`).
  public static func csvField(_ text: String) -> String { FlowKit.csvField(text) }

  /// A JSON array, one object per entry and line, keys sorted: `type`, `date` and the
  /// entry's feature's columns; absent values are `null`.
  static func json(_ records: [ExportRecord], timeZone: TimeZone) -> String {
    let objects: [[String: Any]] = records.map { record in
      var object: [String: Any] = ["type": record.type, "date": timestamp(record.date, in: timeZone)]
      for (column, value) in record.row.values {
        switch value {
        case .text(let text): object[column] = text
        case .integer(let number): object[column] = number
        case .decimal(let number): object[column] = number
        case .list(let items): object[column] = items
        case .none: object[column] = NSNull()
        }
      }
      return object
    }
    // Strings, numbers, arrays and null only: serializing cannot fail. One object a
    // line, so a large export stays readable and diffable.
    let lines = objects.map { object in
      String(
        decoding: (try? JSONSerialization.data(
          withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
          ?? Data("{}".utf8), as: UTF8.self)
    }
    return lines.isEmpty ? "[]\n" : "[\n" + lines.joined(separator: ",\n") + "\n]\n"
  }

  /// `YYYY-MM-DDTHH:MM:SS±HH:MM`, the local time in `timeZone` and its offset then.
  public static func timestamp(_ date: Date, in timeZone: TimeZone) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let parts = calendar.dateComponents([.hour, .minute, .second], from: date)
    let offset = timeZone.secondsFromGMT(for: date)
    let sign = offset < 0 ? "-" : "+"
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let minutes = abs(offset) / 60
    return
      "\(CalendarDay(date, in: calendar))T\(two(parts.hour ?? 0)):\(two(parts.minute ?? 0)):\(two(parts.second ?? 0))"
      + "\(sign)\(two(minutes / 60)):\(two(minutes % 60))"
  }
}
