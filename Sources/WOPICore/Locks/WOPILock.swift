import Foundation

/// A WOPI lock identifier: an opaque string chosen by the WOPI client.
///
/// The host never interprets a lock; it only stores and compares it. WOPI allows up to
/// 1024 ASCII characters (docs/rest/src/files/Lock.rst, "X-WOPI-Lock"). The initializer
/// refuses anything else so that an oversized or non-ASCII header can never reach storage.
public struct WOPILock: Sendable, Hashable, CustomStringConvertible {
    /// The longest lock the protocol allows, in characters.
    public static let maximumLength = 1024

    /// The lock exactly as the client sent it.
    public let value: String

    /// Validates a lock value: 1 to 1024 printable ASCII characters (space included).
    ///
    /// Returns `nil` for an empty, oversized or non-ASCII value.
    public init?(_ value: String) {
        let scalars = value.unicodeScalars
        guard !scalars.isEmpty, scalars.count <= Self.maximumLength,
              scalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F })
        else { return nil }
        self.value = value
    }

    /// The lock string.
    public var description: String { value }
}
