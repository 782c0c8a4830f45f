import FlowKit
import Foundation
import WellflowComposition

public struct PlayConfiguration: Sendable {
  public var flow: String
  public var variant: String?
  /// The language screens show in; nil is English.
  public var locale: String?
  /// Screens as text (the default) or as one line of JSON each, with accessibility labels
  /// and value texts.
  public var json = false

  public init(flow: String, variant: String? = nil, locale: String? = nil, json: Bool = false) {
    self.flow = flow
    self.variant = variant
    self.locale = locale
    self.json = json
  }
}

/// `wellflow play`: one flow by hand, in a fresh in-memory app. It prints the screen,
/// reads one command a line (`tap continue`, `select labels calm,proud`, …), prints the
/// error of a refused action and goes on, and stops when the flow ends, on `quit` or
/// at the end of the input. Exit 0, or 2 when the flow or variant is unknown.
@MainActor
public enum PlayCommand {
  /// `readLine` gives the next line, nil at the end of the input. `prompt`, when
  /// given, is written before each line is read (a terminal); without it each
  /// command is echoed, so a piped session reads as a transcript.
  public static func execute(
    _ configuration: PlayConfiguration, registry: FlowRegistry? = nil, readLine: () -> String?,
    prompt: (@Sendable (String) -> Void)? = nil, console: Console = .standard
  ) async -> Int32 {
    if let locale = configuration.locale, !WellflowLocalization.locales.contains(locale) {
      console.err(
        "error: unknown locale '\(locale)' (locales: \(WellflowLocalization.locales.joined(separator: ", ")))"
      )
      return 2
    }
    let session: AppSession
    let host: FlowHost
    do {
      session = AppSession(
        registry: try registry ?? WellflowApp.makeRegistry(),
        dataDirectory: URL(fileURLWithPath: "/dev/null"),
        clock: ManualClock(now: FlowExplorer.startDate, timeZone: TimeZone(identifier: "UTC")!),
        userID: "user-1", analytics: DiscardingAnalyticsSink(), storage: .memory, locale: configuration.locale
      )
      host = try session.open()
      try host.present(FlowRequest(flow: configuration.flow, variant: configuration.variant))
    } catch {
      console.err("error: \(error)")
      return 2
    }
    defer { session.close() }
    await host.settle()
    guard let presented = host.top else {
      console.out(ending(of: configuration.flow, host: host))
      return 0
    }
    console.out("playing \(presented.flow) (variant \(presented.variant)); type `help` for the commands")
    report(host.takeProblems(), console)
    if let screen = host.screen { console.out(show(screen, configuration)) }

    while true {
      prompt?("> ")
      guard let line = readLine() else {
        console.out("input ended; \(presented.flow) is still on \(host.screenID ?? "no screen")")
        return 0
      }
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
      if prompt == nil { console.out("> \(trimmed)") }
      switch PlayInput.parse(trimmed) {
      case .failure(let error):
        console.out("error: \(error)")
      case .success(.help):
        console.out(PlayInput.commands)
      case .success(.screen):
        if let screen = host.screen { console.out(show(screen, configuration)) }
      case .success(.quit):
        console.out("left \(presented.flow) on \(host.screenID ?? "no screen")")
        return 0
      case .success(.action(let action)):
        do {
          try host.send(action)
        } catch {
          console.out("error: \(error)")
          continue
        }
        await host.settle()
        report(host.takeProblems(), console)
        guard host.top?.serial == presented.serial else {
          console.out(ending(of: presented.flow, host: host))
          return 0
        }
        if let screen = host.screen { console.out(show(screen, configuration)) }
      }
    }
  }

  private static func show(_ screen: Screen, _ configuration: PlayConfiguration) -> String {
    configuration.json
      ? ScreenDump.json(screen, showingTypedText: true)
      : ScriptRunner.describe(screen, showingTypedText: true)
  }

  private static func ending(of flow: String, host: FlowHost) -> String {
    let outcome = host.latestEndings[flow]?.outcome.rawValue ?? "ended"
    var text = "\(flow) \(outcome)"
    if let next = host.top { text += "; the app now presents \(next.flow)" }
    return text
  }

  private static func report(_ problems: [HostError], _ console: Console) {
    for problem in problems { console.out("problem: \(problem)") }
  }
}
