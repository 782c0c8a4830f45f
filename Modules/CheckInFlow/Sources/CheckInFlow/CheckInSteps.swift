import FlowKit
import MoodTrackingDomain

/// The Pet greets the person before their first check-in.
public struct PetStep: CheckInStep {
  public let name = "pet"
  public let screenID = "checkin.pet"
  public let elementIDs = ["begin", "close"]
  public let isIntro = true

  public init() {}

  public func page(for draft: CheckInDraft) -> CheckInPage {
    CheckInPage(
      title: "Hi, I'm Pip",
      message: "I'll keep you company while you notice how you feel. It takes about a minute.",
      elements: [.button("begin", "Let's begin"), .button("close", "Not now")])
  }

  public func handle(_ action: UserAction, draft: inout CheckInDraft) -> CheckInStepOutcome {
    switch action {
    case .tap("begin"): .next
    case .tap("close"): .cancel
    default: .stay
    }
  }
}

/// How pleasant does it feel, 1…10; the caption names the valence class.
public struct SensingStep: CheckInStep {
  public let name = "sensing"
  public let screenID = "checkin.sensing"
  public let elementIDs = ["score", "continue"]

  public init() {}

  public func page(for draft: CheckInDraft) -> CheckInPage {
    let scores = MoodLimits.scores
    return CheckInPage(
      title: "How are you feeling right now?",
      message: "From very unpleasant to very pleasant.",
      elements: [
        .slider(
          "score", "How pleasant", range: Double(scores.lowerBound)...Double(scores.upperBound), step: 1,
          value: Double(draft.score), caption: draft.valenceClass.displayName),
        .continueButton(),
      ])
  }

  public func handle(_ action: UserAction, draft: inout CheckInDraft) -> CheckInStepOutcome {
    switch action {
    case .set("score", let value):
      draft.score = Int(value)
      return .stay
    case .tap("continue"): return .next
    default: return .stay
    }
  }
}

/// Names the feeling: one emotion (required), more labels if the person likes.
public struct NamingStep: CheckInStep {
  public let name = "naming"
  public let screenID = "checkin.naming"
  public let elementIDs = ["emotion", "labels", "continue"]
  public let optionIDs = [
    "emotion": MoodLabel.allCases.map(\.rawValue), "labels": MoodLabel.allCases.map(\.rawValue),
  ]

  public init() {}

  /// Labels that fit the score's valence class first, then the rest in their usual order.
  public static func orderedLabels(forScore score: Int) -> [MoodLabel] {
    var draft = CheckInDraft()
    draft.score = score
    let fitting = draft.valenceClass.fittingLabels
    return fitting + MoodLabel.allCases.filter { !fitting.contains($0) }
  }

  /// The options for each score, made once: the screen is read after every action.
  private static let optionsByScore: [Int: [ChoiceOption]] = Dictionary(
    uniqueKeysWithValues: MoodLimits.scores.map { score in
      (score, orderedLabels(forScore: score).map { ChoiceOption(id: $0.rawValue, label: $0.displayName) })
    })

  public func page(for draft: CheckInDraft) -> CheckInPage {
    let options =
      Self.optionsByScore[draft.score]
      ?? Self.orderedLabels(forScore: draft.score).map {
        ChoiceOption(id: $0.rawValue, label: $0.displayName)
      }
    return CheckInPage(
      title: "Which word fits best?",
      message: "Feelings that fit \"\(draft.valenceClass.displayName)\" come first.",
      elements: [
        .singleChoice("emotion", "Emotion", options: options, selected: draft.emotion?.rawValue),
        .multipleChoice("labels", "Anything else?", options: options, selected: draft.labels.map(\.rawValue)),
        .continueButton(enabled: draft.emotion != nil),
      ])
  }

  public func handle(_ action: UserAction, draft: inout CheckInDraft) -> CheckInStepOutcome {
    switch action {
    case .select("emotion", let ids):
      draft.emotion = ids.first.flatMap(MoodLabel.init(rawValue:))
      return .stay
    case .select("labels", let ids):
      draft.labels = ids.compactMap(MoodLabel.init(rawValue:))
      return .stay
    case .tap("continue"): return .next
    default: return .stay
    }
  }
}

/// A few words on the feeling, optionally answering a prompt; saved as the notes.
public struct ShapingStep: CheckInStep {
  public let name = "shaping"
  public let screenID = "checkin.shaping"
  public let elementIDs = ["prompt", "response", "continue"]
  public let textFieldIDs = ["response"]
  public let optionIDs = ["prompt": ReflectionPrompt.allCases.map(\.rawValue)]

  public init() {}

  public func page(for draft: CheckInDraft) -> CheckInPage {
    CheckInPage(
      title: "Put it into words",
      message: draft.prompt?.question ?? "Pick a question if it helps, or write freely. Both are optional.",
      elements: [
        .singleChoice(
          "prompt", "A question to start from",
          options: ReflectionPrompt.allCases.map { ChoiceOption(id: $0.rawValue, label: $0.question) },
          selected: draft.prompt?.rawValue),
        .text("response", "Your words", limit: MoodLimits.maxNotesLength, text: draft.response),
        .continueButton(),
      ])
  }

  public func handle(_ action: UserAction, draft: inout CheckInDraft) -> CheckInStepOutcome {
    switch action {
    case .select("prompt", let ids):
      draft.prompt = ids.first.flatMap(ReflectionPrompt.init(rawValue:))
      return .stay
    case .enter("response", let text):
      draft.response = text
      return .stay
    case .tap("continue"): return .next
    default: return .stay
    }
  }
}

/// What the feeling relates to (HealthKit's 18 associations), optional.
public struct AttributingStep: CheckInStep {
  public let name = "attributing"
  public let screenID = "checkin.attributing"
  public let elementIDs = ["associations", "continue"]
  public let optionIDs = ["associations": MoodAssociation.allCases.map(\.rawValue)]

  public init() {}

  public func page(for draft: CheckInDraft) -> CheckInPage {
    CheckInPage(
      title: "What is it about?",
      message: "Choose any that play a part.",
      elements: [
        .multipleChoice(
          "associations", "Related to",
          options: MoodAssociation.allCases.map { ChoiceOption(id: $0.rawValue, label: $0.displayName) },
          selected: draft.associations.map(\.rawValue)),
        .continueButton(),
      ])
  }

  public func handle(_ action: UserAction, draft: inout CheckInDraft) -> CheckInStepOutcome {
    switch action {
    case .select("associations", let ids):
      draft.associations = ids.compactMap(MoodAssociation.init(rawValue:))
      return .stay
    case .tap("continue"): return .next
    default: return .stay
    }
  }
}

/// How the person meets the feeling (required).
public struct EvaluatingStep: CheckInStep {
  public let name = "evaluating"
  public let screenID = "checkin.evaluating"
  public let elementIDs = ["evaluation", "continue"]
  public let optionIDs = ["evaluation": MoodEvaluation.allCases.map(\.rawValue)]

  public init() {}

  public func page(for draft: CheckInDraft) -> CheckInPage {
    CheckInPage(
      title: "How are you meeting this feeling?",
      message: "There's no right answer.",
      elements: [
        .singleChoice(
          "evaluation", "Right now",
          options: MoodEvaluation.allCases.map { ChoiceOption(id: $0.rawValue, label: $0.displayName) },
          selected: draft.evaluation?.rawValue),
        .continueButton(enabled: draft.evaluation != nil),
      ])
  }

  public func handle(_ action: UserAction, draft: inout CheckInDraft) -> CheckInStepOutcome {
    switch action {
    case .select("evaluation", let ids):
      draft.evaluation = ids.first.flatMap(MoodEvaluation.init(rawValue:))
      return .stay
    case .tap("continue"): return .next
    default: return .stay
    }
  }
}

/// The summary, and the two ways to finish: save, or save and journal.
public struct ActingStep: CheckInStep {
  public let name = "acting"
  public let screenID = "checkin.acting"
  public let elementIDs = [
    "summary.score", "summary.feeling", "summary.emotion", "summary.labels", "summary.associations",
    "summary.evaluation", "complete", "journal",
  ]
  public let alerts = [AlertDeclaration(MoodCheckInCoordinator.errorAlertID, buttons: ["ok"])]

  public init() {}

  /// The response is left out on purpose: screens end up in failure reports and logs.
  public func page(for draft: CheckInDraft) -> CheckInPage {
    var elements: [Element] = [
      .info("summary.score", "Score", value: .number(Double(draft.score))),
      .info("summary.feeling", "Feeling", value: .text(draft.valenceClass.displayName)),
    ]
    if let emotion = draft.emotion {
      elements.append(.info("summary.emotion", "Emotion", value: .text(emotion.displayName)))
    }
    let others = draft.savedLabels.dropFirst(draft.emotion == nil ? 0 : 1)
    if !others.isEmpty {
      elements.append(
        .info("summary.labels", "Also", value: .text(others.map(\.displayName).joined(separator: ", "))))
    }
    if !draft.associations.isEmpty {
      elements.append(
        .info(
          "summary.associations", "Related to",
          value: .text(draft.associations.map(\.displayName).joined(separator: ", "))))
    }
    if let evaluation = draft.evaluation {
      elements.append(.info("summary.evaluation", "Meeting it", value: .text(evaluation.displayName)))
    }
    elements += [.button("complete", "Done"), .button("journal", "Done, and write in my journal")]
    return CheckInPage(
      title: "Here's your check-in", message: "Thank you for taking a moment for yourself.",
      elements: elements)
  }

  public func handle(_ action: UserAction, draft: inout CheckInDraft) -> CheckInStepOutcome {
    switch action {
    case .tap("complete"): .finish(journal: false)
    case .tap("journal"): .finish(journal: true)
    default: .stay
    }
  }
}
