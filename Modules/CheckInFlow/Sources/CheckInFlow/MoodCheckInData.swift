import FlowKit
import Foundation
import MoodTrackingDomain

/// What a completed check-in produced, as it was saved.
public struct MoodCheckInData: Sendable, Equatable, FlowFollowUp {
  /// The saved mood entry (for a repeated daily check-in, the day's one entry).
  public var entryID: UUID
  public var score: Int
  public var valence: Double
  /// The primary emotion; nil only for a variant without the Naming step.
  public var emotion: MoodLabel?
  /// The labels as saved: the emotion first, then the others (or the score's default
  /// labels when no label was chosen).
  public var labels: [MoodLabel]
  public var prompt: ReflectionPrompt?
  /// The written reflection, trimmed; saved as the entry's notes.
  public var response: String?
  public var associations: [MoodAssociation]
  public var evaluation: MoodEvaluation?
  public var kind: MoodKind
  public var trigger: FlowTrigger
  public var variant: String
  public var date: Date
  /// The journal when the person finished with `journal`: the host presents it next.
  public var nextFlow: FlowRequest?
  /// What steps from other modules contributed (`data.contributions[Key.self]`).
  public var contributions: CheckInContributions

  public init(
    entryID: UUID, score: Int, valence: Double, emotion: MoodLabel?, labels: [MoodLabel],
    prompt: ReflectionPrompt?, response: String?, associations: [MoodAssociation],
    evaluation: MoodEvaluation?, kind: MoodKind, trigger: FlowTrigger, variant: String, date: Date,
    nextFlow: FlowRequest? = nil, contributions: CheckInContributions = CheckInContributions()
  ) {
    self.entryID = entryID
    self.score = score
    self.valence = valence
    self.emotion = emotion
    self.labels = labels
    self.prompt = prompt
    self.response = response
    self.associations = associations
    self.evaluation = evaluation
    self.kind = kind
    self.trigger = trigger
    self.variant = variant
    self.date = date
    self.nextFlow = nextFlow
    self.contributions = contributions
  }

  /// The emotion as a person reads it.
  public var emotionDisplayName: String? { emotion?.displayName }

  public var valenceClass: ValenceClass? { ValenceClass(valence: valence) }

  public var wantsJournal: Bool { nextFlow != nil }
}
