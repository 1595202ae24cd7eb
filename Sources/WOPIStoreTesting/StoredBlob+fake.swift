import Foundation
import WOPIHost

extension StoredBlob {
    /// A body description without a body: metadata stores record keys, they never read them.
    static func fake(size: Int64 = 10, tag: String = "x") -> StoredBlob {
        StoredBlob(key: .random(), size: size, sha256: Data(tag.utf8).base64EncodedString())
    }
}
