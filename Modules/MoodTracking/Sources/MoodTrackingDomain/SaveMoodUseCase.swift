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
      try await write(updated, operation: .update, mirrored: true)
      result = .updated(updated)
    } else {
      try await write(draft, operation: .create, mirrored: true)
      result = .created(draft)
    }
    await mirror(result.entry)
    return result
  }

  /// Whether the signed-in user deleted the entry with this id (a health import skips
  /// the samples of deleted entries rather than bring them back).
  public func wasDeleted(_ id: UUID) async throws(MoodError) -> Bool {
    guard let userID = currentUser() else { throw .userNotAuthenticated }
    return try await storage { try await repository.wasDeleted(id: id, userID: userID) }
  }

  /// Saves what the health store holds: a sample not seen before becomes an entry; for a
  /// known sample (or another daily mood that day) the most recent change wins. Callers
  /// skip the samples of deleted entries first (`wasDeleted`).
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
      // The store holds this sample already.
      try await write(entry, operation: .create, mirrored: false)
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
    // Another daily mood of the day took the sample's content: its own sample must follow.
    let mirrored = entry.id != sample.id
    try await write(entry, operation: .update, mirrored: mirrored)
    if mirrored { await mirror(entry) }
    return .updated(entry)
  }

  /// `mirrored`: the entry goes to the health store next, so its save notes the sample
  /// owed (when there is a store) in the same transaction.
  private func write(_ entry: MoodEntry, operation: OutboxOperation, mirrored: Bool) async throws(MoodError) {
    let row = OutboxRow.mood(entry, operation: operation, id: makeID(), now: clock.now)
    let owed = mirrored && healthStore != nil
    try await storage { try await repository.save(entry, outbox: row, awaitingHealthSample: owed) }
  }

  /// Local first: the entry is saved whatever the health store says. A mirror that
  /// failed or never ran (the process died between the two writes) is still owed by the
  /// entry's note, and `repairHealthMirror` writes it.
  private func mirror(_ entry: MoodEntry) async {
    guard let healthStore else { return }
    try? await healthStore.save(StateOfMindSample(mirroring: entry), userID: entry.userID)
  }

  /// Writes the samples the health store still owes the user's entries (run at launch):
  /// each entry as it is now, unless the store holds it already or a newer change of
  /// it, which the next import brings in instead. Returns how many samples were written.
  @discardableResult
  public func repairHealthMirror() async throws(MoodError) -> Int {
    guard let userID = currentUser() else { throw .userNotAuthenticated }
    guard let healthStore else { return 0 }
    var written = 0
    var previous: Set<UUID> = []
    while true {
      let owed = try await storage {
        try await repository.entriesAwaitingHealthSample(userID: userID, limit: Self.repairBatch)
      }
      // The same batch again means its notes stayed (its entries keep changing under
      // the repair); their own saves mirror them, so stop rather than loop.
      let ids = Set(owed.map(\.id))
      if owed.isEmpty || ids == previous { return written }
      previous = ids
      for entry in owed {
        // The store's sample of the entry, if any, is dated like the entry.
        let around = DateInterval(start: entry.date, duration: 1)
        let existing = try await storage { try await healthStore.samples(userID: userID, in: around) }
          .first { $0.id == entry.id }
        let sample = StateOfMindSample(mirroring: entry)
        if existing.map({ $0 != sample && $0.updatedAt <= entry.updatedAt }) ?? true {
          try await storage { try await healthStore.save(sample, userID: userID) }
          written += 1
        }
      }
      try await storage { try await repository.confirmHealthSamples(owed) }
    }
  }

  static let repairBatch = 200
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
