import HummingbirdCore
import Logging
import NIOCore

/// A server child channel whose connections are handled on their own event loop: the
/// connection's task prefers that loop as its executor, so reading a request, running the
/// router and writing the answer stay on the thread NIO reads and writes on. On Swift's
/// global executor each request woke a pool thread when it arrived and the loop's thread
/// when its answer was written (the `serve` profile's futex and task-switch time).
struct EventLoopConnections<Base: ServerChildChannel>: ServerChildChannel {
  let base: Base

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Base.Value> {
    base.setup(channel: channel, logger: logger)
  }

  @concurrent func handle(value: Base.Value, logger: Logger) async {
    await withTaskExecutorPreference(EventLoopTaskExecutor(loop: value.channel.eventLoop)) {
      await base.handle(value: value, logger: logger)
    }
  }
}

/// An event loop as a task executor: jobs run on the loop's thread, in its task queue.
final class EventLoopTaskExecutor: TaskExecutor {
  let loop: any EventLoop

  init(loop: any EventLoop) {
    self.loop = loop
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
