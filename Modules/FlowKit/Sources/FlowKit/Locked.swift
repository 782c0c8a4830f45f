import Foundation

/// A value guarded by a lock, for the few reference types that must be `Sendable`
/// and mutable (clocks, in-memory adapters). `Mutex` needs macOS 15; this does not.
public final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  public init(_ value: Value) { self.value = value }

  public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }

  public var current: Value { withLock { $0 } }
}
