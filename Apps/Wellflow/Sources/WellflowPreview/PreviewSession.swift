import Experiments
import FlowHTML
import FlowKit
import Foundation
import WellflowComposition
import WellflowCore
import WellflowExplorer
import WellflowScript

/// What the preview's page asks for: one JSON object a request.
public struct PreviewCommand: Sendable, Codable, Equatable {
  /// `start`, `launch`, `relaunch`, `reset`, `advance` or `action`.
  public var command: String
  public var flow: String?
  public var variant: String?
  /// `advance`: an amount such as `90s`, `30m`, `2h` or `1d`; or `toNextTimer`.
  public var amount: String?
  public var toNextTimer: Bool?
  /// `action`: `tap`, `select`, `enter`, `set`, `toggle`, `back` or `close`, with the
  /// element `id` and its `options`, `text`, `value` or `on`.
  public var action: String?
  public var id: String?
  public var options: [String]?
  public var text: String?
  public var value: Double?
  public var on: Bool?

  public init(
    command: String, flow: String? = nil, variant: String? = nil, amount: String? = nil,
    toNextTimer: Bool? = nil, action: String? = nil, id: String? = nil, options: [String]? = nil,
    text: String? = nil, value: Double? = nil, on: Bool? = nil
  ) {
    self.command = command
    self.flow = flow
    self.variant = variant
    self.amount = amount
    self.toNextTimer = toNextTimer
    self.action = action
    self.id = id
    self.options = options
    self.text = text
    self.value = value
    self.on = on
  }
}

/// Why a command was refused, in words for the page.
public struct PreviewError: Error, Sendable, Equatable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// Everything the page shows, sent after every change.
public struct PreviewState: Sendable, Codable, Equatable {
  public struct Flow: Sendable, Codable, Equatable {
    public var id: String
    public var variants: [String]
    public var defaultVariant: String
  }
  public struct QueryRow: Sendable, Codable, Equatable {
    public var id: String
    public var value: String
    public init(id: String, value: String) {
      self.id = id
      self.value = value
    }
  }
  public struct EventRow: Sendable, Codable, Equatable {
    public var time: String
    public var event: String
    public var detail: String
  }

  public var revision: Int
  /// The phone, drawn by the same renderer as the reports.
  public var screenHTML: String
  public var screen: String?
  public var alert: String?
  /// Presented flows, bottom first: `checkin (full)`.
  public var stack: [String]
  public var clock: String
  public var nextTimer: String?
  public var queries: [QueryRow]
  /// The latest events, oldest first, and how many there were in all.
  public var events: [EventRow]
  public var eventCount: Int
  /// Script steps taken so far.
  public var steps: [String]
  public var flows: [Flow]
  /// What went wrong on the way that no command was told of (a follow-up flow that failed).
  public var problems: [String]
}

/// The app behind `wellflow preview`: one user's app on a clock the page moves, with the
/// steps taken kept as script steps ("Copy as script"). Observers hear of every change
/// the host reports and of every command, so the page is pushed its updates.
@MainActor
public final class PreviewSession {
  public static let user = Script.defaultUser
  /// The page lists this many of the latest events.
  public static let shownEvents = 200

  public let registry: FlowRegistry
  /// Chooses the variant of a flow started without one (`--experiments`, `--growthbook`).
  public let assigner: ExperimentAssigner?
  /// The experiment file given, named in the script's header.
  public let experimentsPath: String?
  /// The GrowthBook payload given, named in the script's header too.
  public let growthBookPath: String?
  private var session: AppSession!
  private var analytics = InMemoryAnalyticsSink()
  private var embedded: EmbeddedBackend?
  private var observation: Task<Void, Never>?
  private var steps: [String] = []
  private var problems: [String] = []
  private(set) var revision = 0
  private var listeners: [Int: AsyncStream<Data>.Continuation] = [:]
  private var nextListener = 0
  /// The state last pushed, as JSON, and its revision: a page that opens its stream gets it
  /// without a new computation.
  private var pushed: (revision: Int, json: Data)?
  /// A computation for the streams is under way; changes meanwhile are caught up after it.
  private var pushing = false
  /// The streams were ended for good (the server is stopping).
  private var updatesEnded = false
  /// How many times the whole state (queries included) was computed: once per change for
  /// all open pages, not once per page.
  private(set) var stateComputations = 0
  private var busy = false
  private var waiting: [CheckedContinuation<Void, Never>] = []

  /// The clock starts where a script's does by default (UTC), so the steps replay the same.
  private let start = Script(file: "").start
  private let timeZone = TimeZone(identifier: "UTC")!

  /// The language screens show in (`--locale`); nil is English.
  public let locale: String?

  public init(
    registry: FlowRegistry, assigner: ExperimentAssigner? = nil, experimentsPath: String? = nil,
    growthBookPath: String? = nil, locale: String? = nil
  )
    throws
  {
    self.registry = registry
    self.assigner = assigner
    self.experimentsPath = experimentsPath
    self.growthBookPath = growthBookPath
    self.locale = locale
    try makeApp()
  }

  private func makeApp() throws {
    observation?.cancel()
    session?.close()
    analytics = InMemoryAnalyticsSink()
    let backend = EmbeddedBackend(databasePath: nil)
    embedded = backend
    let calendar = ManualClock.gregorian(in: timeZone)
    let startDate = calendar.date(from: start) ?? Date(timeIntervalSince1970: 0)
    session = AppSession(
      registry: registry, dataDirectory: URL(fileURLWithPath: "/dev/null"),
      clock: ManualClock(now: startDate, calendar: calendar), userID: Self.user, analytics: analytics,
      storage: .sqliteScratch,
      experiments: assigner, backend: backend,
      locale: locale)
    try openAndObserve()
  }

  /// Opens the app (if closed) and listens to its host.
  @discardableResult
  private func openAndObserve() throws -> FlowHost {
    let wasOpen = session.host != nil
    let host = try session.open()
    if !wasOpen || observation == nil {
      observation?.cancel()
      let changes = host.changes()
      observation = Task { [weak self] in
        for await _ in changes {
          guard !Task.isCancelled else { return }
          self?.notify()
        }
      }
    }
    return host
  }

  /// Ends the app and its observation (the server is stopping).
  public func close() async {
    endUpdates()
    observation?.cancel()
    observation = nil
    session?.close()
    if let embedded, embedded.wasStarted { await embedded.stop() }
  }

  /// Ends every page's stream, and any opened later, so the server can stop: a stream
  /// waits for changes forever otherwise.
  public func endUpdates() {
    updatesEnded = true
    for listener in listeners.values { listener.finish() }
    listeners = [:]
  }

  /// The state as JSON on every change, first the current one. The state is computed once
  /// per change for all pages (with many pages open, one each would multiply the work of
  /// every change); a page that falls behind gets the newest.
  public func updates() -> AsyncStream<Data> {
    let (stream, continuation) = AsyncStream<Data>.makeStream(bufferingPolicy: .bufferingNewest(1))
    guard !updatesEnded else {
      continuation.finish()
      return stream
    }
    nextListener += 1
    let id = nextListener
    listeners[id] = continuation
    continuation.onTermination = { [weak self] _ in
      Task { @MainActor in self?.listeners[id] = nil }
    }
    if let pushed, pushed.revision == revision {
      continuation.yield(pushed.json)
    } else {
      push()
    }
    return stream
  }

  private func notify() {
    revision += 1
    push()
  }

  /// Computes the state for the open streams unless a computation is under way (that one
  /// computes again when it ends behind).
  private func push() {
    guard !pushing, !listeners.isEmpty else { return }
    pushing = true
    Task {
      defer { pushing = false }
      while !listeners.isEmpty, pushed?.revision != revision {
        let state = await state()
        let json = (try? PreviewState.encoder.encode(state)) ?? Data("{}".utf8)
        pushed = (state.revision, json)
        for listener in listeners.values { listener.yield(json) }
      }
    }
  }

  /// One at a time: a command settles the host before the next begins.
  private func serially<T>(_ body: () async throws(PreviewError) -> T) async throws(PreviewError) -> T {
    if busy {
      await withCheckedContinuation { waiting.append($0) }
    } else {
      busy = true
    }
    defer {
      if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
    return try await body()
  }

  /// Carries out a command from the page; the steps it took become script steps.
  public func perform(_ command: PreviewCommand) async throws(PreviewError) {
    try await serially { () async throws(PreviewError) in
      defer { notify() }
      try await run(command)
    }
  }

  private func run(_ command: PreviewCommand) async throws(PreviewError) {
    func openHost() throws(PreviewError) -> FlowHost {
      do {
        return try openAndObserve()
      } catch {
        throw PreviewError("the app could not start: \(error)")
      }
    }
    switch command.command {
    case "reset":
      steps = []
      problems = []
      if let embedded, embedded.wasStarted { await embedded.stop() }
      do {
        try makeApp()
      } catch {
        throw PreviewError("the app could not start: \(error)")
      }
    case "launch":
      let host = try openHost()
      await host.launch()
      await settle(host)
      steps.append("- launch")
    case "relaunch":
      session.close()
      observation?.cancel()
      observation = nil
      let host = try openHost()
      await host.launch()
      await settle(host)
      steps.append("- relaunch")
    case "start":
      guard let flow = command.flow, !flow.isEmpty else { throw PreviewError("start needs a flow") }
      let variant = command.variant.flatMap { $0.isEmpty ? nil : $0 }
      let host = try openHost()
      do {
        try host.present(FlowRequest(flow: flow, variant: variant))
      } catch {
        throw PreviewError("start failed: \(error)")
      }
      await settle(host)
      steps.append(
        variant.map { "- start: {flow: \(yamlScalar(flow)), variant: \(yamlScalar($0))}" }
          ?? "- start: \(yamlScalar(flow))")
    case "advance":
      let host = try openHost()
      let advance: ClockAdvance
      if command.toNextTimer == true {
        guard let next = host.nextTimerDate else { throw PreviewError("no timer is pending") }
        advance = .seconds(max(next.timeIntervalSince(session.clock.now), 0))
      } else {
        guard let text = command.amount, let parsed = Self.parseAdvance(text) else {
          throw PreviewError(
            "advance takes an amount and a unit (s, m, h, d), e.g. 1d or 90m; got '\(command.amount ?? "")'")
        }
        advance = parsed
      }
      let now = session.clock.now
      let next: Date? =
        switch advance {
        case .seconds(let seconds): now.addingTimeInterval(seconds)
        case .days(let days): session.clock.calendar.date(byAdding: .day, value: days, to: now)
        }
      guard let next, next < ScriptRunner.endOfTime else {
        throw PreviewError("the clock would pass the end of year 9999")
      }
      await host.advanceClock(to: next)
      await settle(host)
      switch advance {
      case .seconds(let seconds): steps.append("- advance: \(ExploreStep.duration(seconds))")
      case .days(let days): steps.append("- advance: \(days)d")
      }
    case "action":
      let action = try Self.action(command)
      let host = try openHost()
      do {
        try host.send(action)
      } catch {
        throw PreviewError("\(action.name) failed: \(error)")
      }
      await settle(host)
      steps.append(action.scriptStep)
    default:
      throw PreviewError(
        "unknown command '\(command.command)' (commands: start, launch, relaunch, reset, advance, action)")
    }
  }

  private func settle(_ host: FlowHost) async {
    await host.settle()
    problems += host.takeProblems().map(\.description)
  }

  static func action(_ command: PreviewCommand) throws(PreviewError) -> UserAction {
    let name = command.action ?? ""
    func id() throws(PreviewError) -> String {
      guard let id = command.id, !id.isEmpty else { throw PreviewError("\(name) needs an element id") }
      return id
    }
    switch name {
    case "tap": return .tap(try id())
    case "select": return .select(try id(), command.options ?? [])
    case "enter": return .enter(try id(), command.text ?? "")
    case "set":
      guard let value = command.value, value.isFinite else { throw PreviewError("set needs a finite value") }
      return .set(try id(), value)
    case "toggle":
      guard let on = command.on else { throw PreviewError("toggle needs on: true or false") }
      return .toggle(try id(), on)
    case "back": return .back
    case "close": return .close
    default:
      throw PreviewError("unknown action '\(name)' (actions: tap, select, enter, set, toggle, back, close)")
    }
  }

  /// `90s`, `30m`, `2h`, `1d` (whole days), as a script's `advance` reads them.
  public static func parseAdvance(_ text: String) -> ClockAdvance? {
    let text = text.trimmingCharacters(in: .whitespaces)
    guard let unit = text.last, "smhd".contains(unit) else { return nil }
    let number = text.dropLast()
    guard !number.isEmpty, number.count <= 20, number.first != ".", number.last != ".",
      number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
      number.filter({ $0 == "." }).count <= 1,
      let amount = Double(number)
    else { return nil }
    let scale: Double = ["s": 1, "m": 60, "h": 3600, "d": 86_400][unit]!
    guard amount * scale <= ScriptLoader.maxAdvanceSeconds else { return nil }
    if unit == "d" { return Int(exactly: amount).map(ClockAdvance.days) }
    return .seconds(amount * scale)
  }

  /// The steps taken as a script `wellflow run` passes: the same user and start time,
  /// ending with what the screen shows now.
  public func script() async -> String {
    await (try? serially { () async throws(PreviewError) in scriptText() }) ?? ""
  }

  private func scriptText() -> String {
    var lines = ["# Steps taken in wellflow preview."]
    if let experimentsPath {
      lines.append(
        "# Run it with the same experiment file: wellflow run FILE --experiments \(experimentsPath)")
    }
    if let growthBookPath {
      lines.append(
        "# Run it with the same GrowthBook payload: wellflow run FILE --growthbook \(growthBookPath)")
    }
    let startText = String(
      format: "%04d-%02d-%02dT%02d:%02d", start.year ?? 2026, start.month ?? 1, start.day ?? 1,
      start.hour ?? 0,
      start.minute ?? 0)
    lines += ["name: preview session", "user: \(Self.user)", "start: \(startText)"]
    if let locale { lines.append("locale: \(locale)") }
    lines.append("steps:")
    lines += steps.map { "  " + $0 }
    let host = session.host
    if let screen = host?.screen {
      var expectation = "screen: \(yamlScalar(screen.id))"
      expectation += ", alert: \(screen.alert.map { yamlScalar($0.id) } ?? "null")"
      lines.append("  - expect: {\(expectation)}")
    } else {
      lines.append("  - expect: {idle: true}")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// What the page shows now.
  public func state() async -> PreviewState {
    await (try? serially { () async throws(PreviewError) in await currentState() })
      ?? currentStateWithoutQueries()
  }

  private func currentStateWithoutQueries() -> PreviewState {
    let host = session.host
    let screen = host?.screen
    let events = analytics.events
    let clock = session.clock
    var nextTimer: String?
    if let date = host?.nextTimerDate {
      nextTimer =
        "\(Self.format(date, clock.calendar)) (in \(Self.span(date.timeIntervalSince(clock.now))))"
    }
    return PreviewState(
      revision: revision, screenHTML: ScreenHTML.phone(screen, options: .preview), screen: screen?.id,
      alert: screen?.alert?.id,
      stack: host?.stack.map { "\($0.flow) (\($0.variant))" } ?? [],
      clock: Self.format(clock.now, clock.calendar) + " UTC",
      nextTimer: nextTimer, queries: [],
      events: events.suffix(Self.shownEvents).map { event in
        var detail: [String] = []
        if let flow = event.flow { detail.append(flow + (event.variant.map { " (\($0))" } ?? "")) }
        for (key, value) in event.fields.sorted(by: { $0.key < $1.key }) where key != "trigger" {
          switch value {
          case .string(let text): detail.append("\(key)=\(text)")
          case .number(let number): detail.append("\(key)=\(formatNumber(number))")
          case .bool(let flag): detail.append("\(key)=\(flag)")
          }
        }
        return PreviewState.EventRow(
          time: Self.format(event.ts, clock.calendar), event: event.event,
          detail: detail.joined(separator: " "))
      },
      eventCount: events.count, steps: steps,
      flows: registry.flows.map {
        .init(id: $0.id, variants: $0.variants, defaultVariant: $0.defaultVariant)
      },
      problems: problems)
  }

  private func currentState() async -> PreviewState {
    stateComputations += 1
    var state = currentStateWithoutQueries()
    guard let host = session.host else { return state }
    for query in registry.queries {
      let text: String
      do {
        let value = try await host.query(query.id)
        if query.isFreeText, case .text(let typed) = value {
          text = describeFreeText(typed)
        } else {
          text = value.description
        }
      } catch {
        text = "error: \(error)"
      }
      state.queries.append(.init(id: query.id, value: text))
    }
    return state
  }

  /// `15h`, `1d 2h`, `90s`: how far off a timer is, for people.
  static func span(_ seconds: Double) -> String {
    guard seconds.isFinite, seconds >= 0, seconds < 1e12 else { return "–" }
    let whole = Int(seconds.rounded(.up))
    let (days, hours, minutes, rest) = (whole / 86_400, whole % 86_400 / 3600, whole % 3600 / 60, whole % 60)
    let parts = [(days, "d"), (hours, "h"), (minutes, "m"), (rest, "s")].filter { $0.0 > 0 }.prefix(2)
    return parts.isEmpty ? "0s" : parts.map { "\($0.0)\($0.1)" }.joined(separator: " ")
  }

  static func format(_ date: Date, _ calendar: Calendar) -> String {
    let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    return String(
      format: "%04d-%02d-%02d %02d:%02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
      parts.hour ?? 0,
      parts.minute ?? 0, parts.second ?? 0)
  }
}

extension PreviewState {
  /// As the page reads it.
  static var encoder: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }
}

extension PreviewSession {
  /// The app's flows, with the experiments and variants of `experimentsPath` and the
  /// features of the GrowthBook payload at `growthBookPath` when given; a file with
  /// problems is refused with one `file:line:column: message` line each.
  public static func make(experimentsPath: String?, growthBookPath: String? = nil, locale: String? = nil)
    throws(PreviewError) -> PreviewSession
  {
    if let problem = WellflowLocalization.problem(with: locale) { throw PreviewError("\(problem)") }
    switch VariantSources.load(experimentsPath: experimentsPath, growthBookPath: growthBookPath) {
    case .failure(let error): throw PreviewError(error.description)
    case .success(let sources):
      do {
        return try PreviewSession(
          registry: sources.registry, assigner: sources.assigner(), experimentsPath: experimentsPath,
          growthBookPath: growthBookPath, locale: locale)
      } catch {
        throw PreviewError("the app could not start: \(error)")
      }
    }
  }
}
