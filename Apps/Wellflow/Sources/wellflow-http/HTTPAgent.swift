import Foundation
import Sync

/// The `wellflow-http` agent's loop: requests from standard input, each sent through
/// URLSession as it arrives, answers to standard output in the order they finish (see
/// `HTTPAgentFrames`). It ends when its input does, which is when the process that
/// started it exits.
public enum HTTPAgent {
  public static func serve(input: FileHandle = .standardInput, output: FileHandle = .standardOutput) async
    -> Int32
  {
    let transport = URLSessionTransport()
    let writer = AnswerWriter(output: output)
    var buffer: [UInt8] = []
    // Discarding: an agent serves a whole sync, and finished requests must not pile up.
    await withDiscardingTaskGroup { group in
      while true {
        let chunk = await readChunk(input)
        if chunk.isEmpty { break }
        buffer += chunk
        do {
          while let frame = try HTTPAgentFrames.nextFrame(&buffer) {
            let request = try HTTPAgentFrames.readRequest(frame)
            group.addTask {
              let result = await transport.send(request.request, connections: request.connections)
              writer.write(HTTPAgentFrames.response(id: request.id, result))
            }
          }
        } catch {
          FileHandle.standardError.write(Data("wellflow-http: a malformed request: \(error)\n".utf8))
          return
        }
      }
    }
    return 0
  }

  /// The next bytes of `input`, read off the cooperative pool; empty at its end.
  private static func readChunk(_ input: FileHandle) async -> Data {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: input.availableData) }
    }
  }

  /// Writes whole frames, one at a time.
  private final class AnswerWriter: Sendable {
    private let output: FileHandle
    private let lock = NSLock()

    init(output: FileHandle) { self.output = output }

    func write(_ frame: [UInt8]) {
      lock.lock()
      defer { lock.unlock() }
      // The parent gone: nothing left to answer.
      do { try output.write(contentsOf: frame) } catch { exit(0) }
    }
  }
}
