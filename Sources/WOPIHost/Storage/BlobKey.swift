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

    /// A fresh, unique key. It ends with the time it was made (`-` and milliseconds since 1970 in base 36), so a
    /// sweep judges a body's age by the clock of the host that wrote it, never by the store's own timestamps.
    public static func random(at time: Date = Date()) -> BlobKey {
        let milliseconds = Int64((time.timeIntervalSince1970 * 1000).rounded(.down))
        return BlobKey(ResourceID.random().rawValue + "-" + String(milliseconds, radix: 36))!
    }

    /// When ``random(at:)`` made the key; `nil` for a key of another form (one made before keys carried their time).
    public var createdAt: Date? {
        guard let dash = rawValue.lastIndex(of: "-"), let milliseconds = Int64(rawValue[rawValue.index(after: dash)...], radix: 36) else {
            return nil
        }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// The raw value.
    public var description: String { rawValue }
}
