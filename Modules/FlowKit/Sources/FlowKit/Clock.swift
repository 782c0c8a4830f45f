import Foundation

/// The time and calendar a flow sees. Features never read the wall clock: a headless
/// runner controls this port, an app passes `SystemClock`.
public protocol FlowClock: Sendable {
  var now: Date { get }
  /// The user's calendar; its `timeZone` is the user's time zone.
  var calendar: Calendar { get }
}

extension FlowClock {
  public var timeZone: TimeZone { calendar.timeZone }

  /// The user's calendar day of `date` (midnight at its start, in the user's zone).
  public func startOfDay(_ date: Date) -> Date { calendar.startOfDay(for: date) }
}

/// The real clock of a device.
public struct SystemClock: FlowClock {
  public let calendar: Calendar
  public init(calendar: Calendar = .current) { self.calendar = calendar }
  public var now: Date { Date() }
}

/// A clock the host may move (a runner's): `FlowHost.advanceClock(to:)` sets it to each
/// timer's date in turn.
public protocol AdjustableClock: FlowClock {
  func set(_ date: Date)
}

/// A clock that only moves when told to: the runner's clock.
public final class ManualClock: AdjustableClock {
  private let state: Locked<Date>
  public let calendar: Calendar

  public init(now: Date, calendar: Calendar) {
    self.calendar = calendar
    self.state = Locked(now)
  }

  public convenience init(now: Date, timeZone: TimeZone) {
    self.init(now: now, calendar: Self.gregorian(in: timeZone))
  }

  /// A Gregorian calendar in `timeZone` with a fixed locale, so results do not depend
  /// on the machine's settings.
  public static func gregorian(in timeZone: TimeZone) -> Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    calendar.locale = Locale(identifier: "en_US_POSIX")
    return calendar
  }

  public var now: Date { state.current }

  /// Moves by an exact duration.
  public func advance(by seconds: TimeInterval) {
    state.withLock { $0 = $0.addingTimeInterval(seconds) }
  }

  /// Moves by calendar days at the same local time (across DST changes).
  public func advance(days: Int) {
    state.withLock { now in
      now =
        calendar.date(byAdding: .day, value: days, to: now) ?? now.addingTimeInterval(Double(days) * 86_400)
    }
  }

  public func set(_ date: Date) { state.withLock { $0 = date } }
}

/// Pauses that exist only for animation (an alert's dismissal). A headless run
/// passes `ImmediatePresentationClock`, so these never wait and never move time.
public protocol PresentationClock: Sendable {
  func pause(seconds: Double) async
}

public struct ImmediatePresentationClock: PresentationClock {
  public init() {}
  public func pause(seconds: Double) async {}
}
