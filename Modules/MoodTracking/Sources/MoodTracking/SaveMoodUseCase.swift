import FlowKit
import Foundation

/// What a person asks to save: a score and whatever else they gave.
public struct SaveMoodRequest: Sendable, Hashable {
  public var score: Int
  public var notes: String?
  /// nil means the default labels for the score.
  public var labels: [MoodLabel]?
  public var associations: [MoodAssociation]
  /// nil means now.
  public var date: Date?
  public var kind: MoodKind

  public init(
    score: Int, notes: String? = nil, labels: [MoodLabel]? = nil, associations: [MoodAssociation] = [],
    date: Date? = nil, kind: MoodKind = .dailyMood
  ) {
    self.score = score
    self.notes = notes
    self.labels = labels
    self.associations = associations
    self.date = date
    self.kind = kind
  }
}

public enum SaveMoodResult: Sendable, Hashable {
  case created(MoodEntry)
  case updated(MoodEntry)
  /// The same daily mood was already saved; nothing was written.
  case unchanged(MoodEntry)

  public var entry: MoodEntry {
    switch self {
    case .created(let entry), .updated(let entry), .unchanged(let entry): entry
    }
  }
}

/// Saves moods: validates, keeps one daily mood per calendar day, writes the entry and
/// its outbox row together, and mirrors user entries to the health store.
public struct SaveMoodUseCase: Sendable {
  private let repository: any MoodRepository
  private let clock: any FlowClock
  private let healthStore: (any StateOfMindStore)?
  private let currentUser: @Sendable () -> String?
  private let makeID: @Sendable () -> UUID

  public init(
    repository: any MoodRepository, clock: any FlowClock, healthStore: (any StateOfMindStore)? = nil,
    currentUser: @escaping @Sendable () -> String?, makeID: (@Sendable () -> UUID)? = nil
  ) {
    self.repository = repository
    self.clock = clock
    self.healthStore = healthStore
    self.currentUser = currentUser
    self.makeID = makeID ?? { [clock] in TimeOrderedID.make(at: clock.now) }
  }

  /// Checks a request without saving it, for screens that disable `save` while invalid.
  public func validate(_ request: SaveMoodRequest) throws(MoodError) {
    try MoodLimits.validate(score: request.score)
    _ = try MoodLimits.normalizedNotes(request.notes)
    if let date = request.date {
      let day = MoodDay(date, in: clock.calendar)
      guard day <= MoodDay(clock.now, in: clock.calendar) else { throw .futureDate(day) }
    }
  }

  public func save(_ request: SaveMoodRequest) async throws(MoodError) -> SaveMoodResult {
    guard let userID = currentUser() else { throw .userNotAuthenticated }
    try validate(request)
    let notes = try MoodLimits.normalizedNotes(request.notes)
    let now = clock.now
    let date = request.date ?? now
    var labels = request.labels ?? []
    if request.labels == nil { labels = try MoodTranslation.labels(forScore: request.score, notes: notes) }
    let draft = MoodEntry(
      id: makeID(), userID: userID, date: date, day: MoodDay(date, in: clock.calendar), score: request.score,
      valence: try MoodTranslation.valence(forScore: request.score), labels: labels,
      associations: request.associations, notes: notes, kind: request.kind, source: .userEntry,
      createdAt: now, updatedAt: now)

    let existing: MoodEntry?
    if request.kind == .dailyMood {
      existing = try await storage { try await repository.dailyMood(userID: userID, day: draft.day) }
    } else {
      existing = nil
    }
    let result: SaveMoodResult
    if let existing {
      guard !existing.hasSameContent(as: draft) else { return .unchanged(existing) }
      var updated = existing
      updated.date = draft.date
      updated.score = draft.score
      updated.valence = draft.valence
      updated.labels = draft.labels
      updated.associations = draft.associations
      updated.notes = draft.notes
      updated.updatedAt = now
      updated.syncStatus = .pending
      try await write(updated, operation: .update)
      result = .updated(updated)
    } else {
      try await write(draft, operation: .create)
      result = .created(draft)
    }
    await mirror(result.entry)
    return result
  }

  /// Saves what the health store holds: a sample not seen before becomes an entry; for a
  /// known sample (or another daily mood that day) the most recent change wins.
  public func save(sample: StateOfMindSample) async throws(MoodError) -> SaveMoodResult {
    guard let userID = currentUser() else { throw .userNotAuthenticated }
    let score = try MoodTranslation.score(forValence: sample.valence, labels: sample.labels)
    let day = MoodDay(sample.date, in: clock.calendar)
    var existing = try await storage { try await repository.entry(id: sample.id, userID: userID) }
    if existing == nil, sample.kind == .dailyMood {
      existing = try await storage { try await repository.dailyMood(userID: userID, day: day) }
    }
    guard var entry = existing else {
      let entry = MoodEntry(
        id: sample.id, userID: userID, date: sample.date, day: day, score: score, valence: sample.valence,
        labels: sample.labels, associations: sample.associations, kind: sample.kind, source: .healthStore,
        createdAt: clock.now, updatedAt: sample.updatedAt)
      try await write(entry, operation: .create)
      return .created(entry)
    }
    var incoming = entry
    incoming.date = sample.date
    incoming.day = day
    incoming.score = score
    incoming.valence = sample.valence
    incoming.labels = sample.labels
    incoming.associations = sample.associations
    incoming.kind = sample.kind
    let samePlace = entry.date == incoming.date
    if entry.hasSameContent(as: incoming) && samePlace {
      return .unchanged(entry)
    }
    guard sample.updatedAt > entry.updatedAt else {
      // The entry is the newer change: make the store agree with it.
      await mirror(entry)
      return .unchanged(entry)
    }
    // Taking the sample's time keeps the next import of the same sample a no-op.
    incoming.updatedAt = sample.updatedAt
    incoming.syncStatus = .pending
    entry = incoming
    try await write(entry, operation: .update)
    if entry.id != sample.id { await mirror(entry) }
    return .updated(entry)
  }

  private func write(_ entry: MoodEntry, operation: OutboxOperation) async throws(MoodError) {
    let row = OutboxRow.mood(entry, operation: operation, id: makeID(), now: clock.now)
    try await storage { try await repository.save(entry, outbox: row) }
  }

  /// Local first: the entry is saved whatever the health store says; a failed mirror
  /// is repaired by the next import, where the newer entry wins.
  private func mirror(_ entry: MoodEntry) async {
    guard let healthStore else { return }
    try? await healthStore.save(StateOfMindSample(mirroring: entry), userID: entry.userID)
  }
}

/// Runs a port call, turning any failure that is not already a `MoodError` into
/// `storageFailed`.
func storage<Value>(_ body: () async throws -> Value) async throws(MoodError) -> Value {
  do {
    return try await body()
  } catch let error as MoodError {
    throw error
  } catch {
    throw .storageFailed(String(describing: error))
  }
}
