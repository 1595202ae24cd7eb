import Foundation

/// Starts child processes one at a time.
///
/// The suite starts hundreds of processes (`wopi`, PostgreSQL, nginx, SeaweedFS, Chromium) from tests that
/// run in parallel, and one full run crashed inside Foundation's `Process.run()` on Linux (a bad read in
/// `memcpy` while it set up a child) while other tests were starting theirs. Every start goes through
/// here, so no two launches overlap; the children themselves still run side by side.
public enum ProcessLaunch {
    private static let lock = NSLock()

    /// Runs `process.run()` while no other launch from this test process is under way.
    public static func run(_ process: Process) throws {
        lock.lock()
        defer { lock.unlock() }
        try process.run()
    }
}
