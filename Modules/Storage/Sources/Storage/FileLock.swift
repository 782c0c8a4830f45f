import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// An advisory lock on a file, held across processes (`flock`), for work that must not
/// run twice at once on the same data, such as creating and migrating the database.
enum FileLock {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Runs `body` holding the exclusive lock on `url` (created if missing), waiting for
  /// another holder to finish. The kernel drops the lock if the process dies.
  static func exclusively<Value>(_ url: URL, _ body: () throws -> Value) throws -> Value {
    let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw Failure(description: "cannot open the lock file \(url.path): \(String(cString: strerror(errno)))")
    }
    defer { close(descriptor) }
    while flock(descriptor, LOCK_EX) != 0 {
      guard errno == EINTR else {
        throw Failure(description: "cannot lock \(url.path): \(String(cString: strerror(errno)))")
      }
    }
    defer { flock(descriptor, LOCK_UN) }
    return try body()
  }
}
