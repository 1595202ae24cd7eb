#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import TestSupport

/// An exclusive `flock` on a folder, held until ``release()``: it serialises processes as well as tasks, since
/// every `open` makes a lock of its own. The folder itself is locked, so no lock file is left behind.
struct FolderLock: Sendable {
    private let descriptor: Int32

    /// Creates `folder` if needed and waits for its lock, on a thread off Swift's cooperative pool.
    static func acquire(_ folder: URL) async throws -> FolderLock {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw Failure(description: "cannot create \(folder.path): \(error.localizedDescription)")
        }
        return try await offPool {
            let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { throw Failure(description: "cannot open \(folder.path): \(String(cString: strerror(errno)))") }
            while flock(descriptor, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    let reason = String(cString: strerror(errno))
                    close(descriptor)
                    throw Failure(description: "cannot lock \(folder.path): \(reason)")
                }
            }
            return FolderLock(descriptor: descriptor)
        }
    }

    /// Releases the lock (closing the descriptor does).
    func release() {
        close(descriptor)
    }

    /// Why the folder could not be locked.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }
}
