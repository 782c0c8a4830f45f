import FlowKit
import Foundation

/// `wellflow run --users N --jobs J`: a population's users split into J consecutive
/// slices, each run by a worker process (`wellflow run … --worker`), whose outputs are
/// joined script by script and slice by slice: the events, the transcript and the
/// failures come out as one job writes them (same seed, same file, byte for byte).
/// Processes, not threads: a run drives the app on the main actor.
extension RunConfiguration {
  /// What a worker runs and where it leaves its outputs (`--worker FIRST:LAST:EVENTS:DIR`).
  public struct Worker: Sendable, Equatable {
    /// The users of the slice (`user-FIRST…user-LAST`).
    public var users: ClosedRange<Int>
    /// Whether to write events (to `DIR/<script>.events`).
    public var events: Bool
    /// The folder of the per-script outputs: `<script index>.events`, `.out`, `.err`, `.failures`.
    public var directory: String

    public init(users: ClosedRange<Int>, events: Bool, directory: String) {
      self.users = users
      self.events = events
      self.directory = directory
    }

    /// `FIRST:LAST:EVENTS:DIR` as the parent writes it; nil for anything else.
    public init?(argument: String) {
      let parts = argument.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
      guard parts.count == 4, let first = Int(parts[0]), let last = Int(parts[1]), first >= 1, first <= last,
        ["0", "1"].contains(parts[2]), !parts[3].isEmpty
      else { return nil }
      self.init(users: first...last, events: parts[2] == "1", directory: String(parts[3]))
    }

    public var argument: String { "\(users.lowerBound):\(users.upperBound):\(events ? 1 : 0):\(directory)" }

    func path(_ script: Int, _ kind: String) -> String {
      (directory as NSString).appendingPathComponent("\(script).\(kind)")
    }
  }

  /// The command line of a worker for `slice`: everything that decides what runs and
  /// what it prints, one job.
  func workerArguments(_ worker: Worker) -> [String] {
    var arguments = [
      "run", "--format", "text", "--seed", String(seed), "--jobs", "1", "--worker", worker.argument,
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

  /// Whether this run may be split into `jobs` workers: a population of several users
  /// whose outputs are streams (the transcript, the events); a shared data folder or
  /// backend, JSON, JUnit and HTML reports keep one job.
  func parallelJobs() -> Int {
    guard worker == nil, executable != nil, let users, users > 1, format == .text, junitPath == nil,
      htmlPath == nil, dataDirectory == nil, backendURL == nil
    else { return 1 }
    return min(jobs ?? ProcessInfo.processInfo.activeProcessorCount, users)
  }
}

/// A worker's console: what each script's runs print goes to that script's files.
final class WorkerOutput: Sendable {
  private struct Files {
    var out: OutputFile
    var err: OutputFile
    var failures: OutputFile
  }

  private let files = Locked<Files?>(nil)
  private let firstFailure = Locked<WriteFailure?>(nil)

  var failure: WriteFailure? { firstFailure.current }

  var console: Console {
    Console(out: { [self] in write($0 + "\n", to: .out) }, err: { [self] in write($0 + "\n", to: .err) })
  }

  /// Starts the files of script `index`, closing the previous ones.
  func begin(script index: Int, of worker: RunConfiguration.Worker) throws(WriteFailure) {
    close()
    let out = try OutputFile.open(worker.path(index, "out"), as: "the worker's transcript")
    let err = try OutputFile.open(worker.path(index, "err"), as: "the worker's failures")
    let failures = try OutputFile.open(worker.path(index, "failures"), as: "the worker's failures")
    files.withLock { $0 = Files(out: out, err: err, failures: failures) }
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
      files = nil
    }
  }

  private enum Stream { case out, err, failures }

  private func write(_ text: String, to stream: Stream) {
    guard let current = files.current else { return }
    let target: OutputFile
    switch stream {
    case .out: target = current.out
    case .err: target = current.err
    case .failures: target = current.failures
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
      workers.append(.init(users: next...(next + count - 1), events: events != nil, directory: directory))
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
    for script in 0..<scripts {
      for worker in workers {
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
      }
    }
    let elapsed = ContinuousClock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    console.out(TranscriptFormatter.summary(runs: users * scripts, failures: failures, seconds: seconds))
    return failures.isEmpty ? 0 : 1
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
