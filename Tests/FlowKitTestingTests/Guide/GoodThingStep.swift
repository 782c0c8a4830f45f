// A worked example of the plugin guide (FlowKit.docc/PluginGuide.md): the page shows this code, and
// GuideDocumentationTests checks that it still does, word for word.

import CheckInFlow
import FlowKit

/// The step's own data: the good thing typed, kept in the draft (so `back` and forward
/// again find it) and carried by the check-in's output (`data.contributions`).
public enum GoodThing: CheckInDataKey {
  public typealias Value = String
}

/// One good thing, typed before the check-in ends.
public struct GoodThingStep: CheckInStep {
  public let name = "goodThing"
  public let screenID = "checkin.goodThing"
  public let elementIDs = ["goodThing", "continue"]
  public let textFieldIDs = ["goodThing"]

  public init() {}

  public func page(for draft: CheckInDraft) -> CheckInPage {
    let text = draft[GoodThing.self] ?? ""
    return CheckInPage(
      title: "One good thing today",
      elements: [
        .text("goodThing", "Something that went well", limit: 120, text: text),
        .continueButton(enabled: !text.trimmingCharacters(in: .whitespaces).isEmpty),
      ])
  }

  public func handle(_ action: UserAction, draft: inout CheckInDraft) -> CheckInStepOutcome {
    switch action {
    case .enter("goodThing", let text):
      draft[GoodThing.self] = text
      return .stay
    case .tap("continue"): return .next
    default: return .stay
    }
  }
}

extension CheckInVariant {
  /// Sensing, naming, the good thing, acting.
  public static let grateful = CheckInVariant(
    name: "grateful", steps: [SensingStep(), NamingStep(), GoodThingStep(), ActingStep()])
}

/// Adds the variant to the check-in another feature registered: list it after
/// `CheckInFeature`.
public enum GratefulCheckInFeature: FlowFeature {
  public static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try CheckInFeature.registerVariant(.grateful, in: &registry)
  }
}
