import FlowKit
import Foundation
import MoodTracking

/// Whether the device can reach the network. The runner's `network:` step flips it;
/// an app would follow the system's path monitor.
public protocol Connectivity: Sendable {
  var isOnline: Bool { get }
}

/// A switch for the network state.
public final class NetworkSwitch: Connectivity {
  private let state: Locked<Bool>

  public init(isOnline: Bool = true) { state = Locked(isOnline) }

  public var isOnline: Bool { state.current }

  public func set(online: Bool) { state.withLock { $0 = online } }
}

/// When a row that failed for a passing reason is tried again: exponential backoff
/// from `baseDelay`, capped at `maxDelay`, spread by ±`jitter` so that many devices
/// do not retry in step.
public struct RetryPolicy: Sendable, Hashable {
  public var baseDelay: TimeInterval
  public var maxDelay: TimeInterval
  /// A fraction: 0.25 spreads each delay over ±25 %.
  public var jitter: Double

  public init(baseDelay: TimeInterval = 5, maxDelay: TimeInterval = 3_600, jitter: Double = 0.25) {
    self.baseDelay = baseDelay
    self.maxDelay = maxDelay
    self.jitter = min(max(jitter, 0), 1)
  }

  /// The wait after a row's `attempts`-th failure (0 for the first); `random` is in 0..<1.
  public func delay(afterAttempts attempts: Int, random: Double) -> TimeInterval {
    let exponential = baseDelay * pow(2, Double(min(max(attempts, 0), 30)))
    let capped = min(exponential, maxDelay)
    return capped * (1 + jitter * (2 * min(max(random, 0), 1) - 1))
  }
}

/// What one pass of the processor did.
public struct SyncReport: Sendable, Hashable {
  public enum Stop: Sendable, Hashable {
    /// The device is offline; the rest waits, untouched.
    case offline
    /// The backend could not be reached (down, timing out, refusing the credentials).
    case backendUnavailable(String)
  }

  /// Rows the backend now has.
  public var synced = 0
  /// Rows parked as failed (a permanent refusal, such as a 400).
  public var failed = 0
  /// Rows that failed for a passing reason and wait for a later attempt.
  public var retrying = 0
  /// Rows not tried because the pass stopped.
  public var untried = 0
  /// Why the pass stopped early, if it did.
  public var stop: Stop?
  /// When the backend asked for no request before (a 429's `Retry-After`), if it did:
  /// a sync that ignores the rows' own backoff still waits for this.
  public var notBefore: Date?

  public init() {}
}

/// Sends a user's pending outbox rows to the backend, oldest first: a mood create is a
/// `POST`, a change to an entity the backend knows a `PUT`, a delete a `DELETE`, a
/// journal entry a `POST`. All state lives in the outbox, so a pass cut short (offline,
/// a crash) resumes where it stopped; the `Idempotency-Key` (`idempotencyKey(for:)`)
/// makes a resend of a row the backend already has return the first result.
public final class OutboxProcessor: Sendable {
  public let outbox: any Outbox
  public let api: any ProgressAPI
  public let clock: any FlowClock
  public let connectivity: any Connectivity
  public let policy: RetryPolicy
  /// Rows in flight at once.
  public let concurrency: Int
  private let random: @Sendable () -> Double
  private let analytics: any AnalyticsSink

  /// The concurrency the benchmark chose (Tools/Bench/SyncBenchmark.swift): on loopback
  /// with 2 cores, 1 → 4 in flight went from ~740 to ~1,100 entries/s; more buys little
  /// and a real backend should not see more connections from one device.
  public static let defaultConcurrency = 4

  public init(
    outbox: any Outbox, api: any ProgressAPI, clock: any FlowClock,
    connectivity: any Connectivity = NetworkSwitch(), policy: RetryPolicy = RetryPolicy(),
    concurrency: Int = 1, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
    analytics: any AnalyticsSink = DiscardingAnalyticsSink()
  ) {
    self.outbox = outbox
    self.api = api
    self.clock = clock
    self.connectivity = connectivity
    self.policy = policy
    self.concurrency = max(1, concurrency)
    self.random = random
    self.analytics = analytics
  }

  /// One pass over the user's pending rows: those due now, or with `ignoringBackoff`
  /// every pending row, each tried once.
  public func run(userID: String, ignoringBackoff: Bool = false, limit: Int = .max) async throws
    -> SyncReport
  {
    var report = SyncReport()
    guard connectivity.isOnline else {
      report.stop = .offline
      report.untried = try await outbox.pendingCount(userID: userID)
      return report
    }
    let rows = try await outbox.pending(
      userID: userID, dueAt: ignoringBackoff ? nil : clock.now, limit: limit)
    let stop = Locked<(reason: SyncReport.Stop?, notBefore: Date?)>((nil, nil))
    var pending = rows[...]
    try await withThrowingTaskGroup(of: Outcome.self) { group in
      for _ in 0..<concurrency {
        guard let row = pending.popFirst() else { break }
        group.addTask { try await self.process(row, stop: stop) }
      }
      while let outcome = try await group.next() {
        switch outcome {
        case .synced: report.synced += 1
        case .failed: report.failed += 1
        case .retrying: report.retrying += 1
        case .untried: report.untried += 1
        }
        if let row = pending.popFirst() { group.addTask { try await self.process(row, stop: stop) } }
      }
    }
    (report.stop, report.notBefore) = stop.current
    return report
  }

  enum Outcome { case synced, failed, retrying, untried }

  private func process(_ row: OutboxRow, stop: Locked<(reason: SyncReport.Stop?, notBefore: Date?)>)
    async throws -> Outcome
  {
    if stop.current.reason != nil { return .untried }
    guard connectivity.isOnline else {
      stop.withLock { $0.reason = $0.reason ?? .offline }
      return .untried
    }
    do {
      let backendID = try await send(row)
      try await outbox.markSynced(id: row.id, revision: row.revision, backendID: backendID)
      record("sync_succeeded", row, [:])
      return .synced
    } catch let error as ProgressAPIError {
      if error == .offline {
        stop.withLock { $0.reason = $0.reason ?? .offline }
        return .untried
      }
      guard error.isTransient else {
        try await outbox.markFailed(id: row.id, reason: error.description)
        record("sync_failed", row, ["error": .string(error.code), "permanent": .bool(true)])
        return .failed
      }
      // The server's Retry-After is the least wait; the backoff may ask for more.
      let delay = max(policy.delay(afterAttempts: row.attempts, random: random()), error.retryAfter ?? 0)
      let next = clock.now.addingTimeInterval(delay)
      try await outbox.scheduleRetry(id: row.id, at: next, reason: error.description)
      if error.endsPass {
        stop.withLock { state in
          state.reason = state.reason ?? .backendUnavailable(error.description)
          if let retryAfter = error.retryAfter {
            let asked = clock.now.addingTimeInterval(retryAfter)
            state.notBefore = max(state.notBefore ?? asked, asked)
          }
        }
      }
      record("sync_failed", row, ["error": .string(error.code), "permanent": .bool(false)])
      return .retrying
    }
  }

  /// The idempotency key of a row's change. A mood's names the entity, the outbox row
  /// and its revision: a change made after an earlier one synced is a new row (the
  /// synced one is not coalesced into), so `entity:revision` alone would repeat the first
  /// key, which the backend refuses (422) for another request. A journal entry is sent
  /// once and keeps `entity:revision`, so one queued again gets the first answer.
  public static func idempotencyKey(for row: OutboxRow) -> String {
    switch row.entity {
    case .mood: "\(row.entityID):\(row.id.uuidString.lowercased()):\(row.revision)"
    case .journal: "\(row.entityID):\(row.revision)"
    }
  }

  /// Sends the row's latest state; returns the backend's id for the entity.
  func send(_ row: OutboxRow) async throws(ProgressAPIError) -> String? {
    let key = Self.idempotencyKey(for: row)
    let body = Data(row.payload.utf8)
    switch row.entity {
    case .mood:
      switch (row.operation, row.backendID) {
      case (.delete, nil):
        // Never reached the backend, so there is nothing to delete there.
        return nil
      case (.delete, let id?):
        do {
          try await api.deleteProgress(id: id, idempotencyKey: key)
        } catch .notFound {
          // Already gone: the wanted state holds.
        }
        return id
      case (_, let id?):
        do {
          return try await api.updateProgress(id: id, body: body, idempotencyKey: key).id
        } catch .notFound {
          // The backend lost it (deleted elsewhere): send it anew.
          return try await api.createProgress(body: body, idempotencyKey: key).id
        }
      case (_, nil):
        return try await api.createProgress(body: body, idempotencyKey: key).id
      }
    case .journal:
      // Journal entries are written once; one the backend has needs nothing more.
      if let id = row.backendID { return id }
      return try await api.createJournal(body: body, idempotencyKey: key).id
    }
  }

  private func record(_ event: String, _ row: OutboxRow, _ extra: [String: EventValue]) {
    guard analytics.isRecording else { return }
    var fields: [String: EventValue] = [
      "entity": .string(row.entity.rawValue), "operation": .string(row.operation.rawValue),
      "attempts": .number(Double(row.attempts + 1)),
    ]
    fields.merge(extra) { $1 }
    analytics.record(AnalyticsEvent(ts: clock.now, user: row.userID, event: event, fields: fields))
  }
}
