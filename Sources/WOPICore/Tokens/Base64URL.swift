import Foundation

/// Base64url without padding (RFC 4648 §5), the alphabet safe in URLs, headers and Office URIs.
public enum Base64URL {
    /// Encodes bytes as unpadded base64url.
    public static func encode(_ data: Data) -> String {
        // One pass over the base64 bytes rather than three string replacements: tokens are encoded
        // and decoded on every WOPI request.
        var bytes = Array(data.base64EncodedData())
        var count = 0
        for byte in bytes where byte != UInt8(ascii: "=") {
            bytes[count] = switch byte {
            case UInt8(ascii: "+"): UInt8(ascii: "-")
            case UInt8(ascii: "/"): UInt8(ascii: "_")
            default: byte
            }
            count += 1
        }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }

    /// Decodes unpadded (or padded) base64url; `nil` for anything outside the alphabet.
    public static func decode(_ text: some StringProtocol) -> Data? {
        // `=` may appear anywhere and is dropped; padding is added back for Foundation's decoder.
        var base64: [UInt8] = []
        base64.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                base64.append(byte)
            case UInt8(ascii: "-"): base64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): base64.append(UInt8(ascii: "/"))
            case UInt8(ascii: "="): continue
            default: return nil
            }
        }
        if base64.count % 4 == 1 { return nil }
        base64.append(contentsOf: repeatElement(UInt8(ascii: "="), count: (4 - base64.count % 4) % 4))
        return Data(base64Encoded: Data(base64))
    }

    /// `count` random bytes from the system's secure generator, base64url-encoded.
    public static func randomToken(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        return encode(Data((0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }))
    }
}
