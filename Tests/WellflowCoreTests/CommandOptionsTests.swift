import ArgumentParser
import Testing
import WellflowCore
import WellflowExplorer

/// The commands' options are their configurations, declared once: what a person types is
/// parsed and refused with the message the command line prints.
@Suite("Command options")
struct CommandOptionsTests {
  /// The message `wellflow` prints for these arguments, or nil when they parse.
  func refusal<T: ParsableArguments>(_ type: T.Type, _ arguments: [String]) -> String? {
    do {
      _ = try type.parse(arguments)
      return nil
    } catch {
      return type.message(for: error)
    }
  }

  @Test func exploreAndGraphRefuseTheSameLimitsWithTheSameMessages() {
    for type in [ExploreConfiguration.self, GraphConfiguration.self] as [any ParsableArguments.Type] {
      #expect(refusal(type, ["onboarding", "--depth", "0"]) == "--depth must be at least 1, got 0")
      #expect(refusal(type, ["onboarding", "--max-states", "0"]) == "--max-states must be at least 1, got 0")
      #expect(refusal(type, ["onboarding", "--depth", "3", "--max-states", "5"]) == nil)
    }
    #expect(
      refusal(ExploreConfiguration.self, ["onboarding", "--max-sequences", "0"])
        == "--max-sequences must be at least 1, got 0")
    #expect(
      refusal(GraphConfiguration.self, ["onboarding", "--max-sequences", "2"]) != nil,
      "graph takes no sequences")
  }

  @Test func parsedOptionsReachTheConfigurationAndDefaultsMatchTheInitializer() throws {
    let explore = try ExploreConfiguration.parse([
      "journal", "--depth", "5", "--format", "json", "--user", "u-2",
    ])
    #expect(explore.flow == "journal" && explore.depth == 5 && explore.format == .json)
    #expect(explore.sources.user == "u-2")
    let defaults = ExploreConfiguration(flow: "journal")
    #expect(
      defaults.depth == FlowExplorer.defaultDepth && defaults.maxStates == nil && defaults.format == .text)
    #expect(GraphConfiguration(flow: "journal").format == .mermaid)

    let run = try RunConfiguration.parse([
      "a.yaml", "--junit", "r.xml", "--append", "-e", "K=V", "--data-dir", "d",
    ])
    #expect(run.paths == ["a.yaml"] && run.junitPath == "r.xml" && run.appendEvents)
    #expect(run.variables == ["K=V"] && run.dataDirectory == "d" && run.executable == nil)
    #expect(RunConfiguration(paths: ["-a.yaml"]).paths == ["-a.yaml"], "paths are never options")
  }

  /// `run` as the app declares it, its options and a super-command name, under a root
  /// like the app's `wellflow`: the parse `wellflow run …` gets without the shortcut.
  private struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", _superCommandName: "wellflow")
    @OptionGroup var options: RunConfiguration
  }

  private struct Root: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "wellflow", subcommands: [Run.self])
  }

  /// `wellflow run` parsed alone (the start-up's shortcut) gives what the parse from the
  /// root gives, and leaves help, completion scripts and mistakes to the root.
  @Test func runParsedAloneIsWhatTheRootParses() throws {
    func described(_ run: RunConfiguration?) -> String {
      var text = ""
      dump(run, to: &text)
      return text
    }
    let accepted: [[String]] = [
      ["a.yaml"], ["a.yaml", "b"], ["--", "-a.yaml", "--help"], ["a.yaml", "--quiet", "--format", "json"],
      [
        "a.yaml", "--junit", "r.xml", "--html", "r.html", "--data-dir", "d", "--shard", "1/2",
        "--include-tags", "x,y", "--exclude-tags", "z", "--users", "3", "--events", "e.ndjson", "--append",
        "--jobs", "2", "--experiments", "e.yaml", "--growthbook", "g.json", "--seed", "7", "-e", "K=V",
        "-e", "L=W", "--backend", "http://h", "--api-key", "k", "--token", "t", "--locale", "de",
        "--scripts-root", "s",
      ],
      ["--format=json", "a.yaml", "--worker", "1:2:-:dir"], ["a.yaml", "help"],
    ]
    let refused: [[String]] = [
      [], ["-h"], ["a.yaml", "--help"], ["--generate-completion-script"],
      ["a.yaml", "--generate-completion-script", "zsh"], ["--generate-completion-script=bash"],
      ["---completion", "--", "--format", "0", "0"], ["--experimental-dump-help"], ["a.yaml", "--version"],
      ["a.yaml", "--nope"], ["a.yaml", "--users", "x"], ["a.yaml", "--format", "xml"],
      ["a.yaml", "--worker", "nonsense"],
    ]
    for arguments in accepted + refused {
      let alone = Run.parsedAlone(arguments)?.options
      #expect((alone != nil) == accepted.contains(arguments), "\(arguments)")
      let fromRoot = ((try? Root.parseAsRoot(["run"] + arguments)) as? Run)?.options
      #expect(described(alone) == described(fromRoot), "\(arguments)")
    }
  }

  @Test func playsOptionsReachItsConfigurationAndItsInitializerGivesTheSame() throws {
    let play = try PlayConfiguration.parse([
      "checkin", "--variant", "quick", "--experiments", "e.yaml", "--locale", "de", "--format", "json",
    ])
    #expect(play.flow == "checkin" && play.variant == "quick" && play.locale == "de" && play.json)
    #expect(play.experimentsPath == "e.yaml" && play.sources.user == "user-1")
    let given = PlayConfiguration(
      flow: "checkin", variant: "quick", experimentsPath: "e.yaml", locale: "de", json: true)
    #expect(given.flow == play.flow && given.variant == play.variant && given.locale == play.locale)
    #expect(given.experimentsPath == play.experimentsPath && given.format == play.format)
    let defaults = PlayConfiguration(flow: "-checkin")
    #expect(defaults.flow == "-checkin" && defaults.format == .text && defaults.variant == nil)
    #expect(defaults.experimentsPath == nil && defaults.locale == nil)
  }

  @Test func aWorkerSliceIsCheckedWhenParsed() throws {
    #expect(
      refusal(RunConfiguration.self, ["a.yaml", "--worker", "bad"]) == "--worker takes FIRST:LAST:OUTPUTS:DIR"
    )
    let worker = try RunConfiguration.parse(["a.yaml", "--worker", "1:3:e:/tmp/w"]).worker
    #expect(worker == RunConfiguration.Worker(users: 1...3, events: true, directory: "/tmp/w"))
  }
}
