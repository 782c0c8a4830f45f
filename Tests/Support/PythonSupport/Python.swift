import Foundation

/// `python3` for the tests that check Wellflow against a Python reference (GrowthBook's
/// SDK, Python's `jsonschema`): whether a module is there, and a run with its output.
public enum Python {
  /// CI sets `WELLFLOW_REQUIRE_PYTHON_REFERENCE=1`, so a missing Python package fails
  /// there instead of skipping the check.
  public static var required: Bool {
    ProcessInfo.processInfo.environment["WELLFLOW_REQUIRE_PYTHON_REFERENCE"] == "1"
  }

  /// Whether `python3 -c STATEMENT` succeeds (`import growthbook`, say).
  public static func succeeds(_ statement: String) -> Bool {
    (try? run(["-c", statement]).status) == 0
  }

  public struct Output: Sendable {
    public var status: Int32
    public var stdout: Data
    public var stderr: String
  }

  /// Runs `python3 ARGUMENTS` in `directory` with `input` on its standard input and
  /// waits for it; a writer thread feeds the input so a large answer cannot block it.
  public static func run(_ arguments: [String], input: Data? = nil, in directory: String? = nil) throws
    -> Output
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3"] + arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = input == nil ? FileHandle.nullDevice : stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    if let input {
      Thread {
        stdin.fileHandleForWriting.write(input)
        try? stdin.fileHandleForWriting.close()
      }.start()
    }
    let data = stdout.fileHandleForReading.readDataToEndOfFile()
    let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return Output(status: process.terminationStatus, stdout: data, stderr: errors)
  }
}
