import FlowKit
import Foundation

/// A state as the explorer tells states apart: the screen after settling with the time
/// to the next pending timer, or the ending.
struct Observation {
  var fingerprint: String
  /// The graph node: the screen id, `screen + alert`, or the outcome.
  var node: String
  var screen: Screen?
  var ending: FlowEnding.Outcome?
  /// Seconds to the next timer a flow scheduled on the host's clock; nil when none is pending.
  var timer: Double?

  /// The state as option classes compare it (see `Replay.shape`).
  func shape(ignoring element: String) -> String {
    guard let screen else { return fingerprint }
    return Replay.shape(screen, ignoring: element) + (timer.map { "\u{1F}timer \($0)" } ?? "")
  }
}

extension FlowExplorer {
  /// How a state differs from another, in a few words.
  static func change(from before: Observation, to after: Observation) -> String {
    if let ending = after.ending { return "the flow \(ending.rawValue)" }
    guard let old = before.screen, let new = after.screen else { return "the flow is gone" }
    if old.id != new.id { return "the screen became \(new.id)" }
    if old.alert?.id != new.alert?.id {
      return "alert \(old.alert?.id ?? "none") became \(new.alert?.id ?? "none")"
    }
    for element in new.elements {
      guard let previous = old.element(element.id) else { return "element '\(element.id)' appeared" }
      if previous.value != element.value {
        return "'\(element.id)' changed from \(previous.value) to \(element.value)"
      }
      if previous.isEnabled != element.isEnabled {
        return "'\(element.id)' became \(element.isEnabled ? "enabled" : "disabled")"
      }
    }
    return "the screen changed"
  }
}
