import FlowKit
import Foundation
import WellflowScript

/// One app, replayed along a path.
@MainActor
final class Replay {
  enum Outcome {
    case accepted
    case refused(ActionError)
    case failed(HostError)
  }

  let session: AppSession
  let host: FlowHost
  let probe: FlowProbe

  init(session: AppSession, host: FlowHost, probe: FlowProbe) {
    self.session = session
    self.host = host
    self.probe = probe
  }

  func apply(_ step: ExploreStep) async -> Outcome {
    let outcome: Outcome
    switch step {
    case .action(let action):
      do {
        try host.send(action)
        outcome = .accepted
      } catch {
        if case .action(let refusal) = error { outcome = .refused(refusal) } else { outcome = .failed(error) }
      }
    case .advance(let seconds):
      await host.advanceClock(to: session.clock.now.addingTimeInterval(seconds))
      outcome = .accepted
    }
    await host.settle()
    return outcome
  }

  func observe() -> Observation {
    if let ending = probe.endings.first {
      return Observation(
        fingerprint: "ended \(ending.outcome.rawValue)", node: ending.outcome.rawValue, screen: nil,
        ending: ending.outcome)
    }
    guard let top = host.top, let wrapper = probe.wrapper, top.coordinator === wrapper,
      let screen = host.screen
    else {
      return Observation(fingerprint: "gone", node: "gone", screen: nil, ending: nil)
    }
    let timer = host.nextTimerDate.map { max(0, $0.timeIntervalSince(session.clock.now)) }
    return Observation(
      fingerprint: Self.fingerprint(screen) + (timer.map { "\u{1F}timer \($0)" } ?? ""),
      node: screen.alert.map { "\(screen.id) + \($0.id)" } ?? screen.id,
      screen: screen, ending: nil, timer: timer)
  }

  /// Ends the app; a flow still running is cancelled as when the app quits.
  func close() { session.close() }

  /// Everything a screen shows, as one string.
  static func fingerprint(_ screen: Screen) -> String {
    let separator = "\u{1F}"
    var parts = [
      screen.id, screen.title, screen.message ?? "\u{0}", screen.progress?.description ?? "",
      "\(screen.canGoBack)\(screen.canClose)",
    ]
    for element in screen.elements {
      var kind: String
      switch element.kind {
      case .button: kind = "b"
      case .choice(let options, let multiple):
        kind = (multiple ? "m" : "c") + options.map { "\($0.id)=\($0.label)" }.joined(separator: "\u{1E}")
      case .text(let limit): kind = "t\(limit)"
      case .slider(let range, let step, let caption):
        kind = "s\(range.lowerBound)...\(range.upperBound)/\(step)/\(caption ?? "")"
      case .toggle: kind = "o"
      case .info: kind = "i"
      }
      parts.append(
        "\(element.id)\u{1E}\(element.label)\u{1E}\(kind)\u{1E}\(element.isEnabled)\u{1E}\(element.value)")
    }
    if let alert = screen.alert {
      parts.append(
        "alert \(alert.id)\u{1E}\(alert.title)\u{1E}\(alert.message)\u{1E}"
          + alert.buttons.map { "\($0.id)=\($0.label)" }.joined(separator: "\u{1E}"))
    }
    return parts.joined(separator: separator)
  }

  /// A screen without the text a person reads (title, message, labels, option and
  /// button labels, slider captions, info values, the alert's title and message) and
  /// without `element`'s value: what must be equal for options to be alike. Ids,
  /// kinds, option ids, ranges, enabled flags, the other inputs' values, the alert's
  /// id and buttons, progress, back and close all count.
  nonisolated static func shape(_ screen: Screen, ignoring ignored: String) -> String {
    var parts = [screen.id, screen.progress?.description ?? "", "\(screen.canGoBack)\(screen.canClose)"]
    for element in screen.elements {
      var kind: String
      switch element.kind {
      case .button: kind = "b"
      case .choice(let options, let multiple):
        kind = (multiple ? "m" : "c") + options.map(\.id).joined(separator: "\u{1E}")
      case .text(let limit): kind = "t\(limit)"
      case .slider(let range, let step, _): kind = "s\(range.lowerBound)...\(range.upperBound)/\(step)"
      case .toggle: kind = "o"
      case .info: kind = "i"
      }
      let value = element.id == ignored || element.kind == .info ? "" : element.value.description
      parts.append("\(element.id)\u{1E}\(kind)\u{1E}\(element.isEnabled)\u{1E}\(value)")
    }
    if let alert = screen.alert {
      parts.append("alert \(alert.id)\u{1E}" + alert.buttons.map(\.id).joined(separator: "\u{1E}"))
    }
    return parts.joined(separator: "\u{1F}")
  }
}
