import FlowKit
import Foundation

/// Delivers daily notifications on the host's clock (`WorkTracker.schedule(at:)`), so a
/// headless run delivers them as `advance` moves time, each day's in order. What was
/// asked for and what was delivered live in the app's key-value store (SQLite in the
/// app), so they survive a relaunch; a new host re-arms the next delivery.
@MainActor
public final class LocalNotificationScheduler: NotificationScheduler {
  static let requestsKey = "notifications.local.requests"
  static let deliveredKey = "notifications.local.delivered"

  /// A request and the moment after which its next occurrence falls.
  struct Stored: Codable, Equatable {
    var request: DailyNotificationRequest
    var after: Date
  }

  private let store: any KeyValueStore
  private let clock: any FlowClock
  private weak var host: FlowHost?
  private var timer: WorkTracker.TimerID?
  private var shouldDeliver: (@MainActor (DailyNotificationRequest, Date) async -> Bool)?
  private var didDeliver: (@MainActor (DeliveredNotification) -> Void)?

  public init(store: any KeyValueStore, clock: any FlowClock) {
    self.store = store
    self.clock = clock
  }

  public func scheduleDaily(_ request: DailyNotificationRequest) async throws {
    var requests = try loadRequests().filter { $0.request.id != request.id }
    requests.append(Stored(request: request, after: clock.now))
    try save(requests, forKey: Self.requestsKey)
    arm()
  }

  public func cancel(id: String) async throws {
    try save(try loadRequests().filter { $0.request.id != id }, forKey: Self.requestsKey)
    arm()
  }

  public func scheduled() async throws -> [DailyNotificationRequest] { try loadRequests().map(\.request) }

  public func delivered() async throws -> [DeliveredNotification] { try loadDelivered() }

  public func markOpened(_ notification: DeliveredNotification) async throws {
    var delivered = try loadDelivered()
    guard
      let index = delivered.firstIndex(where: { $0.id == notification.id && $0.date == notification.date })
    else { return }
    delivered[index].opened = true
    try save(delivered, forKey: Self.deliveredKey)
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
  public static func nextOccurrence(hour: Int, minute: Int, after date: Date, calendar: Calendar) -> Date? {
    let today = calendar.startOfDay(for: date)
    for offset in 0...2 {
      guard let day = calendar.date(byAdding: .day, value: offset, to: today),
        let occurrence = occurrence(hour: hour, minute: minute, on: day, calendar: calendar)
      else { continue }
      if occurrence > date { return occurrence }
    }
    return nil
  }

  static func occurrence(hour: Int, minute: Int, on day: Date, calendar: Calendar) -> Date? {
    var parts = calendar.dateComponents([.year, .month, .day], from: day)
    parts.hour = hour
    parts.minute = minute
    parts.second = 0
    if let date = calendar.date(from: parts) {
      let local = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
      if local.year == parts.year, local.month == parts.month, local.day == parts.day, local.hour == hour,
        local.minute == minute
      {
        return date
      }
    }
    // The time does not exist that day: the clocks jumped over it. The gap ends at the
    // day's transition, the first valid time after the one asked for.
    guard let transition = calendar.timeZone.nextDaylightSavingTimeTransition(after: day),
      calendar.isDate(transition, inSameDayAs: day)
    else { return nil }
    return transition
  }

  private func arm() {
    if let timer { host?.work.cancelTimer(timer) }
    timer = nil
    guard let host, let requests = try? loadRequests() else { return }
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
      try save(requests, forKey: Self.requestsKey)
      if await shouldDeliver?(request, date) ?? true {
        let notification = DeliveredNotification(id: id, date: date)
        try save(try loadDelivered() + [notification], forKey: Self.deliveredKey)
        didDeliver?(notification)
      }
    } catch {
      // The store failed: this occurrence is lost, the next one is still armed.
    }
    arm()
  }

  private func loadRequests() throws -> [Stored] { try load(Self.requestsKey) }
  private func loadDelivered() throws -> [DeliveredNotification] { try load(Self.deliveredKey) }

  private func load<T: Decodable>(_ key: String) throws -> [T] {
    guard let text = try store.string(forKey: key) else { return [] }
    return try Self.decoder.decode([T].self, from: Data(text.utf8))
  }

  private func save<T: Encodable>(_ values: [T], forKey key: String) throws {
    try store.set(String(decoding: try Self.encoder.encode(values), as: UTF8.self), forKey: key)
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
