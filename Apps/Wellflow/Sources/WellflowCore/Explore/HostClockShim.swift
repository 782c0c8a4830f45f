import FlowKit
import Foundation

// Removed when FlowHost gets its timers: FlowHost.nextTimerDate and
// FlowHost.advanceClock(to:) are being added to FlowKit; until then no flow can
// schedule a timer, so the explorer never offers to advance the clock.
extension FlowHost {
  /// The earliest pending timer a flow scheduled on the host's clock; nil if none.
  var nextTimerDate: Date? { nil }

  /// Moves the clock to `date`, fires due timers in order and settles.
  func advanceClock(to date: Date) async {}
}
