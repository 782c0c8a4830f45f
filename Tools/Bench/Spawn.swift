import Foundation

/// A child process started with posix_spawn, so its CPU time can be read from wait4.
struct ChildProcess {
  /// What a finished child cost.
  struct Usage {
    var status: Int32
    /// Wall seconds from spawn to reaped.
    var wall: Double
    /// User + system CPU seconds of the child (wait4's rusage).
    var cpu: Double
    /// The child's peak resident set, in megabytes (wait4's ru_maxrss, kilobytes on Linux).
    var peakMegabytes: Double = 0
    var exitedNormally: Bool { status & 0x7f == 0 }
    var exitCode: Int32 { (status >> 8) & 0xff }
  }

  let pid: pid_t
  let started: ContinuousClock.Instant
  /// The read end of the child's standard output, when it was captured.
  let output: FileHandle?

  /// Starts `executable` with `arguments`; standard output goes to a pipe when
  /// `captureOutput`, else to /dev/null; standard error always to /dev/null.
  static func spawn(_ executable: String, _ arguments: [String], captureOutput: Bool = false) throws
    -> ChildProcess
  {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var pipeEnds: [Int32] = [-1, -1]
    if captureOutput {
      guard pipe(&pipeEnds) == 0 else { throw BenchmarkError("pipe failed: errno \(errno)") }
      posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
      posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
      posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
    } else {
      posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    }
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let started = ContinuousClock.now
    let result = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    if captureOutput { close(pipeEnds[1]) }
    guard result == 0 else {
      if captureOutput { close(pipeEnds[0]) }
      throw BenchmarkError("cannot start \(executable): \(String(cString: strerror(result)))")
    }
    return ChildProcess(
      pid: pid, started: started,
      output: captureOutput ? FileHandle(fileDescriptor: pipeEnds[0], closeOnDealloc: true) : nil)
  }

  /// Runs `executable` to its end and returns what it cost.
  static func run(_ executable: String, _ arguments: [String]) throws -> Usage {
    try spawn(executable, arguments).wait()
  }

  /// The first line the child writes to standard output (nil if it closes it first).
  func readLine() -> String? {
    guard let output else { return nil }
    var bytes = Data()
    while true {
      let chunk = output.availableData
      if chunk.isEmpty { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
      bytes.append(chunk)
      if let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
        return String(decoding: bytes[..<newline], as: UTF8.self)
      }
    }
  }

  /// Reads (and drops) the rest of the child's standard output on a thread of its
  /// own, so a chatty child never blocks on a full pipe.
  func drainOutput() {
    guard let output else { return }
    Thread.detachNewThread {
      while !output.availableData.isEmpty {}
    }
  }

  /// Waits for the child and reaps it.
  func wait() throws -> Usage {
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 {
      guard errno == EINTR else { throw BenchmarkError("wait4 failed: errno \(errno)") }
    }
    return Usage(
      status: status, wall: seconds(ContinuousClock.now - started), cpu: Self.cpu(usage),
      peakMegabytes: Double(usage.ru_maxrss) / 1024)
  }

  /// Asks the child to stop (SIGINT, as Ctrl-C would), then kills it if it has not
  /// ended after `grace` seconds.
  func stop(grace: Double = 10) throws -> Usage {
    kill(pid, SIGINT)
    let deadline = ContinuousClock.now + .seconds(grace)
    var status: Int32 = 0
    var usage = rusage()
    while true {
      let reaped = wait4(pid, &status, WNOHANG, &usage)
      if reaped == pid { break }
      if reaped < 0, errno != EINTR { throw BenchmarkError("wait4 failed: errno \(errno)") }
      if ContinuousClock.now > deadline {
        kill(pid, SIGKILL)
        return try wait()
      }
      usleep(2_000)
    }
    return Usage(status: status, wall: seconds(ContinuousClock.now - started), cpu: Self.cpu(usage))
  }

  private static func cpu(_ usage: rusage) -> Double {
    Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) * 1e-6 + Double(usage.ru_stime.tv_sec)
      + Double(usage.ru_stime.tv_usec) * 1e-6
  }
}

/// Where the benchmark finds the package and the release `wellflow` binary.
struct Locations {
  /// The package root (the folder holding Package.swift).
  let root: URL
  /// The folder holding this benchmark's executable (and `wellflow` when it was built).
  let binaries: URL

  var wellflow: URL { binaries.appendingPathComponent("wellflow") }
  /// `release` or `debug`: the configuration this benchmark was built in.
  var configuration: String { binaries.lastPathComponent }
  /// Fills that outlive a run (gitignored with the rest of .build).
  var benchData: URL { root.appendingPathComponent(".build/bench-data") }

  static func find() -> Locations {
    let argument = CommandLine.arguments[0]
    let executable =
      argument.contains("/")
      ? URL(fileURLWithPath: argument).resolvingSymlinksInPath()
      : (Bundle.main.executableURL ?? URL(fileURLWithPath: "/proc/self/exe")).resolvingSymlinksInPath()
    let binaries = executable.deletingLastPathComponent()
    // .build/<triple>/release/wellflow-bench: the package is above `.build`; else the
    // current directory (a copied binary run from the package root).
    var candidate = binaries
    while candidate.pathComponents.count > 1 {
      if candidate.lastPathComponent == ".build" {
        let root = candidate.deletingLastPathComponent()
        if FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
          return Locations(root: root, binaries: binaries)
        }
      }
      candidate = candidate.deletingLastPathComponent()
    }
    return Locations(
      root: URL(fileURLWithPath: FileManager.default.currentDirectoryPath), binaries: binaries)
  }
}
