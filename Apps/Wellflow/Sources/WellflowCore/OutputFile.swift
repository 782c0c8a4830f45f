import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A write that did not reach its file, said as `cannot write events to 'e.ndjson': No
/// space left on device`.
public struct WriteFailure: Error, Sendable, CustomStringConvertible {
  /// What was written where: `events to 'e.ndjson'`, `to standard output`.
  public var target: String
  /// The system's reason (`strerror`).
  public var reason: String
  public var code: Int32

  public var description: String { "cannot write \(target): \(reason)" }
  /// The reader of a pipe went away (`wellflow run … | head -1`).
  public var isBrokenPipe: Bool { code == EPIPE }
}

/// The one way the commands write to standard output, a report or the events file:
/// `write(2)` until every byte is taken, again after a signal (EINTR) or a partial
/// write, and a failure thrown with the file and the reason. Foundation's
/// `FileHandle.write(_:)` traps on one instead (a full disk, a closed pipe while SIGPIPE
/// is ignored). Nothing is buffered, so nothing is held back when the process ends.
public struct OutputFile: Sendable {
  public let descriptor: Int32
  /// As `WriteFailure.target` names it.
  public let target: String

  public init(descriptor: Int32, target: String) {
    self.descriptor = descriptor
    self.target = target
  }

  public static let standardOutput = OutputFile(descriptor: STDOUT_FILENO, target: "to standard output")
  public static let standardError = OutputFile(descriptor: STDERR_FILENO, target: "to standard error")

  public func write(_ text: String) throws(WriteFailure) {
    var text = text
    if let code = text.withUTF8({ writeAll(UnsafeRawBufferPointer($0)) }) { throw failure(code) }
  }

  public func write(_ data: Data) throws(WriteFailure) {
    if let code = data.withUnsafeBytes({ writeAll($0) }) { throw failure(code) }
  }

  public func write(_ bytes: UnsafeRawBufferPointer) throws(WriteFailure) {
    if let code = writeAll(bytes) { throw failure(code) }
  }

  private func failure(_ code: Int32) -> WriteFailure {
    WriteFailure(target: target, reason: String(cString: strerror(code)), code: code)
  }

  /// Writes every byte; the `errno` of the write that failed, nil when all were written.
  private func writeAll(_ bytes: UnsafeRawBufferPointer) -> Int32? {
    guard var next = bytes.baseAddress else { return nil }
    var left = bytes.count
    while left > 0 {
      #if canImport(Glibc)
        let written = Glibc.write(descriptor, next, left)
      #else
        let written = Darwin.write(descriptor, next, left)
      #endif
      if written < 0 {
        let code = errno
        if code == EINTR { continue }
        return code
      }
      next += written
      left -= written
    }
    return nil
  }

  /// The file at `path` opened for writing, created if missing: emptied, or with
  /// `appending` written after what it holds. `what` names it in a failure (`the HTML
  /// report`, `events`). Close it with `close()`.
  public static func open(_ path: String, appending: Bool = false, as what: String) throws(WriteFailure)
    -> OutputFile
  {
    let target = "\(what) to '\(path)'"
    let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (appending ? O_APPEND : O_TRUNC)
    #if canImport(Glibc)
      let descriptor = Glibc.open(path, flags, 0o644)
    #else
      let descriptor = Darwin.open(path, flags, 0o644)
    #endif
    guard descriptor >= 0 else {
      let code = errno
      throw WriteFailure(target: target, reason: String(cString: strerror(code)), code: code)
    }
    return OutputFile(descriptor: descriptor, target: target)
  }

  public func close() {
    #if canImport(Glibc)
      _ = Glibc.close(descriptor)
    #else
      _ = Darwin.close(descriptor)
    #endif
  }

  /// `text` as the whole of the file at `path` (created, or emptied first), for a report.
  public static func write(_ text: String, toFile path: String, as what: String) throws(WriteFailure) {
    let file = try open(path, as: what)
    defer { file.close() }
    try file.write(text)
  }
}

/// Standard output and standard error as the commands use them. Output that cannot be
/// written ends the process: there is no one left to read the rest.
public enum StandardStreams {
  /// Writes `text` to standard output. A reader that went away (EPIPE) ends the process
  /// as SIGPIPE ends any filter in a pipeline, quietly with status 141 in a shell, even
  /// when SIGPIPE is ignored (by a parent, or by a library); any other failure (a full disk) says
  /// `error: cannot write to standard output: …` and exits 2.
  public static func out(_ text: String) {
    do throws(WriteFailure) {
      try OutputFile.standardOutput.write(text)
    } catch {
      end(after: error)
    }
  }

  /// Writes `text` to standard error; a failure there has nowhere to be told.
  public static func err(_ text: String) {
    try? OutputFile.standardError.write(text)
  }

  /// Ends the process after standard output failed.
  public static func end(after failure: WriteFailure) -> Never {
    if failure.isBrokenPipe {
      signal(SIGPIPE, SIG_DFL)
      raise(SIGPIPE)
      _exit(128 + SIGPIPE)
    }
    err("error: \(failure)\n")
    exit(2)
  }
}
