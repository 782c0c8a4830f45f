import FlowKit
import FlowKitTesting
import Foundation
import MoodTrackingDomain

/// A mood repository in memory, for unit tests and previews. It writes outbox rows to
/// the given `InMemoryOutbox` under the same lock as the entry, like one transaction.
public final class InMemoryMoodRepository: MoodRepository {
  private struct State {
    var entries: [UUID: MoodEntry] = [:]
    var saveOrder: [UUID: Int] = [:]
    var saves = 0
    /// Entries whose health sample is owed, by when the note was made.
    var awaitingHealthSample: [UUID: Int] = [:]
    /// Entries the user deleted: their ids and backend ids, by user.
    var deleted: [String: Set<UUID>] = [:]
    var deletedBackendIDs: [String: [String: UUID]] = [:]
  }

  private let state = Locked(State())
  public let outbox: InMemoryOutbox
  /// When set, the next save or delete fails with it and writes nothing.
  public let failNextSave = Locked<(any Error)?>(nil)

  public init(outbox: InMemoryOutbox = InMemoryOutbox()) {
    self.outbox = outbox
  }

  public func save(_ entry: MoodEntry, outbox row: OutboxRow) throws {
    try save(entry, outbox: row, awaitingHealthSample: false)
  }

  public func save(_ entry: MoodEntry, outbox row: OutboxRow, awaitingHealthSample: Bool) throws {
    if let error = failNextSave.withLock({ error in
      defer { error = nil }
      return error
    }) {
      throw error
    }
    state.withLock { state in
      outbox.withRows { InMemoryOutbox.enqueue(row, into: &$0) }
      state.saves += 1
      state.entries[entry.id] = entry
      // Creation order: an edit keeps the entry's place among entries of the same instant.
      if state.saveOrder[entry.id] == nil { state.saveOrder[entry.id] = state.saves }
      if awaitingHealthSample, state.awaitingHealthSample[entry.id] == nil {
        state.awaitingHealthSample[entry.id] = state.saves
      }
    }
  }

  public func entriesAwaitingHealthSample(userID: String, limit: Int) -> [MoodEntry] {
    let state = state.current
    return state.awaitingHealthSample.sorted { $0.value < $1.value }
      .compactMap { state.entries[$0.key].flatMap { $0.userID == userID ? $0 : nil } }
      .prefix(max(0, limit)).map { $0 }
  }

  public func confirmHealthSamples(_ entries: [MoodEntry]) {
    state.withLock { state in
      for entry in entries {
        guard let current = state.entries[entry.id],
          StateOfMindSample(mirroring: current) == StateOfMindSample(mirroring: entry)
        else { continue }
        state.awaitingHealthSample[entry.id] = nil
      }
    }
  }

  public func entry(id: UUID, userID: String) -> MoodEntry? {
    state.current.entries[id].flatMap { $0.userID == userID ? $0 : nil }
  }

  public func dailyMoods(userID: String, days: ClosedRange<MoodDay>) -> [MoodEntry] {
    userEntries(userID).filter { $0.kind == .dailyMood && days.contains($0.day) }.sorted { $0.day < $1.day }
  }

  public func entries(userID: String, in interval: DateInterval) -> [MoodEntry] {
    userEntries(userID).filter { $0.date >= interval.start && $0.date < interval.end }
  }

  public func statistics(userID: String, in interval: DateInterval, today: MoodDay) -> MoodStatistics {
    let all = userEntries(userID)
    return MoodStatistics(
      entries: all.filter { $0.date >= interval.start && $0.date < interval.end },
      streak: currentStreak(days: Set(all.map(\.day)), today: today))
  }

  public func count(userID: String) -> Int { userEntries(userID).count }

  public func importFromBackend(_ entry: MoodEntry) -> Bool {
    state.withLock { state in
      let known =
        state.entries[entry.id] != nil
        || state.entries.values.contains {
          $0.userID == entry.userID && $0.backendID != nil && $0.backendID == entry.backendID
        }
      guard !known else { return false }
      let deleted =
        state.deleted[entry.userID, default: []].contains(entry.id)
        ? entry.id : entry.backendID.flatMap { state.deletedBackendIDs[entry.userID, default: [:]][$0] }
      if let deleted {
        // As the SQLite repository does: the backend still has an entry deleted here
        // with nothing queued for it, so a DELETE with the pulled id is queued.
        if let backendID = entry.backendID,
          !outbox.all.contains(where: {
            $0.userID == entry.userID && $0.entityID == deleted.uuidString && $0.status != .synced
          })
        {
          var gone = entry
          gone.id = deleted
          outbox.withRows {
            InMemoryOutbox.enqueue(
              .mood(gone, operation: .delete, id: UUID(), now: entry.createdAt), into: &$0)
          }
          state.deletedBackendIDs[entry.userID, default: [:]][backendID] = deleted
        }
        return false
      }
      state.saves += 1
      state.entries[entry.id] = entry
      if state.saveOrder[entry.id] == nil { state.saveOrder[entry.id] = state.saves }
      return true
    }
  }

  public func latest(userID: String) -> MoodEntry? { userEntries(userID).last }

  public func delete(_ entry: MoodEntry, outbox row: OutboxRow) throws -> Bool {
    if let error = failNextSave.withLock({ error in
      defer { error = nil }
      return error
    }) {
      throw error
    }
    return state.withLock { state in
      guard let current = state.entries[entry.id], current.userID == entry.userID else { return false }
      outbox.withRows { InMemoryOutbox.enqueue(row, into: &$0) }
      state.entries[entry.id] = nil
      state.saveOrder[entry.id] = nil
      state.awaitingHealthSample[entry.id] = nil
      state.deleted[entry.userID, default: []].insert(entry.id)
      if let backendID = current.backendID ?? entry.backendID {
        state.deletedBackendIDs[entry.userID, default: [:]][backendID] = entry.id
      }
      return true
    }
  }

  public func wasDeleted(id: UUID, userID: String) -> Bool {
    state.current.deleted[userID, default: []].contains(id)
  }

  /// The user's entries ascending by date, then creation order.
  private func userEntries(_ userID: String) -> [MoodEntry] {
    let state = state.current
    return state.entries.values.filter { $0.userID == userID }.sorted {
      ($0.date, state.saveOrder[$0.id] ?? 0) < ($1.date, state.saveOrder[$1.id] ?? 0)
    }
  }
}

/// A state-of-mind store in memory, for unit tests and previews.
public final class InMemoryStateOfMindStore: StateOfMindStore {
  private let samples = Locked<[String: [UUID: StateOfMindSample]]>([:])

  public init() {}

  public func save(_ sample: StateOfMindSample, userID: String) {
    samples.withLock { $0[userID, default: [:]][sample.id] = sample }
  }

  public func samples(userID: String, in interval: DateInterval) -> [StateOfMindSample] {
    (samples.current[userID] ?? [:]).values
      .filter { $0.date >= interval.start && $0.date < interval.end }
      .sorted { $0.date < $1.date }
  }

  public func sample(id: UUID, userID: String) -> StateOfMindSample? { samples.current[userID]?[id] }

  public func count(userID: String) -> Int { samples.current[userID]?.count ?? 0 }

  public func delete(id: UUID, userID: String) {
    samples.withLock { $0[userID]?[id] = nil }
  }
}
