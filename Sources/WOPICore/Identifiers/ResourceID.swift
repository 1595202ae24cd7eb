import Foundation

/// The identifier of a file or container in a WOPISrc (`/wopi/files/<id>`).
///
/// WOPI ids are opaque to the client but end up in URLs, logs and file-system paths, so the
/// host accepts only `[A-Za-z0-9_-]`, 1 to 64 characters. Anything else (`..%2F..%2Fetc`,
/// spaces, a percent sign) is refused before it reaches storage.
public struct ResourceID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The id as it appears in the URL.
    public let rawValue: String

    /// Validates an id; `nil` when it has characters outside `[A-Za-z0-9_-]` or a bad length.
    public init?(_ rawValue: String) {
        guard (1...64).contains(rawValue.utf8.count),
              rawValue.utf8.allSatisfy(Self.isAllowed)
        else { return nil }
        self.rawValue = rawValue
    }

    /// A new random id: 128 bits as 32 lowercase hex digits.
    public static func random() -> ResourceID {
        var generator = SystemRandomNumberGenerator()
        let hex = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
        return ResourceID(unchecked: hex)
    }

    private init(unchecked: String) { self.rawValue = unchecked }

    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        guard let id = ResourceID(raw) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "Invalid resource id '\(raw)'"))
        }
        self = id
    }

    /// Encodes the raw value as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The raw value.
    public var description: String { rawValue }

    /// `[A-Za-z0-9_-]`, tested with ranges rather than a set: ids are checked several times per request.
    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "-"): true
        default: false
        }
    }
}
