import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Every `wellflow …` command the README's code blocks and the `--help` examples show runs,
/// with the built `wellflow` binary, from a folder laid out as the repository root (its
/// top-level entries linked in, so files the commands write stay out of the repository),
/// and exits as documented: 0. Commands of one source run in their order in one folder,
/// so a `report` reads the events a `run` before it wrote. `/tmp/` becomes a folder of the
/// test's own, and a population (`--users 1000`) is cut to 3 users, which keeps every
/// argument's form at a fraction of the time. A pipe from wellflow into another program
/// (`| dot -Tsvg`) keeps wellflow's part only.
///
/// `serve` and `preview` run until interrupted: they are started on a free port (`--port 0`)
/// and must print their address; a later `run --backend http://127.0.0.1:8080` of the same
/// source talks to that `serve`; at the end each is stopped with SIGTERM and must exit 0. A
/// `postgres://` URL becomes a database of the test's own when WELLFLOW_TEST_POSTGRES_URL
/// names a server (CI's); without one, such a command's arguments are checked only (`wellflow
/// SUB --help` exits 0 and lists every `--option` it uses), and a `$(wellflow token …)` inside
/// is run.
@Suite("Documented commands", .serialized)
struct DocumentedCommandTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  @Test func theReadmeCommandsRunFromTheRepositoryRoot() async throws {
    let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
    let commands = DocumentedCommands.readme(readme)
    #expect(commands.count >= 6, "\(commands)")
    #expect(
      commands.contains(
        "swift run wellflow run Apps/Wellflow/Scripts/experiment-checkin.yaml --experiments Apps/Wellflow/Experiments/checkin-length.yaml --users 1000 --events /tmp/e.ndjson"
      ), "continuation lines are joined")
    try await DocumentedCommands.check(commands, source: "README.md")
  }

  /// The pages the README links to: the DocC articles and the performance figures. Each
  /// page's commands run in their order in a folder of their own.
  static let pages = [
    "Apps/Wellflow/Sources/WellflowScript/WellflowScript.docc",
    "Apps/Wellflow/Sources/WellflowCore/WellflowCore.docc",
    "Modules/FlowKit/Sources/FlowKit/FlowKit.docc", "Tools/Bench/PERFORMANCE.md",
  ]

  @Test func theDocumentationCommandsRunFromTheRepositoryRoot() async throws {
    var total = 0
    for file in try Self.documentationFiles() where file.lastPathComponent != "README.md" {
      let commands = DocumentedCommands.readme(try String(contentsOf: file, encoding: .utf8))
      total += commands.count
      try await DocumentedCommands.check(commands, source: file.lastPathComponent)
    }
    #expect(total >= 20, "the articles show the commands the README used to")
  }

  /// The YAML the README and the DocC articles show is code that runs. A whole script
  /// (`name:` and `steps:`) runs and passes with the built `wellflow`, beside a copy of the
  /// example scripts' `common/` folder (where its `run:` finds sub-scripts). Any other block
  /// is an excerpt: either its lines, comments aside, are consecutive lines of an example
  /// script or experiment file (which CI runs), or it loads as part of a script — a list of
  /// steps as its steps, anything else as its header — so every command, id and option
  /// value in it passes the checks a script gets before it runs (exit 2 is a problem
  /// found; an excerpt may fail when run, having left out the steps before it).
  @Test func theDocumentedYAMLRunsOrIsAnExamplesExcerpt() throws {
    let binary = try PreviewProcess.executable()
    let work = FileManager.default.temporaryDirectory.appendingPathComponent(
      "wellflow-yaml-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: work) }
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    let scripts = Self.root.appendingPathComponent("Apps/Wellflow/Scripts")
    try FileManager.default.copyItem(
      at: scripts.appendingPathComponent("common"), to: work.appendingPathComponent("common"))
    let examples = try Self.exampleFiles().map { try Self.codeLines(String(contentsOf: $0, encoding: .utf8)) }
    var scriptsRun = 0
    var excerpts = 0
    for file in try Self.documentationFiles() {
      let name = file.lastPathComponent
      for (line, block) in DocumentedCommands.yamlBlocks(try String(contentsOf: file, encoding: .utf8)) {
        let lines = block.components(separatedBy: "\n")
        if lines.contains(where: { $0.hasPrefix("steps:") })
          && lines.contains(where: { $0.hasPrefix("name:") })
        {
          let script = work.appendingPathComponent("\(name)-\(line).yaml")
          try block.write(to: script, atomically: true, encoding: .utf8)
          let result = try DocumentedCommands.bash(
            "\"$WELLFLOW\" run \(script.lastPathComponent)", binary: binary, in: work)
          #expect(
            result.status == 0, "\(name):\(line): the script exited \(result.status):\n\(result.output)")
          scriptsRun += 1
        } else if examples.contains(where: { Self.contains($0, Self.codeLines(block)) }) {
          excerpts += 1
        } else {
          let first = lines.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
          let indent = String(first.prefix { $0 == " " })
          let script = work.appendingPathComponent("\(name)-\(line).yaml")
          let text =
            first.trimmingCharacters(in: .whitespaces).hasPrefix("- ")
            ? "name: an excerpt\nsteps:\n\(indent)- launch\n" + block
            : "name: an excerpt\n" + block + "steps:\n  - launch\n"
          try text.write(to: script, atomically: true, encoding: .utf8)
          let result = try DocumentedCommands.bash(
            "\"$WELLFLOW\" run \(script.lastPathComponent)", binary: binary, in: work)
          #expect(
            result.status != 2,
            "\(name):\(line): neither lines of an example file nor steps or a header that load:\n\(result.output)"
          )
          excerpts += 1
        }
      }
    }
    #expect(scriptsRun >= 2 && excerpts >= 3, "\(scriptsRun) scripts, \(excerpts) excerpts")
  }

  /// The README and every page of `pages`.
  static func documentationFiles() throws -> [URL] {
    var files = [root.appendingPathComponent("README.md")]
    for page in pages {
      let url = root.appendingPathComponent(page)
      files +=
        page.hasSuffix(".md")
        ? [url]
        : try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".md") }
          .sorted()
          .map { url.appendingPathComponent($0) }
    }
    return files
  }

  /// Every example script (subfolders too) and experiment file.
  static func exampleFiles() throws -> [URL] {
    try ["Apps/Wellflow/Scripts", "Apps/Wellflow/Experiments"].flatMap { folder in
      let url = root.appendingPathComponent(folder)
      let paths = try FileManager.default.subpathsOfDirectory(atPath: url.path)
      return paths.filter { $0.hasSuffix(".yaml") }.map { url.appendingPathComponent($0) }
    }
  }

  /// A YAML text's lines without comments, spacing or blank lines.
  static func codeLines(_ text: String) -> [String] {
    text.components(separatedBy: "\n").compactMap { line in
      var code = line.hasPrefix("#") ? "" : line
      if let comment = code.range(of: " #") { code = String(code[..<comment.lowerBound]) }
      code = code.trimmingCharacters(in: .whitespaces)
      return code.isEmpty ? nil : code
    }
  }

  /// Whether `part` is a run of consecutive lines of `whole`.
  static func contains(_ whole: [String], _ part: [String]) -> Bool {
    guard !part.isEmpty, part.count <= whole.count else { return false }
    return (0...(whole.count - part.count)).contains { Array(whole[$0..<($0 + part.count)]) == part }
  }

  /// The command line's sources, one file per command: the root command's first, then the
  /// subcommands in the order `wellflow --help` lists them (an example may read what an
  /// earlier one wrote: `report` reads the events `run` wrote), then any other file.
  static func commandSources() throws -> String {
    let folder = root.appendingPathComponent("Apps/Wellflow/Sources/wellflow")
    let rootSource = try String(contentsOf: folder.appendingPathComponent("Wellflow.swift"), encoding: .utf8)
    let listed = rootSource.components(separatedBy: "subcommands:").dropFirst().first ?? ""
    let subcommands = listed.drop { $0 != "[" }.dropFirst().prefix { $0 != "]" }.components(separatedBy: ",")
      .map {
        $0.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: ".self", with: "")
          + ".swift"
      }
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
      $0.hasSuffix(".swift")
    }
    let ordered =
      ["Wellflow.swift"] + subcommands.filter(files.contains)
      + files.filter { $0 != "Wellflow.swift" && !subcommands.contains($0) }.sorted()
    return try ordered.map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }
      .joined(separator: "\n")
  }

  @Test func theHelpExamplesRunFromTheRepositoryRoot() async throws {
    let source = try Self.commandSources()
    let commands = DocumentedCommands.help(source)
    #expect(commands.count >= 20, "\(commands)")
    #expect(commands.contains("wellflow flows"), "notes after two spaces are left out")
    #expect(commands.contains("printf 'tap continue\\ntap continue\\n' | wellflow play onboarding"))
    try await DocumentedCommands.check(commands, source: "wellflow --help")
  }

  /// `--help` wraps its text at 80 columns: an example line longer than that would be
  /// printed broken where a person copies it from.
  @Test func theHelpExamplesFitEightyColumns() throws {
    let source = try Self.commandSources()
    let lines = DocumentedCommands.helpLines(source)
    #expect(lines.count >= 20)
    for line in lines { #expect(line.count <= 80, "\(line.count) columns: \(line)") }
  }

  @Test func commandsAreReadOffTheTextAsAPersonWouldCopyThem() {
    let readme = """
      text `wellflow run x` in prose is not a command
      ```sh
      swift run wellflow run a.yaml \\
        --users 2   # a comment
      swift test
      ```
      ```yaml
      name: wellflow run b.yaml
      ```
      """
    #expect(DocumentedCommands.readme(readme) == ["swift run wellflow run a.yaml --users 2"])
    let source = #"""
          discussion: """
            Prose about `wellflow run`:
              wellflow run a.yaml --experiments e.yaml \\
                --users 3
              wellflow preview                   then open it
            """)
      """#
    #expect(
      DocumentedCommands.help(source) == [
        "wellflow run a.yaml --experiments e.yaml --users 3", "wellflow preview",
      ])
    #expect(
      DocumentedCommands.shell("swift run wellflow graph journal --format dot | dot -Tsvg > journal.svg")
        == #""$WELLFLOW" graph journal --format dot > /dev/null"#)
    #expect(
      DocumentedCommands.shell("printf 'tap continue\\n' | wellflow play onboarding")
        == #"printf 'tap continue\n' | "$WELLFLOW" play onboarding"#)
    #expect(DocumentedCommands.isArgumentsOnly("wellflow serve --port 8080 &"))
    #expect(DocumentedCommands.isArgumentsOnly("swift run wellflow run x --backend http://127.0.0.1:8080"))
    #expect(!DocumentedCommands.isArgumentsOnly("wellflow run x"))
    #expect(
      DocumentedCommands.fewerUsers("wellflow run x --users 1000 -e A=1") == "wellflow run x --users 3 -e A=1"
    )
  }
}

enum DocumentedCommands {
  /// Command lines in the README's `sh` code blocks that run wellflow.
  static func readme(_ text: String) -> [String] {
    var commands: [String] = []
    var inShell = false
    var pending = ""
    for line in text.components(separatedBy: "\n") {
      if line.hasPrefix("```") {
        inShell = !inShell && line == "```sh"
        continue
      }
      guard inShell else { continue }
      pending += (pending.isEmpty ? "" : " ") + line.trimmingCharacters(in: .whitespaces)
      if pending.hasSuffix("\\") {
        pending = String(pending.dropLast()).trimmingCharacters(in: .whitespaces)
        continue
      }
      let command = withoutNote(pending)
      pending = ""
      if command.hasPrefix("swift run wellflow ") || command.contains("| swift run wellflow ") {
        commands.append(command)
      }
    }
    return commands
  }

  /// The `yaml` code blocks of a Markdown text, each with the line its text starts on.
  static func yamlBlocks(_ text: String) -> [(line: Int, text: String)] {
    var blocks: [(line: Int, text: String)] = []
    var current: (line: Int, lines: [String])?
    for (index, line) in text.components(separatedBy: "\n").enumerated() {
      if let block = current {
        if line.hasPrefix("```") {
          blocks.append((block.line, block.lines.joined(separator: "\n") + "\n"))
          current = nil
        } else {
          current?.lines.append(line)
        }
      } else if line == "```yaml" {
        current = (index + 2, [])
      }
    }
    return blocks
  }

  /// The example lines of the commands' help (`discussion:` texts of the commands' files):
  /// lines indented past the prose that start with `wellflow` or pipe into it.
  static func help(_ source: String) -> [String] {
    var commands: [String] = []
    var pending: String?
    for line in source.components(separatedBy: "\n") {
      let text = line.trimmingCharacters(in: .whitespaces)
      let indent = line.prefix { $0 == " " }.count
      if var command = pending {
        command += " " + text
        if command.hasSuffix("\\\\") {
          pending = String(command.dropLast(2)).trimmingCharacters(in: .whitespaces)
        } else {
          pending = nil
          commands.append(unescaped(withoutNote(command)))
        }
        continue
      }
      guard indent >= 8,
        text.hasPrefix("wellflow ") || (text.hasPrefix("printf ") && text.contains("| wellflow "))
      else { continue }
      if text.hasSuffix("\\\\") {
        pending = String(text.dropLast(2)).trimmingCharacters(in: .whitespaces)
      } else {
        commands.append(unescaped(withoutNote(text)))
      }
    }
    return commands
  }

  /// The example lines as `--help` prints them: a discussion's text is indented six
  /// spaces in the source and two in the help.
  static func helpLines(_ source: String) -> [String] {
    var lines: [String] = []
    var continued = false
    for line in source.components(separatedBy: "\n") {
      let text = line.trimmingCharacters(in: .whitespaces)
      let isExample =
        line.prefix { $0 == " " }.count >= 8
        && (text.hasPrefix("wellflow ") || (text.hasPrefix("printf ") && text.contains("| wellflow ")))
      if continued || isExample { lines.append(unescaped(String(line.dropFirst(6)))) }
      continued = (continued || isExample) && text.hasSuffix("\\\\")
    }
    return lines
  }

  /// What follows two spaces is a note for the reader (`# …` or words), not the command.
  static func withoutNote(_ line: String) -> String {
    guard let gap = line.range(of: "  ") else { return line }
    return String(line[..<gap.lowerBound])
  }

  /// A Swift string literal's `\\` as the help prints it.
  static func unescaped(_ text: String) -> String { text.replacingOccurrences(of: "\\\\", with: "\\") }

  /// Needs a server, or is one: not run as a command that ends.
  static func isArgumentsOnly(_ command: String) -> Bool {
    isServer(command) || command.contains("--backend") || command.contains("postgres://")
  }

  /// The words after `wellflow` (or `swift run wellflow`), without a trailing `&`.
  static func wellflowArguments(_ command: String) -> [String] {
    let words = command.replacingOccurrences(of: "swift run wellflow ", with: "wellflow ")
      .components(separatedBy: " ").filter { !$0.isEmpty && $0 != "&" }
    return Array(words.drop { $0 != "wellflow" }.dropFirst())
  }

  /// `serve` or `preview`: runs until stopped.
  static func isServer(_ command: String) -> Bool {
    ["serve", "preview"].contains(wellflowArguments(command).first ?? "")
  }

  /// A server command's arguments after `wellflow`, on a free port.
  static func serverArguments(_ command: String) -> [String] {
    var words = wellflowArguments(command)
    if let port = words.firstIndex(of: "--port"), port + 1 < words.count {
      words[port + 1] = "0"
    } else {
      words += ["--port", "0"]
    }
    return words
  }

  /// The documented server's address: what a `--backend` names.
  static let documentedBackend = "http://127.0.0.1:8080"

  /// `postgres://…` URLs (up to a space) as `database`.
  static func withDatabase(_ command: String, _ database: String) -> String {
    command.components(separatedBy: " ").map { $0.hasPrefix("postgres://") ? database : $0 }
      .joined(separator: " ")
  }

  /// The line for bash: the binary for `wellflow`, no pipe out of it into another program.
  static func shell(_ command: String) -> String {
    var line = command.replacingOccurrences(of: "swift run wellflow ", with: "wellflow ")
    if line.hasPrefix("wellflow ") { line = "\"$WELLFLOW\" " + line.dropFirst("wellflow ".count) }
    line = line.replacingOccurrences(of: "| wellflow ", with: "| \"$WELLFLOW\" ")
      .replacingOccurrences(of: "$(wellflow ", with: "$(\"$WELLFLOW\" ")
    if let wellflow = line.range(of: "\"$WELLFLOW\""),
      let pipe = line.range(of: " | ", range: wellflow.upperBound..<line.endIndex)
    {
      line = line[..<pipe.lowerBound] + " > /dev/null"
    }
    return line
  }

  /// Users a documented population is cut to.
  static let users = 3

  static func fewerUsers(_ command: String) -> String {
    var words = command.components(separatedBy: " ")
    for index in words.indices.dropLast() where words[index] == "--users" {
      if let count = Int(words[index + 1]), count > users { words[index + 1] = String(users) }
    }
    return words.joined(separator: " ")
  }

  /// Runs the commands in order in one folder laid out as the repository root.
  static func check(_ commands: [String], source: String) async throws {
    let binary = try PreviewProcess.executable()
    let work = FileManager.default.temporaryDirectory.appendingPathComponent(
      "wellflow-docs-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: work) }
    let folder = work.appendingPathComponent("root")
    try FileManager.default.createDirectory(
      at: work.appendingPathComponent("tmp"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let root = DocumentedCommandTests.root
    for entry in try FileManager.default.contentsOfDirectory(atPath: root.path) where entry != ".build" {
      try FileManager.default.createSymbolicLink(
        at: folder.appendingPathComponent(entry), withDestinationURL: root.appendingPathComponent(entry))
    }
    var servers: [(command: String, process: PreviewProcess)] = []
    var backend: String?
    var database: String?
    for command in commands {
      var local = fewerUsers(command.replacingOccurrences(of: "/tmp/", with: work.path + "/tmp/"))
      // Without a server for it, a PostgreSQL URL's command is checked for its arguments.
      let runnable = !local.contains("postgres://") || PostgresForTests.url != nil
      if local.contains("postgres://"), runnable {
        if database == nil { database = "\(try await PostgresForTests.freshDatabase())" }
        local = withDatabase(local, database!)
      }
      if let backend { local = local.replacingOccurrences(of: documentedBackend, with: backend) }
      if isServer(local), runnable {
        let arguments = serverArguments(local)
        let server = try PreviewProcess(arguments, in: folder)
        servers.append((command, server))
        let line = await server.waitForLine { $0.contains("http://127.0.0.1:") }
        let url = line.flatMap { $0.components(separatedBy: " ").first { $0.hasPrefix("http://127.0.0.1:") } }
        #expect(
          url != nil, "\(source): `\(command)` printed no address:\n\(server.output.joined(separator: "\n"))")
        if arguments.first == "serve", let url { backend = url }
      } else if !runnable || local.contains(documentedBackend) {
        try checkArguments(local, binary: binary, in: folder, source: source)
      } else {
        let result = try bash(shell(local), binary: binary, in: folder)
        #expect(result.status == 0, "\(source): `\(command)` exited \(result.status):\n\(result.output)")
      }
    }
    for (command, server) in servers {
      server.signal(SIGTERM)
      let status = await server.waitForExit(deadline: .seconds(600))
      if status == .stillRunning { server.kill() }
      #expect(
        status == .exited(0),
        "\(source): `\(command)` stopped by SIGTERM: \(status)\n\(server.output.joined(separator: "\n"))")
    }
  }

  /// `wellflow SUB --help` exits 0 and names every option the command uses; a
  /// `$(wellflow …)` inside runs.
  static func checkArguments(_ command: String, binary: URL, in folder: URL, source: String) throws {
    var outer = command
    if let start = command.range(of: "$("),
      let end = command.range(of: ")", range: start.upperBound..<command.endIndex)
    {
      let inner = String(command[start.upperBound..<end.lowerBound])
      let result = try bash(shell(inner), binary: binary, in: folder)
      #expect(result.status == 0, "\(source): `\(inner)` exited \(result.status):\n\(result.output)")
      outer = String(command[..<start.lowerBound]) + String(command[end.upperBound...])
    }
    let words = wellflowArguments(outer)
    let subcommand = try #require(words.first, "\(source): `\(command)` names no command")
    let help = try bash("\"$WELLFLOW\" \(subcommand) --help", binary: binary, in: folder)
    #expect(help.status == 0, "\(source): `wellflow \(subcommand) --help` exited \(help.status)")
    for option in words where option.hasPrefix("--") {
      #expect(
        help.output.contains(option + " "),
        "\(source): `\(command)`: wellflow \(subcommand) has no option \(option)")
    }
  }

  /// Runs `line` with bash (pipes fail when any part fails), no input, output collected.
  static func bash(_ line: String, binary: URL, in folder: URL) throws -> (status: Int32, output: String) {
    let log = folder.deletingLastPathComponent().appendingPathComponent("output-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: log) }
    let handle = try FileHandle(forWritingTo: log)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", "set -o pipefail; " + line]
    process.currentDirectoryURL = folder
    var environment = ProcessInfo.processInfo.environment
    environment["WELLFLOW"] = binary.path
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = handle
    process.standardError = handle
    try process.run()
    process.waitUntilExit()
    try handle.close()
    let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    // The end of the output says what failed; the rest can be long (a run's transcript).
    return (process.terminationStatus, String(output.suffix(4000)))
  }
}
