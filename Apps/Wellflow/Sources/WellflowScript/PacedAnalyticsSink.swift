import FlowKit
import Foundation

/// Stamps the events of one script run at a person's pace.
///
/// A script's clock stands still between `advance:` steps, so the app stamps every event
/// of a run with the same time. This sink moves only the stamps: each step a person
/// takes (`launch`, `tap`, `enter`, …) adds a think time to an offset that every later
/// event's time carries, and events stay in the order they happen, at least a
/// millisecond apart (several events of one step: the app answering at once). The app's
/// clock, and so everything the app decides by time (timers, reminders, dates of
/// entries, days since the first launch), is untouched; `advance: 1d` still moves the
/// stamps by exactly one day. Think times are drawn from the run's `--seed`, the user
/// and the step's place in its file, so the same run stamps the same times.
public final class PacedAnalyticsSink: AnalyticsSink {
  public let base: any AnalyticsSink
  /// The think time added so far, and the last stamp given, in whole milliseconds.
  private let state = Locked<(offset: Int64, last: Int64?)>((0, nil))

  public init(_ base: any AnalyticsSink) { self.base = base }

  /// Adds `seconds` of a person's time before the events still to come.
  public func pause(_ seconds: Double) {
    guard seconds.isFinite, seconds > 0 else { return }
    state.withLock { $0.offset &+= Self.milliseconds(seconds * 1000) }
  }

  public func record(_ event: AnalyticsEvent) {
    var event = event
    let milliseconds = state.withLock { state -> Int64 in
      var stamp = Self.milliseconds(event.ts.timeIntervalSince1970 * 1000) &+ state.offset
      if let last = state.last, stamp <= last { stamp = last &+ 1 }
      state.last = stamp
      return stamp
    }
    event.ts = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    base.record(event)
  }

  public var isRecording: Bool { base.isRecording }

  /// A count of milliseconds, rounded to a whole one and held within Int64 (script
  /// clocks stay within years 1970–9999, so dates never reach the bounds).
  static func milliseconds(_ value: Double) -> Int64 {
    Int64(exactly: value.rounded()) ?? (value > 0 ? .max : .min)
  }
}
