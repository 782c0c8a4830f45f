import ArgumentParser
import Experiments
import FlowKit
import Foundation
import WellflowComposition
import WellflowExplorer
import WellflowScript

/// Everything `wellflow play` takes, declared once: the command line parses it.
public struct PlayConfiguration: ParsableArguments, Sendable {
  /// Screens as text, or as one line of JSON each with accessibility labels and value texts.
  public enum Format: String, CaseIterable, Sendable, ExpressibleByArgument { case text, json }

  @Argument(help: "The flow to play (see `wellflow flows`).")
  public var flow: String

  @Option(help: "The variant to play; the flow's default (or the experiment's choice) when omitted.")
  public var variant: String?

  /// `--experiments FILE`: its declared variants can be played; its experiments choose
  /// the variant when none is given.
  @OptionGroup public var sources: VariantOptions

  @Option(help: "The language screens show in: en (the default) or de.")
  public var locale: String?

  @Option(
    help: "How screens are printed: text, or json (one line each, with accessibility labels and values).")
  public var format: Format = .text

  public init() {}

  /// The defaults for `flow`, as `wellflow play FLOW` gives them, with the values given.
  public init(
    flow: String, variant: String? = nil, experimentsPath: String? = nil, locale: String? = nil,
    json: Bool = false
  ) {
    self = .parsed(["--", flow])
    self.variant = variant
    self.sources.experiments = experimentsPath
    self.locale = locale
    self.format = json ? .json : .text
  }

  public var experimentsPath: String? { sources.experiments }
  public var json: Bool { format == .json }
}

/// `wellflow play`: one flow by hand, in a fresh in-memory app. It draws the screen with
/// its labels, captions and alert, reads one command a line (`tap continue`, `select
/// labels calm,proud`, …), prints the error of a refused action and goes on, follows into
/// the flows presented after it (a check-in's journal), and stops when no flow is left,
/// on `quit` or at the end of the input. Exit 0, 1 when a command it read failed (did not
/// parse or was refused), or 2 when the flow, variant or experiment file is unknown or wrong.
@MainActor
public enum PlayCommand {
  /// `readLine` gives the next line, nil at the end of the input. `prompt`, when
  /// given, is written before each line is read (a terminal); without it each
  /// command is echoed, so a piped session reads as a transcript.
  public static func execute(
    _ configuration: PlayConfiguration, sources given: VariantSources? = nil, readLine: () -> String?,
    prompt: (@Sendable (String) -> Void)? = nil, console: Console = .standard
  ) async -> Int32 {
    if let problem = WellflowLocalization.problem(with: configuration.locale) {
      console.err("error: \(problem)")
      return 2
    }
    let session: AppSession
    let host: FlowHost
    do {
      // Sources given are the variant files already read (the command line reads them for
      // `--variant`'s default), so they are not read again. Either way their experiments
      // choose the variants of the flows presented later (a check-in's journal), for the
      // same user that chose the first.
      let sources: VariantSources
      if let given {
        sources = given
      } else {
        guard
          let loaded = VariantSources.load(
            experimentsPath: configuration.experimentsPath, growthBookPath: configuration.sources.growthBook,
            console: console)
        else { return 2 }
        sources = loaded
      }
      session = AppSession(
        registry: sources.registry,
        dataDirectory: URL(fileURLWithPath: "/dev/null"),
        clock: ManualClock(now: FlowExplorer.startDate, timeZone: TimeZone(identifier: "UTC")!),
        userID: configuration.sources.user, analytics: DiscardingAnalyticsSink(), storage: .sqliteScratch,
        experiments: sources.assigner(),
        locale: configuration.locale)
      host = try session.open()
      try host.present(FlowRequest(flow: configuration.flow, variant: configuration.variant))
    } catch {
      console.err("error: \(error)")
      return 2
    }
    defer { session.close() }
    await host.settle()
    guard var current = host.top else {
      console.out(ending(of: configuration.flow, host: host))
      return 0
    }
    var drawing = PlayScreen()
    // A piped session is a check: a refused command fails it, though play goes on.
    var failed = false
    var code: Int32 { failed ? 1 : 0 }
    console.out("playing \(current.flow) (variant \(current.variant)); type `help` for the commands")
    report(host.takeProblems(), console)
    if let screen = host.screen { console.out(show(screen, configuration, &drawing)) }

    while true {
      prompt?("> ")
      guard let line = readLine() else {
        console.out("input ended; \(current.flow) is still on \(host.screenID ?? "no screen")")
        return code
      }
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
      // Piped input is text someone else may have written: shown, never acted on.
      if prompt == nil { console.out("> \(terminalSafe(trimmed))") }
      switch PlayInput.parse(trimmed) {
      case .failure(let error):
        failed = true
        console.out("error: \(terminalSafe("\(error)"))")
      case .success(.help):
        console.out(PlayInput.commands)
      case .success(.screen):
        if let screen = host.screen { console.out(show(screen, configuration, &drawing, full: true)) }
      case .success(.quit):
        console.out("left \(current.flow) on \(host.screenID ?? "no screen")")
        return code
      case .success(.action(let action)):
        do {
          try host.send(action)
        } catch {
          failed = true
          console.out("error: \(terminalSafe("\(error)"))")
          continue
        }
        await host.settle()
        report(host.takeProblems(), console)
        guard let top = host.top else {
          console.out(ending(of: current.flow, host: host))
          return code
        }
        if top.serial != current.serial {
          // A follow-up flow (or one shown on top): play goes on in it.
          let stillShown = host.stack.contains { $0.serial == current.serial }
          console.out(
            stillShown
              ? "\(top.flow) (variant \(top.variant)) is presented on top of \(current.flow)"
              : "\(ending(of: current.flow, host: host)) (variant \(top.variant)); playing on")
          current = top
        }
        if let screen = host.screen { console.out(show(screen, configuration, &drawing)) }
      }
    }
  }

  /// The screen as text (labels, options once per screen unless `full`) or as one line
  /// of JSON with accessibility labels and values.
  private static func show(
    _ screen: Screen, _ configuration: PlayConfiguration, _ drawing: inout PlayScreen, full: Bool = false
  ) -> String {
    // Typed text is shown in the text drawing, each line through `terminalSafe`; JSON
    // escapes by its own encoder.
    configuration.json
      ? ScreenDump.json(screen, showingTypedText: true)
      : drawing.describe(screen, full: full).split(separator: "\n", omittingEmptySubsequences: false)
        .map { terminalSafe(String($0)) }.joined(separator: "\n")
  }

  private static func ending(of flow: String, host: FlowHost) -> String {
    let outcome = host.latestEndings[flow]?.outcome.rawValue ?? "ended"
    var text = "\(flow) \(outcome)"
    if let next = host.top { text += "; the app now presents \(next.flow)" }
    return text
  }

  private static func report(_ problems: [HostError], _ console: Console) {
    for problem in problems { console.out("problem: \(terminalSafe("\(problem)"))") }
  }
}
