import Dispatch

/// Where ``SQLiteStore``'s write transactions run, statements and all: a serial dispatch queue of their own.
///
/// A transaction's statements run synchronously, and may wait: for another process's lock on the file (up to
/// ``SQLiteStore/busyTimeout``), for the disk. Waiting there blocks this queue's thread, never one of the few
/// threads of Swift's cooperative pool that every request of the host needs. Transactions are taken one at a
/// time anyway (SQLite has one writer), so one thread is all they need.
final class SQLiteWriterExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "WOPIKit.SQLiteStore.writer")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
