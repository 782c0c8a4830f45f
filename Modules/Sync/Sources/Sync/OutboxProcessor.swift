import FlowKit
import Foundation

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

/// Sends a user's pending outbox rows to the backend, oldest first, each through the
/// `SyncResource` registered for its entity: a create is a `POST`, a change to an entity
/// the backend knows a `PUT`, a delete a `DELETE`; a row written once is one `POST`. Rows
/// of a resource with a batch endpoint go up to `maxBatchItems` at a time (through
/// `POST /api/v1/progress/batch` for progress), each item answered as its single call
/// would be, and a batch's results are recorded in one transaction; other rows, and
/// every row when the backend has no batch endpoint (a 404 or 405), go one request
/// each. A row whose entity no resource sends stays pending, untried (a feature not in
/// this build). All state lives in the outbox, so a pass cut short (offline, a crash)
/// resumes where it stopped; the `Idempotency-Key` (see
/// `SyncResource.idempotencyKey(for:)`) makes a resend of a change the backend already
/// has return the first result.
public final class OutboxProcessor: Sendable {
  public let outbox: any Outbox
  public let api: any ProgressAPI
  /// What sends each entity's rows.
  public let resources: [OutboxEntity: SyncResource]
  public let clock: any FlowClock
  public let connectivity: any Connectivity
  public let policy: RetryPolicy
  /// Requests in flight at once (batches, or single rows).
  public let concurrency: Int
  /// Rows per batch request; 1 sends every row with its own request.
  public let maxBatchItems: Int
  private let random: @Sendable () -> Double
  private let analytics: any AnalyticsSink
  /// Set when the backend answered a batch as one without the endpoint does: the rest
  /// of this processor's rows go one request each.
  private let batchesRefused = Locked(false)

  /// The concurrency the benchmark chose (Tools/Bench/SyncBenchmark.swift): with
  /// batches, two in flight keep the backend busy while the client records the other's
  /// results; a real backend should not see more connections from one device.
  public static let defaultConcurrency = 2

  public init(
    outbox: any Outbox, api: any ProgressAPI, resources: [SyncResource], clock: any FlowClock,
    connectivity: any Connectivity = NetworkSwitch(), policy: RetryPolicy = RetryPolicy(),
    concurrency: Int = 1, maxBatchItems: Int = ProgressBatchItem.maxPerBatch,
    random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
    analytics: any AnalyticsSink = DiscardingAnalyticsSink()
  ) {
    self.outbox = outbox
    self.api = api
    self.resources = Dictionary(resources.map { ($0.entity, $0) }) { first, _ in first }
    self.clock = clock
    self.connectivity = connectivity
    self.policy = policy
    self.concurrency = max(1, concurrency)
    self.maxBatchItems = min(max(1, maxBatchItems), ProgressBatchItem.maxPerBatch)
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
    let pending = try await outbox.pending(
      userID: userID, dueAt: ignoringBackoff ? nil : clock.now, limit: limit)
    let rows = pending.filter { resources[$0.entity] != nil }
    report.untried = pending.count - rows.count
    let stop = Locked<Stop>(Stop())
    var queue = units(rows)
    var position = 0
    /// The next unit, a batch taken apart when batches are refused.
    func next() -> Unit? {
      guard position < queue.count else { return nil }
      if case .batch(let rows) = queue[position], batchesRefused.current {
        queue.replaceSubrange(position...position, with: rows.map(Unit.single))
      }
      position += 1
      return queue[position - 1]
    }
    try await withThrowingTaskGroup(of: Done.self) { group in
      var inFlight = 0
      func fill() {
        while inFlight < concurrency, let unit = next() {
          inFlight += 1
          group.addTask { try await self.process(unit, stop: stop) }
        }
      }
      fill()
      while let done = try await group.next() {
        inFlight -= 1
        report.synced += done.synced
        report.failed += done.failed
        report.retrying += done.retrying
        report.untried += done.untried
        // Rows a batch could not carry go next, one request each, in their order.
        queue.insert(contentsOf: done.alone.map(Unit.single), at: position)
        fill()
      }
    }
    (report.stop, report.notBefore) = (stop.current.reason, stop.current.notBefore)
    return report
  }

  /// What ends a pass early, shared by the requests in flight.
  struct Stop {
    var reason: SyncReport.Stop?
    var notBefore: Date?
  }

  /// One request's worth of rows.
  enum Unit {
    case single(OutboxRow)
    /// Rows of one resource for one batch request.
    case batch([OutboxRow])
  }

  /// What a unit did to its rows; `alone` are rows to send one request each.
  struct Done {
    var synced = 0
    var failed = 0
    var retrying = 0
    var untried = 0
    var alone: [OutboxRow] = []
  }

  /// Rows of a resource with a batch endpoint in batches of up to `maxBatchItems`, one
  /// batch per resource at a time; other rows alone; each unit where its first row is
  /// in the order.
  func units(_ rows: [OutboxRow]) -> [Unit] {
    guard maxBatchItems > 1 else { return rows.map(Unit.single) }
    var units: [Unit] = []
    var open: [OutboxEntity: (at: Int, rows: [OutboxRow])] = [:]
    for row in rows {
      guard resources[row.entity]?.batch != nil else {
        units.append(.single(row))
        continue
      }
      var batch = open[row.entity] ?? (at: units.count, rows: [])
      if batch.rows.isEmpty { units.append(.batch([])) }
      batch.rows.append(row)
      if batch.rows.count == maxBatchItems {
        units[batch.at] = .batch(batch.rows)
        open[row.entity] = nil
      } else {
        open[row.entity] = batch
      }
    }
    for batch in open.values where !batch.rows.isEmpty { units[batch.at] = .batch(batch.rows) }
    return units
  }

  private func process(_ unit: Unit, stop: Locked<Stop>) async throws -> Done {
    let rows: [OutboxRow]
    switch unit {
    case .single(let row): rows = [row]
    case .batch(let batch): rows = batch
    }
    if stop.current.reason != nil { return Done(untried: rows.count) }
    guard connectivity.isOnline else {
      stop.withLock { $0.reason = $0.reason ?? .offline }
      return Done(untried: rows.count)
    }
    let answers: [Result<String?, ProgressAPIError>]
    switch unit {
    case .single(let row):
      do throws(ProgressAPIError) {
        answers = [.success(try await send(row))]
      } catch {
        answers = [.failure(error)]
      }
    case .batch(let rows):
      switch await sendBatch(rows) {
      case .answered(let results): answers = results
      case .alone: return Done(alone: rows)
      }
    }
    return try await commit(zip(rows, answers).map { (row: $0, answer: $1) }, stop: stop)
  }

  /// Records each row's answer, all in one transaction, then its event.
  private func commit(
    _ answers: [(row: OutboxRow, answer: Result<String?, ProgressAPIError>)], stop: Locked<Stop>
  )
    async throws -> Done
  {
    var done = Done()
    var results: [OutboxResult] = []
    var events: [(String, OutboxRow, [String: EventValue])] = []
    let recording = analytics.isRecording
    func event(_ name: String, _ row: OutboxRow, _ fields: [String: EventValue]) {
      if recording { events.append((name, row, fields)) }
    }
    results.reserveCapacity(answers.count)
    for (row, answer) in answers {
      switch answer {
      case .success(let backendID):
        results.append(
          OutboxResult(id: row.id, outcome: .synced(revision: row.revision, backendID: backendID)))
        event("sync_succeeded", row, [:])
        done.synced += 1
      case .failure(.offline):
        stop.withLock { $0.reason = $0.reason ?? .offline }
        done.untried += 1
      case .failure(let error) where !error.isTransient:
        results.append(OutboxResult(id: row.id, outcome: .failed(reason: error.description)))
        event("sync_failed", row, ["error": .string(error.code), "permanent": .bool(true)])
        done.failed += 1
      case .failure(let error):
        // The server's Retry-After is the least wait; the backoff may ask for more.
        let delay = max(policy.delay(afterAttempts: row.attempts, random: random()), error.retryAfter ?? 0)
        let next = clock.now.addingTimeInterval(delay)
        results.append(OutboxResult(id: row.id, outcome: .retry(at: next, reason: error.description)))
        if error.endsPass {
          stop.withLock { state in
            state.reason = state.reason ?? .backendUnavailable(error.description)
            if let retryAfter = error.retryAfter {
              let asked = clock.now.addingTimeInterval(retryAfter)
              state.notBefore = max(state.notBefore ?? asked, asked)
            }
          }
        }
        event("sync_failed", row, ["error": .string(error.code), "permanent": .bool(false)])
        done.retrying += 1
      }
    }
    try await outbox.record(results)
    for (event, row, extra) in events { record(event, row, extra) }
    return done
  }

  /// The idempotency key of a row's change, as its resource makes it.
  public func idempotencyKey(for row: OutboxRow) -> String {
    resources[row.entity]?.idempotencyKey(for: row) ?? "\(row.entityID):\(row.revision)"
  }

  /// How a batch went: an answer per row (the backend's id, or why not), or the rows
  /// must go one request each.
  enum BatchOutcome {
    case answered([Result<String?, ProgressAPIError>])
    case alone
  }

  /// Sends rows of one resource as one batch, with each item's meaning as in `send(_:)`: a delete
  /// of a row the backend never had needs no request; a `PUT` the backend answers 404
  /// is sent again as a `POST` (in a second batch); a `DELETE` answered 404 is done.
  /// A batch refused as a whole with a permanent error (400, 409, 413, 422: its form,
  /// not its items) goes one request each, so one bad item cannot fail the rest; one
  /// answered 404 or 405 (an older backend) too, and so does every later batch.
  func sendBatch(_ rows: [OutboxRow]) async -> BatchOutcome {
    guard let resource = rows.first.flatMap({ resources[$0.entity] }),
      case .changing(let post, _, _, let batch?) = resource.writes
    else { return .alone }
    var answers = [Result<String?, ProgressAPIError>?](repeating: nil, count: rows.count)
    var items: [ProgressBatchItem] = []
    var sent: [Int] = []
    for (index, row) in rows.enumerated() {
      let key = resource.idempotencyKey(for: row)
      switch (row.operation, row.backendID) {
      case (.delete, nil): answers[index] = .success(nil)
      case (.delete, let id?): items.append(.delete(id: id, idempotencyKey: key))
      case (_, let id?): items.append(.update(id: id, body: resource.body(row), idempotencyKey: key))
      case (_, nil): items.append(.create(body: resource.body(row), idempotencyKey: key))
      }
      if answers[index] == nil { sent.append(index) }
    }
    guard !items.isEmpty else { return .answered(answers.map { $0! }) }
    let results: [ProgressBatchResult]
    do throws(ProgressAPIError) {
      results = try await batch(api, items)
    } catch {
      if error.meansNoBatchEndpoint {
        batchesRefused.withLock { $0 = true }
        return .alone
      }
      if !error.isTransient { return .alone }
      for index in sent { answers[index] = .failure(error) }
      return .answered(answers.map { $0! })
    }
    guard results.count == items.count else {
      let error = ProgressAPIError.unexpected(
        status: 200,
        message: "the batch answer does not fit: \(results.count) results for \(items.count) items")
      for index in sent { answers[index] = .failure(error) }
      return .answered(answers.map { $0! })
    }
    var lost: [Int] = []
    for (index, (item, result)) in zip(sent, zip(items, results)) {
      switch (item.method, result) {
      case (_, .success(let record)): answers[index] = .success(record?.id ?? item.id)
      case (.delete, .failure(.notFound)): answers[index] = .success(item.id)  // already gone
      case (.put, .failure(.notFound)): lost.append(index)  // deleted elsewhere: send it anew
      case (_, .failure(let error)): answers[index] = .failure(error)
      }
    }
    if !lost.isEmpty {
      let creates = lost.map { index in
        ProgressBatchItem.create(
          body: resource.body(rows[index]), idempotencyKey: resource.idempotencyKey(for: rows[index]))
      }
      do throws(ProgressAPIError) {
        let results = try await batch(api, creates)
        guard results.count == creates.count else {
          throw ProgressAPIError.unexpected(
            status: 200,
            message: "the batch answer does not fit: \(results.count) results for \(creates.count) items")
        }
        for (index, result) in zip(lost, results) { answers[index] = result.map { $0?.id } }
      } catch let error where error.meansNoBatchEndpoint || !error.isTransient {
        for (index, create) in zip(lost, creates) {
          do throws(ProgressAPIError) {
            answers[index] = .success(
              try await post(api, create.body ?? Data(), create.idempotencyKey))
          } catch {
            answers[index] = .failure(error)
          }
        }
      } catch {
        for index in lost { answers[index] = .failure(error) }
      }
    }
    return .answered(answers.map { $0! })
  }

  /// Sends the row's latest state with its own request; returns the backend's id for the entity.
  func send(_ row: OutboxRow) async throws(ProgressAPIError) -> String? {
    // `run` sends only rows with a resource.
    guard let resource = resources[row.entity] else { return row.backendID }
    let key = resource.idempotencyKey(for: row)
    switch resource.writes {
    case .once(let create):
      // Written once: one the backend has needs nothing more.
      if let id = row.backendID { return id }
      return try await create(api, resource.body(row), key)
    case .changing(let create, let update, let delete, _):
      switch (row.operation, row.backendID) {
      case (.delete, nil):
        // Never reached the backend, so there is nothing to delete there.
        return nil
      case (.delete, let id?):
        do {
          try await delete(api, id, key)
        } catch .notFound {
          // Already gone: the wanted state holds.
        }
        return id
      case (_, let id?):
        let body = resource.body(row)
        do {
          return try await update(api, id, body, key)
        } catch .notFound {
          // The backend lost it (deleted elsewhere): send it anew.
          return try await create(api, body, key)
        }
      case (_, nil):
        return try await create(api, resource.body(row), key)
      }
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
