import Foundation
import WOPICore

/// The name of one stored body. Every write gets a new key, so the old body stays intact until
/// the new version is recorded.
public struct BlobKey: Sendable, Hashable, CustomStringConvertible {
    /// The key; `[A-Za-z0-9_-]` only, so it is safe as a path component.
    public let rawValue: String

    /// Wraps a stored key; `nil` when it is not path-safe.
    public init?(_ rawValue: String) {
        guard ResourceID(rawValue) != nil else { return nil }
        self.rawValue = rawValue
    }

    /// A fresh, unique key.
    public static func random() -> BlobKey { BlobKey(ResourceID.random().rawValue)! }

    /// The raw value.
    public var description: String { rawValue }
}
