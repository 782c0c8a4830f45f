import Foundation

/// Lines for an output gathered and written together: `serve`'s request log is a line per
/// request, and a write(2) for each cost the request more than the line. Lines keep their
/// order. A line waits until `limit` bytes wait or until `flush()`, which whoever runs the
/// buffer calls on a timer and once more at the end, so none is lost when the server stops.
public final class BatchedLines: @unchecked Sendable {
  /// Bytes that are written at once, without waiting for the next flush.
  public let limit: Int
  private let write: @Sendable (UnsafeRawBufferPointer) -> Void
  /// Guarded by `lock`, which is held while writing so that lines keep their order.
  private var pending: [UInt8] = []
  private let lock = NSLock()

  public init(limit: Int = 16_384, write: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
    self.limit = limit
    self.write = write
    pending.reserveCapacity(limit)
  }

  /// Adds `line` and a line feed; writes everything waiting once `limit` bytes wait.
  public func append(_ line: String) {
    lock.withLock {
      pending += line.utf8
      pending.append(UInt8(ascii: "\n"))
      if pending.count >= limit { writePending() }
    }
  }

  /// Writes every line waiting.
  public func flush() {
    lock.withLock { writePending() }
  }

  /// Called with `lock` held.
  private func writePending() {
    guard !pending.isEmpty else { return }
    pending.withUnsafeBytes(write)
    pending.removeAll(keepingCapacity: true)
  }
}
