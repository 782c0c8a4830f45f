import FlowKit
import Foundation

extension FlowExplorer {
  /// What the screen offers, one action or one choice's options at a time.
  enum Offer: Equatable {
    case step(ExploreStep)
    /// Each option of a choice chosen alone, tried in classes.
    case options(element: String, [UserAction])
  }

  /// What the screen offers: enabled buttons, each option of a single choice, none and
  /// each option of a multiple choice, sliders at min/mid/max, text short and empty,
  /// toggles both ways, back and close where available; under an alert, its buttons.
  public static func offeredActions(on screen: Screen) -> [UserAction] {
    offers(on: screen).flatMap { offer -> [UserAction] in
      switch offer {
      case .step(.action(let action)): [action]
      case .step(.advance): []
      case .options(_, let actions): actions
      }
    }
  }

  static func offers(on screen: Screen) -> [Offer] {
    if let alert = screen.alert { return alert.buttons.map { .step(.tap($0.id)) } }
    var offers: [Offer] = []
    for element in screen.elements where element.isEnabled {
      switch element.kind {
      case .button:
        offers.append(.step(.tap(element.id)))
      case .choice(let options, let multiple):
        if multiple { offers.append(.step(.select(element.id, []))) }
        let actions = options.map { UserAction.select(element.id, [$0.id]) }
        if !actions.isEmpty { offers.append(.options(element: element.id, actions)) }
      case .text(let limit):
        offers.append(.step(.enter(element.id, String(sampleText.prefix(limit)))))
        offers.append(.step(.enter(element.id, "")))
      case .slider(let range, let step, _):
        let middle =
          step > 0
          ? range.lowerBound + ((range.upperBound - range.lowerBound) / 2 / step).rounded(.down) * step
          : range.lowerBound
        var values: [Double] = []
        for value in [range.lowerBound, middle, range.upperBound] where !values.contains(value) {
          values.append(value)
        }
        offers += values.map { .step(.set(element.id, $0)) }
      case .toggle:
        offers += [.step(.toggle(element.id, true)), .step(.toggle(element.id, false))]
      case .info:
        break
      }
    }
    if screen.canGoBack { offers.append(.step(.back)) }
    if screen.canClose { offers.append(.step(.close)) }
    return offers
  }

  /// The actions that can lead off a screen: its enabled buttons, back and close;
  /// under an alert, the alert's buttons.
  static func navigationActions(on screen: Screen) -> [UserAction] {
    if let alert = screen.alert { return alert.buttons.map { .tap($0.id) } }
    var actions = screen.elements.filter { $0.isEnabled && $0.kind == .button }.map { UserAction.tap($0.id) }
    if screen.canGoBack { actions.append(.back) }
    if screen.canClose { actions.append(.close) }
    return actions
  }

  /// Actions the screen must refuse, each with the reason: an element not on screen,
  /// disabled elements, back/close where unavailable, values out of bounds; under an
  /// alert, anything but its buttons.
  public static func refusableActions(on screen: Screen) -> [(UserAction, String)] {
    var actions: [(UserAction, String)] = [
      (.tap(missingElement), "no element '\(missingElement)' is on screen")
    ]
    if let alert = screen.alert {
      let under = "alert \(alert.id) is up"
      if let action = screen.elements.lazy.compactMap(naturalAction).first { actions.append((action, under)) }
      actions += [(.back, under), (.close, under)]
      return actions
    }
    for element in screen.elements where !element.isEnabled {
      if let action = naturalAction(for: element) { actions.append((action, "'\(element.id)' is disabled")) }
    }
    if !screen.canGoBack { actions.append((.back, "back is not available")) }
    if !screen.canClose { actions.append((.close, "close is not available")) }
    let enabled = screen.elements.filter(\.isEnabled)
    for element in enabled {
      if case .text(let limit) = element.kind {
        actions.append(
          (
            .enter(element.id, String(repeating: "x", count: limit + 1)),
            "'\(element.id)' takes \(limit) characters"
          ))
        break
      }
    }
    for element in enabled {
      if case .slider(let range, let step, _) = element.kind {
        actions.append(
          (.set(element.id, range.upperBound + max(step, 1)), "'\(element.id)' ends at its maximum"))
        break
      }
    }
    for element in enabled {
      if case .choice = element.kind {
        actions.append((.select(element.id, [missingElement]), "'\(element.id)' has no such option"))
        break
      }
    }
    return actions
  }

  /// The first thing a person would do with an element.
  static func naturalAction(for element: Element) -> UserAction? {
    switch element.kind {
    case .button: .tap(element.id)
    case .choice(let options, _): options.first.map { .select(element.id, [$0.id]) }
    case .text: .enter(element.id, "x")
    case .slider(let range, _, _): .set(element.id, range.lowerBound)
    case .toggle: .toggle(element.id, true)
    case .info: nil
    }
  }
}
