@testable import WOPIHost

extension HostStorage {
    /// The body folder of a host the tests made with ``HostStorage/embedded(data:blobs:)``, for tests that look at its files.
    var fileBlobs: FileSystemBlobStore {
        guard let store = blobs as? FileSystemBlobStore else { fatalError("this storage keeps bodies in \(blobs.location), not a folder") }
        return store
    }
}
