import FlowKit
import Foundation

/// Writes analytics events to a file, one JSON object a line. Each line is
/// written whole, so a crash loses at most the event being written. A line that cannot
/// be written (a full disk) is kept as `failure`, and nothing more is written.
public final class NDJSONAnalyticsSink: AnalyticsSink {
  private let file: OutputFile
  private let firstFailure = Locked<WriteFailure?>(nil)

  /// A new file at `path` (an existing one is emptied, so a report never mixes an earlier
  /// population into this one), or with `append` the events added after what it holds.
  public init(path: String, append: Bool = false) throws(WriteFailure) {
    file = try OutputFile.open(path, appending: append, as: "events")
  }

  deinit { file.close() }

  /// The first write that failed; the run reports it and stops.
  public var failure: WriteFailure? { firstFailure.current }

  public func record(_ event: AnalyticsEvent) {
    let line = Self.line(for: event) + "\n"
    // Under the lock, so lines of events recorded at once never interleave.
    firstFailure.withLock { failure in
      guard failure == nil else { return }
      do throws(WriteFailure) { try file.write(line) } catch { failure = error }
    }
  }

  /// `ts` in UTC to the millisecond (`2026-03-02T07:00:04.250Z`): events of one step
  /// are milliseconds apart. Spelled from whole milliseconds, so a stamp never rounds
  /// onto the one before it.
  public static func timestamp(_ date: Date) -> String {
    let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
    let seconds = (milliseconds / 1000).rounded(.down)
    guard let fraction = Int(exactly: milliseconds - seconds * 1000) else {
      return Timestamp.string(from: date)
    }
    let whole = Timestamp.string(from: Date(timeIntervalSince1970: seconds))
    let digits = String(fraction)
    return whole.dropLast() + "." + String(repeating: "0", count: max(0, 3 - digits.count)) + digits + "Z"
  }

  /// The event as one JSON object: `ts`, `user`, `event`, `flow`, `variant`, then fields.
  public static func line(for event: AnalyticsEvent) -> String {
    var object: [String: Any] = [
      "ts": timestamp(event.ts), "user": event.user, "event": event.event,
    ]
    if let flow = event.flow { object["flow"] = flow }
    if let variant = event.variant { object["variant"] = variant }
    for (key, value) in event.fields where object[key] == nil {
      switch value {
      case .string(let text): object[key] = text
      case .number(let number): object[key] = number
      case .bool(let bool): object[key] = bool
      }
    }
    let data =
      (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
      ?? Data()
    return String(decoding: data, as: UTF8.self)
  }
}

/// Sends each event to several sinks.
public struct FanOutAnalyticsSink: AnalyticsSink {
  public let sinks: [any AnalyticsSink]
  public init(_ sinks: [any AnalyticsSink]) { self.sinks = sinks }
  public func record(_ event: AnalyticsEvent) { for sink in sinks { sink.record(event) } }
  public var isRecording: Bool { sinks.contains { $0.isRecording } }
}

/// Adds fields to every event before passing it on: `wellflow run` marks its events
/// `source: script`, so a report can say its data was simulated.
public struct TaggingAnalyticsSink: AnalyticsSink {
  public let base: any AnalyticsSink
  public let fields: [String: EventValue]

  public init(_ base: any AnalyticsSink, fields: [String: EventValue]) {
    self.base = base
    self.fields = fields
  }

  public func record(_ event: AnalyticsEvent) {
    var event = event
    event.fields.merge(fields) { own, _ in own }
    base.record(event)
  }

  public var isRecording: Bool { base.isRecording }
}
