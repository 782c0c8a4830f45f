import FlowKit
import Foundation

/// What a person changes about a saved mood: everything but its date and kind.
public struct MoodEntryEdit: Sendable, Hashable {
  public var score: Int
  /// The primary emotion first.
  public var labels: [MoodLabel]
  public var associations: [MoodAssociation]
  public var notes: String?

  public init(score: Int, labels: [MoodLabel], associations: [MoodAssociation], notes: String?) {
    self.score = score
    self.labels = labels
    self.associations = associations
    self.notes = notes
  }

  /// The entry as it stands, to start editing from.
  public init(_ entry: MoodEntry) {
    self.init(score: entry.score, labels: entry.labels, associations: entry.associations, notes: entry.notes)
  }
}

/// Lists, edits and deletes the signed-in user's saved moods. An edit keeps the entry's
/// date and kind, recomputes the valence, updates the health sample and queues the new
/// state (the outbox coalesces it with any unsent change); a delete removes the entry
/// and its sample and queues a `delete` (which cancels an unsent create).
public struct MoodEntriesUseCase: Sendable {
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

  /// The range's entries, newest first, with their option ids.
  public func listings(in range: MoodHistoryRange) async throws(MoodError) -> [MoodEntryListing] {
    let userID = try signedInUser()
    let interval = try range.interval(today: MoodDay(clock.now, in: clock.calendar), in: clock.calendar)
    let entries = try await storage { try await repository.summaries(userID: userID, in: interval) }
    return MoodEntryListing.newestFirst(entries, in: clock.calendar)
  }

  /// The whole entry behind a listing, as it is now: what `mood.edit` starts from.
  public func entry(_ id: UUID) async throws(MoodError) -> MoodEntry {
    let userID = try signedInUser()
    guard let entry = try await storage({ try await repository.entry(id: id, userID: userID) }) else {
      throw .entryNotFound(id)
    }
    return entry
  }

  /// Checks an edit as a save would (score 1…10, notes of at most 500 characters once
  /// trimmed), without writing.
  public func validate(_ edit: MoodEntryEdit) throws(MoodError) {
    try MoodLimits.validate(score: edit.score)
    _ = try MoodLimits.normalizedNotes(edit.notes)
  }

  /// Saves the edit of entry `id`; `.unchanged` when it changes nothing.
  public func update(_ id: UUID, with edit: MoodEntryEdit) async throws(MoodError) -> SaveMoodResult {
    let userID = try signedInUser()
    try validate(edit)
    var entry = try await entry(id)
    var edited = entry
    edited.score = edit.score
    edited.valence = try MoodTranslation.valence(forScore: edit.score)
    edited.labels = Self.unique(edit.labels)
    edited.associations = Self.unique(edit.associations)
    edited.notes = try MoodLimits.normalizedNotes(edit.notes)
    guard !entry.hasSameContent(as: edited) else { return .unchanged(entry) }
    entry = edited
    entry.updatedAt = clock.now
    entry.syncStatus = .pending
    let row = OutboxRow.mood(entry, operation: .update, id: makeID(), now: clock.now)
    let saved = entry
    try await storage {
      try await repository.save(saved, outbox: row, awaitingHealthSample: healthStore != nil)
    }
    if let healthStore {
      // Local first, as for any save: a failed mirror stays owed and is repaired.
      try? await healthStore.save(StateOfMindSample(mirroring: entry), userID: userID)
    }
    return .updated(entry)
  }

  /// Deletes entry `id` and its health sample; returns the entry as it was.
  @discardableResult
  public func delete(_ id: UUID) async throws(MoodError) -> MoodEntry {
    let userID = try signedInUser()
    let entry = try await entry(id)
    let row = OutboxRow.mood(entry, operation: .delete, id: makeID(), now: clock.now)
    guard try await storage({ try await repository.delete(entry, outbox: row) }) else {
      throw .entryNotFound(id)
    }
    if let healthStore {
      // The deletion is remembered, so a sample left behind is removed by the next
      // health import instead of bringing the entry back.
      try? await healthStore.delete(id: id, userID: userID)
    }
    return entry
  }

  private func signedInUser() throws(MoodError) -> String {
    guard let userID = currentUser() else { throw .userNotAuthenticated }
    return userID
  }

  /// The first of each, in order.
  static func unique<Value: Hashable>(_ values: [Value]) -> [Value] {
    var seen = Set<Value>()
    return values.filter { seen.insert($0).inserted }
  }
}
