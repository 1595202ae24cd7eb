import Foundation
import NIOCore
import NIOPosix

/// Runs Swift concurrency's global executor on NIO's event loops (issue 10); `wopi serve` installs it first thing.
///
/// A request handler then resumes on the event loop that owns its connection instead of hopping to
/// Swift's own thread pool and back for every `await`: the profile of CheckFileInfo under load had
/// about a third of its samples in those thread switches. `WOPI_CONCURRENCY_EXECUTOR=default`
/// keeps Swift's own pool (to compare, or should a platform refuse the hook).
public enum EventLoopExecutor {
    /// Installs the hook once per process; later calls do nothing. Returns whether the event loops run concurrency.
    @discardableResult
    public static func install() -> Bool { installed }

    private static let installed: Bool = {
        guard ProcessInfo.processInfo.environment["WOPI_CONCURRENCY_EXECUTOR"] != "default" else { return false }
        return NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }()
}
