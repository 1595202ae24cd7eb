import Foundation

/// What a WOPI client signs for one request: the access token, the full request URL and the
/// `X-WOPI-TimeStamp` value (online/scenarios/proofkeys.rst, "Constructing the expected proof").
public struct ProofKeyRequest: Sendable, Hashable {
    /// The access token exactly as the client knows it: the `access_token` value the host issued.
    /// (WOPIKit issues URL-safe tokens, so its query-string form and its value are the same text.)
    public var accessToken: String
    /// The full request URL as the client called it, including the query string, before upper-casing.
    /// Behind a TLS-terminating proxy this is the external `https` URL, not the one the host received.
    public var url: String
    /// The value of `X-WOPI-TimeStamp`.
    public var timestamp: ProofKeyTimestamp

    /// Creates the description of a signed request.
    public init(accessToken: String, url: String, timestamp: ProofKeyTimestamp) {
        self.accessToken = accessToken
        self.url = url
        self.timestamp = timestamp
    }

    /// The exact bytes that are signed: a 4-byte big-endian length and the UTF-8 access token,
    /// a 4-byte length and the UTF-8 upper-cased URL, then the length 8 and the timestamp as an
    /// 8-byte big-endian integer.
    public var signedBytes: [UInt8] {
        let token = Array(accessToken.utf8)
        let url = Array(Self.uppercasedInvariant(self.url).utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(token.count + url.count + 20)
        bytes += Self.bigEndianBytes(UInt32(truncatingIfNeeded: token.count))
        bytes += token
        bytes += Self.bigEndianBytes(UInt32(truncatingIfNeeded: url.count))
        bytes += url
        bytes += Self.bigEndianBytes(UInt32(8))
        bytes += withUnsafeBytes(of: timestamp.ticks.bigEndian) { Array($0) }
        return bytes
    }

    /// Upper-cases text the way .NET's `String.ToUpperInvariant` does, which is what Office uses
    /// for the URL: character by character with the culture-independent mapping, never changing
    /// the length (so `ß` stays `ß`, where Swift's `uppercased()` would write `SS`).
    ///
    /// A scalar whose full Unicode upper-case mapping is a single scalar gets that scalar; one whose
    /// mapping expands to several (`ß`, `ŉ`, ligatures such as `ﬁ`) stays as it is.
    public static func uppercasedInvariant(_ text: String) -> String {
        // URLs are nearly always ASCII: take the fast path then.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: text.utf8.map { (0x61...0x7A).contains($0) ? $0 - 0x20 : $0 }, as: UTF8.self)
        }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let mapped = scalar.properties.uppercaseMapping.unicodeScalars
            if mapped.count == 1, let single = mapped.first {
                result.append(single)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    private static func bigEndianBytes(_ value: UInt32) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}
