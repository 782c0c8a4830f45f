import Experiments
import FlowKit
import Foundation
import Sync
import SyncHTTPClient
import WellflowComposition
import YAMLTree

/// How one step went.
public struct StepResult: Sendable, Codable, Equatable {
  public enum Status: String, Sendable, Codable { case passed, failed, warning, skipped }

  public var position: SourcePosition
  public var summary: String
  public var label: String?
  public var status: Status
  /// The screen the step led to (`none` when no flow is presented).
  public var screen: String
  public var message: String?
  /// Nesting under `run`, `repeat` and `if`.
  public var depth: Int
  /// Wall time the step took (for `run`, `repeat` and `if`: until their own steps began).
  public var durationSeconds: Double
  /// The screen after the step, kept when the runner is asked to (HTML reports); not
  /// part of the JSON document.
  public var screenAfter: Screen? = nil

  enum CodingKeys: String, CodingKey {
    case position, summary, label, status, screen, message, depth, durationSeconds
  }
}

/// How one script run went.
public struct ScriptResult: Sendable, Codable {
  public var name: String
  public var file: String
  public var user: String
  public var tags: [String]
  public var steps: [StepResult]
  /// `file:line:column: message` of the failing step, with the current screen.
  public var failure: Failure?
  public var durationSeconds: Double

  public struct Failure: Sendable, Codable, Equatable {
    public var position: SourcePosition
    public var message: String
    public var currentScreen: String

    public var headline: String { "\(position): \(message)" }
  }

  public var passed: Bool { failure == nil }
}

/// Runs validated scripts against a fresh app (or the shared data directory), settling
/// the host between steps so that no step ever waits for real time.
@MainActor
public final class ScriptRunner {
  public struct Options: Sendable {
    /// Shared data directory; nil gives each script run a fresh one.
    public var dataDirectory: URL?
    public var analytics: any AnalyticsSink
    public var storage: AppSession.StorageMode
    /// From `--experiments FILE`: they choose the variant of a flow started without one.
    public var experiments: [FlowExperiment]
    /// From `--growthbook FILE`: its `wellflow.<flow>` features choose variants.
    public var growthBook: GrowthBookPayload?
    public var backend: BackendChoice
    /// Keep the screen after each step in its result (for an HTML report).
    public var capturesScreens: Bool
    /// Keep each step in the result; without it the steps go to `onStep` only and the
    /// result's are empty, so a run of millions of steps holds none of them.
    public var keepsSteps: Bool
    /// The language of scripts that name none (`--locale`); nil is English.
    public var locale: String?
    /// `--seed`: with the user id, draws each `maybe:` step.
    public var seed: UInt64

    public init(
      dataDirectory: URL? = nil, analytics: any AnalyticsSink = DiscardingAnalyticsSink(),
      storage: AppSession.StorageMode = .sqlite, experiments: [FlowExperiment] = [],
      growthBook: GrowthBookPayload? = nil, backend: BackendChoice = .embedded, capturesScreens: Bool = false,
      keepsSteps: Bool = true, locale: String? = nil, seed: UInt64 = 0
    ) {
      self.capturesScreens = capturesScreens
      self.keepsSteps = keepsSteps
      self.locale = locale
      self.dataDirectory = dataDirectory
      self.analytics = analytics
      self.storage = storage
      self.experiments = experiments
      self.growthBook = growthBook
      self.backend = backend
      self.seed = seed
    }
  }

  struct StepFailure: Error {
    var position: SourcePosition
    var message: String
  }

  public let registry: FlowRegistry
  /// Read at the start of each run, so a caller may change them between runs.
  public var options: Options
  /// Called with each step as it ends, for output that is printed as a run goes.
  public var onStep: ((StepResult) -> Void)?
  /// Runs without a data directory keep no files.
  private static let noDirectory = URL(fileURLWithPath: "/dev/null")
  private(set) var session: AppSession!
  private var steps: [StepResult] = []
  /// The steps of the current run held for its result (none without `keepsSteps`).
  package var retainedSteps: Int { steps.count }
  /// `maybe` steps drawn so far in this run (a `maybe` in a `repeat` draws each round).
  var maybeDraws = 0
  /// Stamps this run's events at a person's pace; think times drawn so far.
  private var pace: PacedAnalyticsSink?
  private var paceDraws = 0

  public init(registry: FlowRegistry, options: Options = Options()) {
    self.registry = registry
    self.options = options
  }

  /// Runs a script as `user` (the script's own user when nil).
  public func run(_ script: Script, as user: String? = nil) async -> ScriptResult {
    let started = ContinuousClock.now
    let user = user ?? script.user
    // Without a data directory nothing is kept, so SQLite runs in memory: no files,
    // no fsync, the embedded backend's rows in memory too.
    let storage: AppSession.StorageMode =
      options.dataDirectory == nil && options.storage == .sqlite ? .sqliteScratch : options.storage
    let directory = options.dataDirectory ?? Self.noDirectory
    let embedded: EmbeddedBackend?
    let backend: any BackendConnector
    switch options.backend {
    case .embedded:
      let server = EmbeddedBackend(
        databasePath: storage == .sqlite
          ? directory.appendingPathComponent(EmbeddedBackend.fileName).path : nil)
      embedded = server
      backend = server
    case .remote(let credentials):
      embedded = nil
      backend = FixedBackendConnector(credentials: credentials, transport: HTTPClientTransport.shared)
    }
    var registry = registry
    if !script.followUps.isEmpty {
      switch registry.registering(script.followUps) {
      case .success(let withRules): registry = withRules
      case .failure(let problem):
        return ScriptResult(
          name: script.name, file: script.file, user: user, tags: script.tags, steps: [],
          failure: ScriptResult.Failure(
            position: problem.position, message: problem.message, currentScreen: "current screen: none"),
          durationSeconds: 0)
      }
    }
    let pace = PacedAnalyticsSink(options.analytics)
    self.pace = pace
    paceDraws = 0
    session = AppSession(
      registry: registry, dataDirectory: directory,
      clock: ManualClock(now: script.startDate, calendar: script.calendar),
      userID: user, analytics: pace, storage: storage,
      experiments: ExperimentAssigner.ifAny(
        experiments: options.experiments, forced: script.experiments, payload: options.growthBook,
        targeting: registry.targetingAttributes),
      backend: backend, locale: script.locale ?? options.locale)
    steps = []
    maybeDraws = 0
    var failure: ScriptResult.Failure?
    do {
      try await execute(script.steps, depth: 0)
    } catch {
      failure = ScriptResult.Failure(
        position: error.position, message: error.message, currentScreen: describeCurrentScreen())
    }
    session.close()
    session = nil
    self.pace = nil
    if let embedded, embedded.wasStarted { await embedded.stop() }
    let elapsed = ContinuousClock.now - started
    // The result holds the steps from here: the runner keeps none between runs.
    let kept = steps
    steps = []
    return ScriptResult(
      name: script.name, file: script.file, user: user, tags: script.tags, steps: kept, failure: failure,
      durationSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
  }

  var host: FlowHost? { session.host }

  /// A uniform draw in [0, 1) for the `occurrence`-th `maybe` of a run, from the run's seed,
  /// the user id and the step's place in its file: the same inputs always draw the same, so
  /// `--users N` simulates the same population every time, and users differ.
  /// `stream` keeps other draws (think times) apart from those of `maybe` steps.
  static func draw(seed: UInt64, user: String, step: SourcePosition, occurrence: Int, stream: String = "")
    -> Double
  {
    // FNV-1a of "user\0NAME:LINE:COLUMN\0OCCURRENCE[\0STREAM]", NAME the file's last path
    // component, hashed piece by piece: a population with events draws for every think
    // time, and building the text (and NSString's path call) cost more than the hash.
    var state: UInt64 = 0xCBF2_9CE4_8422_2325
    func mix(_ bytes: some Sequence<UInt8>) {
      for byte in bytes { state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    }
    let path = step.file.utf8
    mix(user.utf8)
    mix(CollectionOfOne(0))
    mix(path.lastIndex(of: UInt8(ascii: "/")).map { path[path.index(after: $0)...] } ?? path[...])
    mix(CollectionOfOne(UInt8(ascii: ":")))
    mix(String(step.line).utf8)
    mix(CollectionOfOne(UInt8(ascii: ":")))
    mix(String(step.column).utf8)
    mix(CollectionOfOne(0))
    mix(String(occurrence).utf8)
    if !stream.isEmpty {
      mix(CollectionOfOne(0))
      mix(stream.utf8)
    }
    // SplitMix64's finalizer mixes the seed and the text's FNV-1a hash.
    var z = state ^ (seed &+ 0x9E37_79B9_7F4A_7C15)
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    z ^= z >> 31
    return Double(z >> 11) / Double(UInt64(1) << 53)
  }

  /// Where a script's clock stops: dates past four-digit years are refused, not computed.
  public static let endOfTime = Date(timeIntervalSince1970: 253_402_300_800)  // 10000-01-01T00:00Z

  func execute(_ list: [Step], depth: Int) async throws(StepFailure) {
    for step in list {
      let started = ContinuousClock.now
      do {
        try await execute(step, depth: depth)
      } catch {
        guard step.isOptional else {
          record(step, .failed, depth: depth, started: started, message: error.message)
          throw error
        }
        record(
          step, .warning, depth: depth, started: started,
          message: "\(error.position): \(error.message) (optional step, going on)")
      }
    }
  }

  private func execute(_ step: Step, depth: Int) async throws(StepFailure) {
    let started = ContinuousClock.now
    func fail(_ message: String) -> StepFailure { StepFailure(position: step.position, message: message) }
    // A person takes a moment before each step of theirs: only the event stamps show it.
    if let pace, pace.isRecording, let times = step.command.thinkTimes {
      paceDraws += 1
      let draw = Self.draw(
        seed: options.seed, user: session.userID, step: step.position, occurrence: paceDraws, stream: "pace")
      pace.pause(times.lowerBound + (times.upperBound - times.lowerBound) * draw)
    }
    let running = RunningStep(runner: self, step: step, depth: depth, started: started)
    switch try await step.command.run(running) {
    case .recorded: return
    case .settle: break
    }
    if let host {
      await host.settle()
      let problems = host.takeProblems()
      if !problems.isEmpty { throw fail(problems.map(\.description).joined(separator: "; ")) }
    }
    record(step, .passed, depth: depth, started: started)
  }

  /// The running app, started if it is not. A started app first fires what fell due
  /// while it was closed (a reminder the system would have delivered meanwhile).
  func openHost(_ step: Step) async throws(StepFailure) -> FlowHost {
    do {
      return try await runningHost()
    } catch {
      throw StepFailure(position: step.position, message: "the app could not start: \(error)")
    }
  }

  /// The running app, started if it is not: what was due while it was closed (a daily
  /// reminder) fires first, as when a person opens it.
  private func runningHost() async throws -> FlowHost {
    let wasRunning = session.host != nil
    let host = try session.open()
    if !wasRunning { await host.fireDueTimers() }
    return host
  }

  func record(
    _ step: Step, _ status: StepResult.Status, depth: Int, started: ContinuousClock.Instant,
    message: String? = nil
  ) {
    let elapsed = ContinuousClock.now - started
    let result = StepResult(
      position: step.position, summary: step.summary, label: step.label, status: status,
      screen: host?.screenID ?? "none", message: message, depth: depth,
      durationSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18,
      screenAfter: options.capturesScreens ? host?.screen : nil)
    onStep?(result)
    if options.keepsSteps { steps.append(result) }
  }

  /// nil when the condition holds, else what was there instead.
  func check(_ condition: Condition) async -> String? {
    let screen = host?.screen
    let shown = screen?.id ?? "none (no flow is presented)"
    switch condition {
    case .screen(let expected):
      return screen?.id == expected ? nil : "screen is \(shown), expected \(expected)"
    case .alert(let expected):
      let actual = screen?.alert?.id
      guard actual != expected else { return nil }
      return "alert is \(actual ?? "none"), expected \(expected ?? "none")"
    case .notification(let expected):
      // Notifications are the system's: reading them starts the app as any start does,
      // so one that fell due while it was closed is delivered first.
      guard let host = try? await runningHost() else {
        return "the app could not start to read its notifications"
      }
      do {
        let unopened = try await host.unopenedNotifications()
        if let expected {
          return unopened.contains(expected)
            ? nil
            : "no \(expected) notification is delivered and unopened"
              + (unopened.isEmpty ? "" : " (unopened: \(unopened.joined(separator: ", ")))")
        }
        return unopened.isEmpty
          ? nil
          : "\(unopened.count) notification(s) delivered and unopened (\(unopened.joined(separator: ", "))), expected none"
      } catch {
        return "the notifications could not be read: \(error)"
      }
    case .idle(let expected):
      let idle = host?.isIdle ?? true
      guard idle != expected else { return nil }
      return idle
        ? "no flow is presented, expected one"
        : "\(host?.top?.flow ?? "a flow") is presented on \(shown), expected idle"
    case .topFlow(let expected):
      let actual = host?.top?.flow
      return actual == expected ? nil : "the top flow is \(actual ?? "none"), expected \(expected)"
    case .outcome(let flow, let expected):
      // The latest run is the one still on screen, if any: an older ending must not pass.
      if host?.stack.contains(where: { $0.flow == flow }) == true {
        return
          "\(flow) is still presented on \(shown) (its latest run has not ended), expected \(expected.rawValue)"
      }
      guard let ending = host?.latestEndings[flow] else {
        return "\(flow) has not ended (yet), expected \(expected.rawValue)"
      }
      return ending.outcome == expected
        ? nil : "\(flow)'s latest run was \(ending.outcome.rawValue), expected \(expected.rawValue)"
    case .enabled(let id), .disabled(let id):
      let wantEnabled = if case .enabled = condition { true } else { false }
      guard let element = screen?.element(id) else { return "\(shown) has no element '\(id)'" }
      guard element.isEnabled != wantEnabled else { return nil }
      return
        "'\(id)' is \(element.isEnabled ? "enabled" : "disabled"), expected \(wantEnabled ? "enabled" : "disabled")"
    case .value(let id, let matcher):
      guard let element = screen?.element(id) else { return "\(shown) has no element '\(id)'" }
      guard !matcher.matches(element.value) else { return nil }
      let expected = if case .text = element.kind { matcher.freeText } else { matcher.description }
      return "value of \(id) is \(element.shownValue), expected \(expected)"
    case .text(let text):
      guard let screen else { return "'\(text)' is not on the screen: no flow is presented" }
      return screen.visibleText.contains { Self.occurs(text, in: $0) }
        ? nil : "'\(text)' is not on screen \(screen.id)"
    case .data(let query, let matcher):
      guard let host = try? session.open() else { return "the app could not start to answer \(query)" }
      do {
        let value = try await host.query(query)
        guard !matcher.matches(value) else { return nil }
        if registry.query(query)?.isFreeText == true {
          let actual = if case .text(let text) = value { describeFreeText(text) } else { value.description }
          return "\(query) is \(actual), expected \(matcher.freeText)"
        }
        return "\(query) is \(value), expected \(matcher)"
      } catch {
        return "\(error)"
      }
    }
  }

  /// Whether `text` occurs in `line`, Character by Character, as `firstRange(of:)` finds
  /// it (the empty text occurs everywhere). The standard library's search builds a table
  /// of the pattern's characters first: a dictionary whose first use in a process cost a
  /// scan of every conformance in the binary, for lines of a few words.
  nonisolated static func occurs(_ text: String, in line: String) -> Bool {
    if text.isEmpty { return true }
    var start = line.startIndex
    while start < line.endIndex {
      if line[start...].starts(with: text) { return true }
      line.formIndex(after: &start)
    }
    return false
  }

  private func describeCurrentScreen() -> String {
    guard let host, let screen = host.screen else { return "current screen: none (no flow is presented)" }
    return Self.describe(screen)
  }

  /// A screen in a few lines: what a person would see and what a script can address.
  /// Typed text is shown as its length unless `showingTypedText` (the player, where the
  /// person sees what they type).
  public static func describe(_ screen: Screen, showingTypedText: Bool = false) -> String {
    var lines = [
      "current screen: \(screen.id) \"\(screen.title)\"" + (screen.progress.map { " (step \($0))" } ?? "")
    ]
    if let message = screen.message { lines.append("  message: \(message)") }
    for element in screen.elements {
      var line = "  \(element.id): \(element.kind.name)"
      switch element.kind {
      case .button: break
      case .choice(let options, _):
        line += " = \(element.value) (options: \(options.map(\.id).joined(separator: ", ")))"
      default: line += " = \(showingTypedText ? element.value.description : element.shownValue)"
      }
      if !element.isEnabled { line += " (disabled)" }
      lines.append(line)
    }
    if let alert = screen.alert {
      lines.append(
        "  alert \(alert.id): \"\(alert.title)\" buttons: \(alert.buttons.map(\.id).joined(separator: ", "))")
    }
    return lines.joined(separator: "\n")
  }
}
