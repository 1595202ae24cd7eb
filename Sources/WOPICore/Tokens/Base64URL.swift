import Foundation

/// Base64url without padding (RFC 4648 §5), the alphabet safe in URLs, headers and Office URIs.
public enum Base64URL {
    /// Encodes bytes as unpadded base64url.
    public static func encode(_ data: Data) -> String {
        encode(bytes: data)
    }

    /// Encodes bytes as unpadded base64url, straight from a table (EnumerateChildren encodes
    /// two of these for every child's token).
    public static func encode(bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: (bytes.count * 4 + 2) / 3) { output in
            var count = 0
            var bits: UInt32 = 0
            var pending = 0
            for byte in bytes {
                bits = bits << 8 | UInt32(byte)
                pending += 8
                while pending >= 6 {
                    pending -= 6
                    output[count] = encodingTable[Int(bits >> UInt32(pending) & 0x3F)]
                    count += 1
                }
            }
            if pending > 0 {
                output[count] = encodingTable[Int(bits << UInt32(6 - pending) & 0x3F)]
                count += 1
            }
            return count
        }
    }

    /// The base64url alphabet (RFC 4648 §5), each symbol at its 6-bit value.
    private static let encodingTable = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Decodes unpadded (or padded) base64url; `nil` for anything outside the alphabet.
    public static func decode(_ text: some StringProtocol) -> Data? {
        decodeBytes(text).map { Data($0) }
    }

    /// ``decode(_:)`` into an array: one pass through a lookup table, no intermediate text (    /// tokens are decoded on every WOPI request). `=` may appear anywhere and is dropped; bits left
    /// over after the last whole byte are ignored, as Foundation's decoder ignores them.
    public static func decodeBytes(_ text: some StringProtocol) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count * 3 / 4 + 1)
        var bits: UInt32 = 0
        var symbols = 0
        for byte in text.utf8 {
            let value = decodingTable[Int(byte)]
            if value == padding { continue }
            guard value != invalid else { return nil }
            bits = bits << 6 | UInt32(value)
            symbols += 1
            if symbols == 4 {
                bytes.append(UInt8(truncatingIfNeeded: bits >> 16))
                bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
                bytes.append(UInt8(truncatingIfNeeded: bits))
                bits = 0
                symbols = 0
            }
        }
        switch symbols {
        case 1: return nil
        case 2: bytes.append(UInt8(truncatingIfNeeded: bits >> 4))
        case 3:
            bytes.append(UInt8(truncatingIfNeeded: bits >> 10))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 2))
        default: break
        }
        return bytes
    }

    private static let invalid: UInt8 = 0xFF
    private static let padding: UInt8 = 0xFE
    /// Each byte's 6-bit value in the base64url alphabet, ``padding`` for `=`, ``invalid`` otherwise.
    private static let decodingTable: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, symbol) in encodingTable.enumerated() {
            table[Int(symbol)] = UInt8(value)
        }
        table[Int(UInt8(ascii: "="))] = padding
        return table
    }()

    /// `count` random bytes from the system's secure generator, base64url-encoded.
    public static func randomToken(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        return encode(Data((0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }))
    }
}
