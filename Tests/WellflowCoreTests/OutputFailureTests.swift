import Foundation
import ScriptTestSupport
import Testing
import WellflowCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Output that cannot be written, through the built `wellflow`: a full disk (/dev/full)
/// is `error: cannot write …: No space left on device` and exit 2; a pipe whose reader went
/// away ends the process as SIGPIPE does, saying nothing, with or without a sync having
/// run. Before, Foundation's `FileHandle.write(_:)` trapped (SIGILL, a backtrace).
@Suite("Output failures", .serialized)
struct OutputFailureTests {
  let workspace = Workspace()
  static let scripts = FileManager.default.currentDirectoryPath + "/Apps/Wellflow/Scripts"
  static let fullDisk = "error: cannot write to standard output: No space left on device"

  struct Finished {
    var reason: Process.TerminationReason
    var status: Int32
    var errText: String
  }

  /// Runs `wellflow arguments` with standard output going to `output`; standard error is
  /// kept. With `ignoringSIGPIPE`, it starts with SIGPIPE ignored, as a parent may leave it
  /// (a shell's `trap '' PIPE`, then `exec`: the same process).
  static func wellflow(_ arguments: [String], output: Any, ignoringSIGPIPE: Bool = false) throws -> Finished {
    let process = Process()
    let executable = try PreviewProcess.executable()
    if ignoringSIGPIPE {
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = ["-c", #"trap '' PIPE; exec "$0" "$@""#, executable.path] + arguments
    } else {
      process.executableURL = executable
      process.arguments = arguments
    }
    process.standardOutput = output
    process.standardInput = FileHandle.nullDevice
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    if let pipe = output as? Pipe { try pipe.fileHandleForWriting.close() }
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return Finished(reason: process.terminationReason, status: process.terminationStatus, errText: text)
  }

  static func toFullDisk(_ arguments: [String]) throws -> Finished {
    let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
    defer { try? full.close() }
    return try wellflow(arguments, output: full)
  }

  /// A pipe whose reading end is closed before anything is written to it.
  static func toClosedPipe(_ arguments: [String], ignoringSIGPIPE: Bool) throws -> Finished {
    let pipe = Pipe()
    try pipe.fileHandleForReading.close()
    return try wellflow(arguments, output: pipe, ignoringSIGPIPE: ignoringSIGPIPE)
  }

  static func toNowhere(_ arguments: [String]) throws -> Finished {
    try wellflow(arguments, output: FileHandle.nullDevice)
  }

  @Test func standardOutputOnAFullDiskIsExit2WithTheReason() throws {
    let script = "\(Self.scripts)/onboarding-standard.yaml"
    for arguments in [
      ["run", script], ["run", script, "--format", "json"], ["graph", "onboarding"],
      ["explore", "onboarding", "--depth", "2"], ["flows"],
      ["token", "user-1", "--jwt-secret", String(repeating: "s", count: 32)], ["--help"],
      ["run", "--help"],
    ] {
      let finished = try Self.toFullDisk(arguments)
      #expect(finished.reason == .exit, "\(arguments)")
      #expect(finished.status == 2, "\(arguments)")
      #expect(finished.errText.split(separator: "\n").last.map(String.init) == Self.fullDisk, "\(arguments)")
    }
  }

  @Test func exportAndReportOnAFullDiskAreExit2WithTheReason() throws {
    let data = workspace.path("data")
    #expect(try Self.toNowhere(["run", "\(Self.scripts)/mood-edit.yaml", "--data-dir", data]).status == 0)
    let export = try Self.toFullDisk(["export", "--data-dir", data])
    #expect(export.status == 2)
    #expect(export.errText == Self.fullDisk + "\n")

    let events = workspace.path("e.ndjson")
    let populated = try Self.toNowhere([
      "run", "\(Self.scripts)/experiment-checkin.yaml", "--experiments",
      FileManager.default.currentDirectoryPath + "/Apps/Wellflow/Experiments/checkin-length.yaml", "--users",
      "3",
      "--events", events,
    ])
    #expect(populated.status == 0, "\(populated.errText)")
    for format in ["text", "json", "csv", "html"] {
      let report = try Self.toFullDisk([
        "report", events, "--experiment", "checkin-length", "--format", format,
      ])
      #expect(report.status == 2, "\(format)")
      #expect(report.errText == Self.fullDisk + "\n", "\(format)")
    }
    let html = try Self.toNowhere([
      "report", events, "--experiment", "checkin-length", "--html", "/dev/full",
    ])
    #expect(html.status == 2)
    #expect(html.errText == "error: cannot write the HTML report to '/dev/full': No space left on device\n")
  }

  /// `run --junit` and `--html` go through the same writer as everything else.
  @Test func runReportsOnAFullDiskAreExit2WithTheReason() throws {
    for (option, what) in [("--junit", "the JUnit report"), ("--html", "the HTML report")] {
      let result = try Self.toNowhere([
        "run", "\(Self.scripts)/onboarding-standard.yaml", option, "/dev/full",
      ])
      #expect(result.status == 2, "\(option)")
      #expect(
        result.errText == "error: cannot write \(what) to '/dev/full': No space left on device\n", "\(option)"
      )
    }
  }

  @Test func eventsOnAFullDiskStopTheRunWithTheReason() throws {
    for extra in [[], ["--append"]] {
      let finished = try Self.toNowhere(
        ["run", "\(Self.scripts)/onboarding-standard.yaml", "--events", "/dev/full"] + extra)
      #expect(finished.reason == .exit)
      #expect(finished.status == 2)
      #expect(finished.errText == "error: cannot write events to '/dev/full': No space left on device\n")
    }
  }

  @Test func aClosedPipeEndsTheProcessQuietlyAsSIGPIPEDoes() throws {
    // The second runs a sync first, as `wellflow run … | head -1` did in the issue. With
    // SIGPIPE ignored, the write fails with EPIPE, where Foundation trapped.
    for script in ["onboarding-standard.yaml", "sync-journal.yaml"] {
      for format in ["text", "json"] {
        for ignoring in [false, true] {
          let finished = try Self.toClosedPipe(
            ["run", "\(Self.scripts)/\(script)", "--format", format], ignoringSIGPIPE: ignoring)
          let what = "\(script) \(format)\(ignoring ? " with SIGPIPE ignored" : "")"
          #expect(finished.reason == .uncaughtSignal, "\(what)")
          #expect(finished.status == SIGPIPE, "\(what)")
          #expect(finished.errText == "", "\(what)")
        }
      }
    }
  }
}
