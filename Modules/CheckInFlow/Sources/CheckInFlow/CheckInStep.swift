import FlowKit
import MoodTrackingDomain

/// What a step shows: the coordinator adds the id, progress, alert and navigation.
public struct CheckInPage: Sendable, Equatable {
  public var title: String
  public var message: String?
  public var elements: [Element]

  public init(title: String, message: String? = nil, elements: [Element]) {
    self.title = title
    self.message = message
    self.elements = elements
  }
}

/// What a step asks the coordinator to do after an action.
public enum CheckInStepOutcome: Sendable, Equatable {
  /// Stay, and run this work through the app's ports (a load, a lookup); the screen
  /// updates when it has finished.
  case perform(CheckInStepWork)
  /// The draft may have changed; the step stays.
  case stay
  /// On to the next step (from an intro step: the person began the check-in).
  case next
  /// Save the check-in and end the flow; `journal` asks for the journal next.
  case finish(journal: Bool)
  /// End the flow at once, saving nothing.
  case cancel
}

/// One screen of the check-in. A variant is a list of steps, so a new variant or a
/// new kind of step is a new value, never an edit of the steps that exist.
///
/// Steps are plain values: they read the draft to build their page and change it in
/// `handle`. Back, close, the exit confirmation, saving and progress belong to the
/// coordinator, so every step gets them the same way.
public protocol CheckInStep: Sendable {
  /// The name variant lists use (`sensing`).
  var name: String { get }
  var screenID: String { get }
  /// Every element id the page can show, declared up front for scripts.
  var elementIDs: [String] { get }
  /// Alerts the step raises itself (the coordinator declares its own).
  var alerts: [AlertDeclaration] { get }
  /// The elements a person types into; reports show their values as lengths only.
  var textFieldIDs: [String] { get }
  /// The option ids of each choice whose options never change, for checking scripts
  /// before they run (`ScreenDeclaration.options`).
  var optionIDs: [String: [String]] { get }
  /// An intro (the Pet) is not counted in progress, is shown only until the person
  /// once began, and `close` on it cancels without asking.
  var isIntro: Bool { get }

  func page(for draft: CheckInDraft) -> CheckInPage
  /// Handles an action the screen already accepted (see `Screen.validate`); `back`
  /// and `close` never reach a step.
  func handle(_ action: UserAction, draft: inout CheckInDraft) -> CheckInStepOutcome
  /// Keeps what the step contributed once the mood is saved (`entry`), through the
  /// app's ports; the check-in completes after every step's save. A failure shows
  /// `checkin.error` on Acting, and trying again does not save the mood twice.
  func save(_ draft: CheckInDraft, entry: MoodEntry, services: Services) async throws
}

extension CheckInStep {
  public var alerts: [AlertDeclaration] { [] }
  public var textFieldIDs: [String] { [] }
  public var optionIDs: [String: [String]] { [:] }
  public func save(_ draft: CheckInDraft, entry: MoodEntry, services: Services) async throws {}
  public var isIntro: Bool { false }
}

extension Element {
  /// The `continue` every input step ends with; disabled until the step's required
  /// input is given.
  public static func continueButton(enabled: Bool = true) -> Element {
    .button("continue", "Continue", enabled: enabled)
  }
}
