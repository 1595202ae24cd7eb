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

    /// The session a JSON-shaped lock names, or `nil` for any other lock.
    ///
    /// Office for the web and Office Online Server send lock ids that are JSON objects, such as
    /// `{"S":"<session id>","F":0,"E":2,"M":"…","P":"…"}`, and change the fields other than `S` during
    /// one editing session. A lock is JSON-shaped when it parses as a JSON object whose `S` member
    /// is a non-empty string.
    public var sessionID: String? {
        guard value.first == "{", value.last == "}",
              let object = try? JSONSerialization.jsonObject(with: Data(value.utf8)) as? [String: Any],
              let session = object["S"] as? String, !session.isEmpty
        else { return nil }
        return session
    }

    /// Whether `other` identifies the same lock as this one.
    ///
    /// Two locks match when they are byte for byte equal, or when both are JSON-shaped and name the same
    /// session (``sessionID``), whatever their other fields say: that is how Office's JSON lock ids
    /// must be compared, and how peer hosts (cs3org/wopiserver, ownCloud, WopiHost) compare them. A plain
    /// lock never matches a JSON-shaped one, and plain locks compare exactly, as Lock.rst requires.
    public func matches(_ other: WOPILock) -> Bool {
        if value == other.value { return true }
        guard let mine = sessionID, let theirs = other.sessionID else { return false }
        return mine == theirs
    }
}
