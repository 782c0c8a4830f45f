import FlowKit
import Foundation
import WellflowReports
import WellflowScript

/// `wellflow run --users N --jobs J`: a population's users split into J consecutive
/// slices, each run by a worker process (`wellflow run … --worker`), whose outputs are
/// joined script by script and slice by slice: the events, the transcript, the failures,
/// the JSON document, the JUnit report and the HTML report come out as one job writes
/// them (same seed, same file, byte for byte, but for the times runs took).
/// Processes, not threads: a run drives the app on the main actor.
extension RunConfiguration {
  /// What a worker runs and where it leaves its outputs (`--worker FIRST:LAST:OUTPUTS:DIR`).
  public struct Worker: Sendable, Equatable {
    /// The users of the slice (`user-FIRST…user-LAST`).
    public var users: ClosedRange<Int>
    /// Whether to write events (to `DIR/<script>.events`).
    public var events: Bool
    /// Whether to write each run's JUnit test case (`<script>.junit`).
    public var junit: Bool
    /// Whether to write each run's row and, for its first runs, drawing of the HTML report
    /// (`<script>.html`, one `RunHTMLReport.Builder.Entry` a line).
    public var html: Bool
    /// The folder of the per-script outputs: `<script index>.events`, `.out`, `.err`,
    /// `.failures`, and `.json` (with `--format json`), `.junit`, `.html`.
    public var directory: String

    public init(
      users: ClosedRange<Int>, events: Bool, junit: Bool = false, html: Bool = false, directory: String
    ) {
      self.users = users
      self.events = events
      self.junit = junit
      self.html = html
      self.directory = directory
    }

    /// `FIRST:LAST:OUTPUTS:DIR` as the parent writes it (OUTPUTS: `-`, or some of `e`
    /// events, `j` JUnit, `h` HTML, in that order); nil for anything else.
    public init?(argument: String) {
      let parts = argument.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
      let outputs = parts.count == 4 ? String(parts[2]) : ""
      guard parts.count == 4, let first = Int(parts[0]), let last = Int(parts[1]), first >= 1, first <= last,
        outputs == "-"
          || (!outputs.isEmpty
            && Self.outputs(outputs.contains("e"), outputs.contains("j"), outputs.contains("h")) == outputs),
        !parts[3].isEmpty
      else { return nil }
      self.init(
        users: first...last, events: outputs.contains("e"), junit: outputs.contains("j"),
        html: outputs.contains("h"), directory: String(parts[3]))
    }

    private static func outputs(_ events: Bool, _ junit: Bool, _ html: Bool) -> String {
      let letters = (events ? "e" : "") + (junit ? "j" : "") + (html ? "h" : "")
      return letters.isEmpty ? "-" : letters
    }

    public var argument: String {
      "\(users.lowerBound):\(users.upperBound):\(Self.outputs(events, junit, html)):\(directory)"
    }

    func path(_ script: Int, _ kind: String) -> String {
      (directory as NSString).appendingPathComponent("\(script).\(kind)")
    }
  }

  /// The command line of a worker for `slice`: everything that decides what runs and
  /// what it prints, one job.
  func workerArguments(_ worker: Worker) -> [String] {
    var arguments = [
      "run", "--format", format.rawValue, "--seed", String(seed), "--jobs", "1", "--worker", worker.argument,
    ]
    if quiet { arguments.append("--quiet") }
    if let users { arguments += ["--users", String(users)] }
    if let shard { arguments += ["--shard", shard] }
    for tags in includeTags { arguments += ["--include-tags", tags] }
    for tags in excludeTags { arguments += ["--exclude-tags", tags] }
    if let experimentsPath { arguments += ["--experiments", experimentsPath] }
    if let growthBookPath { arguments += ["--growthbook", growthBookPath] }
    for variable in variables { arguments += ["-e", variable] }
    if let locale { arguments += ["--locale", locale] }
    if let scriptsRoot { arguments += ["--scripts-root", scriptsRoot] }
    return arguments + ["--"] + paths
  }

  /// Whether this run may be split into `jobs` workers: a population of several users; a
  /// shared data folder or backend keeps one job.
  func parallelJobs() -> Int {
    guard worker == nil, executable != nil, let users, users > 1, dataDirectory == nil, backendURL == nil
    else { return 1 }
    return min(jobs ?? ProcessInfo.processInfo.activeProcessorCount, users)
  }

  /// This process's binary, the one workers run: the path Foundation's
  /// `Bundle.main.executablePath` gives, read where it reads it on Linux. `Bundle.main`
  /// also lists the binary's folder (a `.build/release` holds about 200 entries), which
  /// every `wellflow run` paid at start-up for a path only `--jobs` uses.
  public static func ownExecutable() -> String? {
    #if os(Linux)
      var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
      let count = buffer.withUnsafeMutableBufferPointer { buffer in
        buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
          readlink("/proc/self/exe", $0, buffer.count - 1)
        }
      }
      if count > 0 { return String(decoding: buffer[..<count], as: UTF8.self) }
    #endif
    return Bundle.main.executablePath
  }
}

/// A worker's console: what each script's runs print goes to that script's files.
final class WorkerOutput: Sendable {
  private struct Files {
    var out: OutputFile
    var err: OutputFile
    var failures: OutputFile
    var json: OutputFile?
    var junit: OutputFile?
    var html: OutputFile?
  }

  /// The HTML report's runs this worker drew and listed so far (over all its scripts): a
  /// run the joined report draws or lists is among its worker's first ones of its kind.
  private struct Listed {
    var drawnPassing = 0
    var drawnFailing = 0
    var listedPassing = 0
    var listedFailing = 0
  }

  private let listed = Locked(Listed())

  private let files = Locked<Files?>(nil)
  private let firstFailure = Locked<WriteFailure?>(nil)

  var failure: WriteFailure? { firstFailure.current }

  var console: Console {
    Console(out: { [self] in write($0 + "\n", to: .out) }, err: { [self] in write($0 + "\n", to: .err) })
  }

  /// Starts the files of script `index`, closing the previous ones.
  func begin(script index: Int, of worker: RunConfiguration.Worker, json: Bool) throws(WriteFailure) {
    close()
    let out = try OutputFile.open(worker.path(index, "out"), as: "the worker's transcript")
    let err = try OutputFile.open(worker.path(index, "err"), as: "the worker's failures")
    let failures = try OutputFile.open(worker.path(index, "failures"), as: "the worker's failures")
    let jsonFile = json ? try OutputFile.open(worker.path(index, "json"), as: "the worker's JSON") : nil
    let junit =
      worker.junit ? try OutputFile.open(worker.path(index, "junit"), as: "the worker's JUnit") : nil
    let html = worker.html ? try OutputFile.open(worker.path(index, "html"), as: "the worker's HTML") : nil
    files.withLock {
      $0 = Files(out: out, err: err, failures: failures, json: jsonFile, junit: junit, html: html)
    }
  }

  /// Whether the next run may be drawn in the HTML report, so its screens are worth keeping.
  var drawsNext: Bool {
    let current = listed.current
    return current.drawnPassing < RunHTMLReport.passingRunsWithScreens
      || current.drawnFailing < RunHTMLReport.failingRunsDrawn
  }

  /// A run's part of the reports: its element of the JSON document (each written as a
  /// later one, after a comma), its JUnit test case, its HTML entry while it may be listed.
  func record(_ result: ScriptResult, encoder: JSONEncoder) {
    guard let current = files.current else { return }
    if current.json != nil {
      write(TranscriptFormatter.jsonScript(result, first: false, encoder: encoder), to: .json)
    }
    if current.junit != nil { write(JUnitReport.testcase(result), to: .junit) }
    guard current.html != nil else { return }
    let place = listed.withLock { counts -> (draws: Bool, lists: Bool) in
      if result.passed {
        let draws = counts.drawnPassing < RunHTMLReport.passingRunsWithScreens
        let lists = draws || counts.listedPassing < RunHTMLReport.listedRunsLimit
        if draws { counts.drawnPassing += 1 } else if lists { counts.listedPassing += 1 }
        return (draws, lists)
      }
      let draws = counts.drawnFailing < RunHTMLReport.failingRunsDrawn
      let lists = draws || counts.listedFailing < RunHTMLReport.listedRunsLimit
      if draws { counts.drawnFailing += 1 } else if lists { counts.listedFailing += 1 }
      return (draws, lists)
    }
    guard place.lists else { return }
    let entry = RunHTMLReport.Builder.entry(result, draws: place.draws)
    guard let data = try? JSONEncoder().encode(entry) else { return }
    write(String(decoding: data, as: UTF8.self) + "\n", to: .html)
  }

  /// A failed run's name and headline, one JSON array a line, for the summary.
  func failed(name: String, headline: String) {
    let data = (try? JSONSerialization.data(withJSONObject: [name, headline])) ?? Data("[]".utf8)
    write(String(decoding: data, as: UTF8.self) + "\n", to: .failures)
  }

  func close() {
    files.withLock { files in
      guard let current = files else { return }
      current.out.close()
      current.err.close()
      current.failures.close()
      current.json?.close()
      current.junit?.close()
      current.html?.close()
      files = nil
    }
  }

  private enum Stream { case out, err, failures, json, junit, html }

  private func write(_ text: String, to stream: Stream) {
    guard let current = files.current else { return }
    let target: OutputFile
    switch stream {
    case .out: target = current.out
    case .err: target = current.err
    case .failures: target = current.failures
    case .json, .junit, .html:
      guard let file = stream == .json ? current.json : stream == .junit ? current.junit : current.html else {
        return
      }
      target = file
    }
    do throws(WriteFailure) { try target.write(text) } catch {
      firstFailure.withLock { if $0 == nil { $0 = error } }
    }
  }
}

extension RunCommand {
  /// Runs `scripts` scripts' users in `jobs` workers and joins what they wrote, in the
  /// order one job writes it. Exit as one job would; 2 when a worker could not run.
  static func runInWorkers(
    _ configuration: RunConfiguration, scripts: Int, jobs: Int, events: NDJSONAnalyticsSink?, console: Console
  ) async -> Int32 {
    let users = configuration.users ?? 1
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "wellflow-jobs-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    var workers: [RunConfiguration.Worker] = []
    var next = 1
    for job in 0..<jobs {
      let count = users / jobs + (job < users % jobs ? 1 : 0)
      let directory = folder.appendingPathComponent("\(job)").path
      workers.append(
        .init(
          users: next...(next + count - 1), events: events != nil, junit: configuration.junitPath != nil,
          html: configuration.htmlPath != nil, directory: directory))
      next += count
    }
    let started = ContinuousClock.now
    var processes: [Process] = []
    do {
      for worker in workers {
        try FileManager.default.createDirectory(atPath: worker.directory, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: configuration.executable!)
        process.arguments = configuration.workerArguments(worker)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        guard FileManager.default.createFile(atPath: worker.path(-1, "stderr"), contents: nil) else {
          throw CocoaError(.fileWriteUnknown)
        }
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: worker.path(-1, "stderr")))
        try process.run()
        processes.append(process)
      }
    } catch {
      for process in processes where process.isRunning { process.terminate() }
      console.err("error: cannot start the workers of --jobs: \(error.localizedDescription)")
      return 2
    }
    for process in processes { process.waitUntilExit() }
    for (worker, process) in zip(workers, processes)
    where process.terminationReason != .exit || process.terminationStatus > 1 {
      // A worker that could not finish: what it said, and nothing joined.
      for line in ((try? String(contentsOfFile: worker.path(-1, "stderr"), encoding: .utf8)) ?? "")
        .split(separator: "\n")
      {
        console.err(String(line))
      }
      console.err(
        "error: the worker running users \(worker.users.lowerBound)–\(worker.users.upperBound) ended with "
          + (process.terminationReason == .exit
            ? "status \(process.terminationStatus)" : "signal \(process.terminationStatus)"))
      return 2
    }
    var failures: [(name: String, headline: String)] = []
    let json = configuration.format == .json ? Spool() : nil
    let junit = configuration.junitPath != nil ? Spool() : nil
    var html = configuration.htmlPath.map { _ in RunHTMLReport.Builder() }
    for script in 0..<scripts {
      for worker in workers {
        let failedBefore = failures.count
        if let events {
          events.append(contentsOf: worker.path(script, "events"))
          if let failure = events.failure {
            console.err("error: \(failure)")
            return 2
          }
        }
        forEachPiece(of: worker.path(script, "out"), console.out)
        forEachPiece(of: worker.path(script, "err"), console.err)
        let text = (try? String(contentsOfFile: worker.path(script, "failures"), encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") {
          if let pair = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String], pair.count == 2
          {
            failures.append((pair[0], pair[1]))
          }
        }
        do {
          // The document's first element has no comma before it; every worker's do.
          if let json { try append(worker.path(script, "json"), to: json, dropping: json.isEmpty ? 2 : 0) }
          if let junit { try append(worker.path(script, "junit"), to: junit) }
        } catch {
          console.err("error: cannot join the reports of --jobs: \(error.localizedDescription)")
          return 2
        }
        if html != nil {
          var entries = (passed: 0, failed: 0)
          forEachPiece(of: worker.path(script, "html")) { piece in
            for line in piece.split(separator: "\n") {
              guard
                let entry = try? JSONDecoder().decode(RunHTMLReport.Builder.Entry.self, from: Data(line.utf8))
              else { continue }
              html!.add(entry)
              if entry.passed { entries.passed += 1 } else { entries.failed += 1 }
            }
          }
          // Its runs past the lists, counted: each user of the slice ran the script once.
          let failed = failures.count - failedBefore
          html!.addUnlisted(
            passed: worker.users.count - failed - entries.passed, failed: failed - entries.failed)
        }
      }
    }
    let elapsed = ContinuousClock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    let runs = users * scripts
    return finish(
      configuration, runs: runs, failures: failures, seconds: seconds, json: json, junit: junit, html: html,
      console: console)
  }

  /// Adds the file's bytes to `spool` in pieces of whole lines, its first `dropping` bytes
  /// left out.
  private static func append(_ path: String, to spool: Spool, dropping: Int = 0) throws {
    guard let handle = FileHandle(forReadingAtPath: path) else { return }
    defer { try? handle.close() }
    var pending = Data()
    var dropped = 0
    while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty {
      pending.append(data)
      if dropped < dropping {
        let cut = min(dropping - dropped, pending.count)
        pending.removeFirst(cut)
        dropped += cut
      }
      if let end = pending.lastIndex(of: UInt8(ascii: "\n")) {
        try spool.append(String(decoding: pending[pending.startIndex...end], as: UTF8.self))
        pending.removeSubrange(pending.startIndex...end)
      }
    }
    if !pending.isEmpty { try spool.append(String(decoding: pending, as: UTF8.self)) }
  }

  /// The file's text in pieces of whole lines, each without its last line end, as the
  /// worker's console received it.
  private static func forEachPiece(of path: String, _ print: (String) -> Void) {
    guard let handle = FileHandle(forReadingAtPath: path) else { return }
    defer { try? handle.close() }
    var pending = Data()
    while let data = try? handle.read(upToCount: 1 << 20), !data.isEmpty {
      pending.append(data)
      if let end = pending.lastIndex(of: UInt8(ascii: "\n")) {
        print(String(decoding: pending[pending.startIndex..<end], as: UTF8.self))
        pending.removeSubrange(pending.startIndex...end)
      }
    }
    if !pending.isEmpty { print(String(decoding: pending, as: UTF8.self)) }
  }
}
