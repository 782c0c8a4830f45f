import Foundation

/// Text written in order and read back once, for an output whose first lines carry
/// totals only known at the end (the JSON document, the JUnit report): held in memory
/// while small, moved to a temporary file past `memoryLimit`, so the output of any number
/// of runs costs a bounded amount of memory. The file is removed when the spool goes.
final class Spool {
  /// Bytes held in memory before they go to the file; also the size of the pieces read back.
  let memoryLimit: Int
  private var buffer = ""
  private var file: (url: URL, handle: FileHandle)?

  init(memoryLimit: Int = 1 << 20) { self.memoryLimit = memoryLimit }

  deinit {
    guard let file else { return }
    try? file.handle.close()
    try? FileManager.default.removeItem(at: file.url)
  }

  /// Whether nothing was appended.
  var isEmpty: Bool { file == nil && buffer.isEmpty }

  /// Whether everything appended is still in memory (no file was needed).
  var isInMemory: Bool { file == nil }

  func append(_ text: String) throws {
    buffer += text
    if buffer.utf8.count >= memoryLimit { try spill() }
  }

  private func spill() throws {
    if file == nil {
      let url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "wellflow-\(UUID().uuidString).part")
      guard
        FileManager.default.createFile(
          atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
      else {
        throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
      }
      file = (url, try FileHandle(forWritingTo: url))
    }
    try file!.handle.write(contentsOf: Data(buffer.utf8))
    buffer = ""
  }

  /// Everything appended, in order, in pieces of at most about `memoryLimit` bytes (a
  /// piece may end inside a character).
  func forEachPiece(_ body: (Data) throws -> Void) throws {
    if let file {
      let reader = try FileHandle(forReadingFrom: file.url)
      defer { try? reader.close() }
      while let piece = try reader.read(upToCount: memoryLimit), !piece.isEmpty { try body(piece) }
    }
    if !buffer.isEmpty { try body(Data(buffer.utf8)) }
  }

  /// What was appended, when it is all in memory.
  var text: String? { isInMemory ? buffer : nil }
}

/// Writes a report whose body was spooled: the head, the body, the tail. A body still in
/// memory is written as one piece, as reports always were; a large one is copied a piece
/// at a time. Reports go through here so that their writing has one place.
enum SpooledReport {
  static func write(head: String, body: Spool, tail: String, to path: String, as what: String) throws {
    let file = try OutputFile.open(path, as: what)
    defer { file.close() }
    if let text = body.text {
      try file.write(head + text + tail)
      return
    }
    try file.write(head)
    try body.forEachPiece { try file.write($0) }
    try file.write(tail)
  }

  /// The same through `line`, which ends each piece with a newline: each piece given is
  /// whole lines, so a large document reaches standard output without ever being whole
  /// in memory; a small one is one piece, as it always was.
  static func print(head: String, body: Spool, tail: String, to line: (String) -> Void) throws {
    if let text = body.text {
      line(head + text + tail)
      return
    }
    var pending = Data(head.utf8)
    try body.forEachPiece { piece in
      pending.append(piece)
      guard pending.count >= body.memoryLimit, let newline = pending.lastIndex(of: UInt8(ascii: "\n")) else {
        return
      }
      line(String(decoding: pending[..<newline], as: UTF8.self))
      pending = Data(pending[pending.index(after: newline)...])
    }
    pending.append(Data(tail.utf8))
    line(String(decoding: pending, as: UTF8.self))
  }
}
