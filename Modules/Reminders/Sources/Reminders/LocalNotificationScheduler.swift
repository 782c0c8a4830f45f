import FlowKit
import Foundation

/// Delivers daily notifications on the host's clock (`WorkTracker.schedule(at:)`), so a
/// headless run delivers them as `advance` moves time, each day's in order. What was
/// asked for lives in the app's key-value store and what was delivered in a
/// `DeliveredNotificationStore` (both SQLite in the app), so they survive a relaunch; a
/// new host re-arms the next delivery.
@MainActor
public final class LocalNotificationScheduler: NotificationScheduler {
  static let requestsKey = "notifications.local.requests"
  /// Where earlier versions kept every delivery, as one JSON list (`[{"date": seconds
  /// since 1970, "id", "opened"}]`) in the key-value store; the app's database moves it
  /// into its `DeliveredNotificationStore` when it opens.
  nonisolated public static let legacyDeliveredKey = "notifications.local.delivered"

  /// A request and the moment after which its next occurrence falls.
  struct Stored: Codable, Equatable {
    var request: DailyNotificationRequest
    var after: Date
  }

  private let store: any KeyValueStore
  private let deliveries: any DeliveredNotificationStore
  private let clock: any FlowClock
  private weak var host: FlowHost?
  private var timer: WorkTracker.TimerID?
  private var shouldDeliver: (@MainActor (DailyNotificationRequest, Date) async -> Bool)?
  private var didDeliver: (@MainActor (DeliveredNotification) -> Void)?
  /// The requests as last read or written, with the stored text they came from: every
  /// delivery reads the requests twice and writes them once, and decoding them each time
  /// was most of a delivery's cost. The text is still read from the store each time, so a
  /// change made by anyone else is seen.
  private var decoded: (text: String, requests: [Stored])?

  public init(store: any KeyValueStore, deliveries: any DeliveredNotificationStore, clock: any FlowClock) {
    self.store = store
    self.deliveries = deliveries
    self.clock = clock
  }

  public func scheduleDaily(_ request: DailyNotificationRequest) async throws {
    var requests = try loadRequests().filter { $0.request.id != request.id }
    requests.append(Stored(request: request, after: clock.now))
    try save(requests)
    arm()
  }

  public func cancel(id: String) async throws {
    try save(try loadRequests().filter { $0.request.id != id })
    arm()
  }

  public func scheduled() async throws -> [DailyNotificationRequest] { try loadRequests().map(\.request) }

  public func delivered() async throws -> [DeliveredNotification] { try await deliveries.all() }

  public func deliveryCounts() async throws -> DeliveryCounts { try await deliveries.counts() }

  public func unopened() async throws -> [DeliveredNotification] { try await deliveries.unopened() }

  public func markOpened(_ notification: DeliveredNotification) async throws {
    try await deliveries.markOpened(notification)
  }

  public func startDelivering(
    on host: FlowHost,
    shouldDeliver: @escaping @MainActor (DailyNotificationRequest, Date) async -> Bool,
    didDeliver: @escaping @MainActor (DeliveredNotification) -> Void
  ) {
    self.host = host
    self.shouldDeliver = shouldDeliver
    self.didDeliver = didDeliver
    arm()
  }

  /// The first moment after `date` at `hour:minute` local time; a day whose time falls
  /// in a DST gap gets it when the gap ends (the next valid time).
  nonisolated public static func nextOccurrence(hour: Int, minute: Int, after date: Date, calendar: Calendar)
    -> Date?
  {
    // A day's occurrence is never before the day's first instant, so no day before
    // `date`'s own can have one after `date`.
    var day = calendar.dateComponents([.year, .month, .day], from: date)
    for _ in 0..<3 {
      guard let year = day.year, let month = day.month, let dayOfMonth = day.day else { return nil }
      if let occurrence = occurrence(
        hour: hour, minute: minute, year: year, month: month, day: dayOfMonth, calendar: calendar),
        occurrence > date
      {
        return occurrence
      }
      // The next day, from its noon: midnight itself may not exist (a gap at 00:00).
      guard
        let noon = calendar.date(
          from: DateComponents(year: year, month: month, day: dayOfMonth, hour: 12)),
        let next = calendar.date(byAdding: .day, value: 1, to: noon)
      else { return nil }
      day = calendar.dateComponents([.year, .month, .day], from: next)
    }
    return nil
  }

  /// The daily time `hour:minute` on one local date: the first instant whose local time
  /// is at or after it. A time the clocks pass twice (the autumn change) is its first
  /// pass; a time they jump over (a DST gap) is the end of the gap, even when the gap
  /// begins at midnight (Cuba, Chile, Lebanon, Egypt) or ends at the next one (Greenland
  /// jumps from 23:00 to 00:00: that day's 23:30 arrives at 00:00 the next day).
  nonisolated public static func occurrence(
    hour: Int, minute: Int, year: Int, month: Int, day: Int, calendar: Calendar
  ) -> Date? {
    let wanted = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: 0)
    // The calendar's answer: the time itself, its first pass when it is repeated, or,
    // for a time in a gap, the same time on the offset before the gap (past the gap's end).
    guard let candidate = calendar.date(from: wanted) else { return nil }
    let target = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: candidate)
    if target.year == year, target.month == month, target.day == day, target.hour == hour,
      target.minute == minute, target.second == 0
    {
      return candidate
    }
    // The time does not exist: the clocks jumped over it. The gap ends at the transition
    // where the local time first passes it, near the candidate whatever day it falls on
    // (a gap at midnight begins the date, one ending at midnight ends on the next date).
    var searchFrom = candidate.addingTimeInterval(-2 * 86_400)
    let searchTo = candidate.addingTimeInterval(86_400)
    while let transition = calendar.timeZone.nextDaylightSavingTimeTransition(after: searchFrom),
      transition <= searchTo
    {
      if isLocalTime(of: transition, atOrAfter: wanted, calendar: calendar) { return transition }
      searchFrom = transition
    }
    return nil
  }

  /// Whether `date`'s local date and time is `wanted`'s or later.
  nonisolated private static func isLocalTime(
    of date: Date, atOrAfter wanted: DateComponents, calendar: Calendar
  ) -> Bool {
    let local = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    let fields: [KeyPath<DateComponents, Int?>] = [\.year, \.month, \.day, \.hour, \.minute, \.second]
    for field in fields {
      let (have, want) = (local[keyPath: field] ?? 0, wanted[keyPath: field] ?? 0)
      if have != want { return have > want }
    }
    return true
  }

  /// Arms the earliest next occurrence of `requests` (read from the store when nil).
  private func arm(_ known: [Stored]? = nil) {
    if let timer { host?.work.cancelTimer(timer) }
    timer = nil
    guard let host, let requests = known ?? (try? loadRequests()) else { return }
    var earliest: (id: String, date: Date)?
    for stored in requests {
      guard
        let date = Self.nextOccurrence(
          hour: stored.request.hour, minute: stored.request.minute, after: stored.after,
          calendar: clock.calendar)
      else { continue }
      if earliest == nil || date < earliest!.date { earliest = (stored.request.id, date) }
    }
    guard let earliest else { return }
    timer = host.work.schedule(at: earliest.date) { [weak self] in
      await self?.fire(earliest.id, at: earliest.date)
    }
  }

  private func fire(_ id: String, at date: Date) async {
    timer = nil
    guard var requests = try? loadRequests(), let index = requests.firstIndex(where: { $0.request.id == id })
    else { return arm() }
    requests[index].after = date
    let request = requests[index].request
    do {
      try save(requests)
    } catch {
      // The store failed: this occurrence is lost, the next one is still armed.
      return arm()
    }
    do {
      if await shouldDeliver?(request, date) ?? true {
        let notification = DeliveredNotification(id: id, date: date)
        try await deliveries.append(notification)
        didDeliver?(notification)
      }
    } catch {
      // As above: lost, and the next one is armed.
    }
    // What was just saved, unless `scheduleDaily` or `cancel` ran while this awaited.
    arm(decoded?.requests == requests ? requests : nil)
  }

  private func loadRequests() throws -> [Stored] {
    guard let text = try store.string(forKey: Self.requestsKey) else { return [] }
    if let decoded, decoded.text == text { return decoded.requests }
    let requests = try Self.decoder.decode([Stored].self, from: Data(text.utf8))
    decoded = (text, requests)
    return requests
  }

  private func save(_ requests: [Stored]) throws {
    let text = String(decoding: try Self.encoder.encode(requests), as: UTF8.self)
    try store.set(text, forKey: Self.requestsKey)
    decoded = (text, requests)
  }

  private static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .secondsSince1970
    encoder.outputFormatting = .sortedKeys
    return encoder
  }()

  private static let decoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    return decoder
  }()
}
