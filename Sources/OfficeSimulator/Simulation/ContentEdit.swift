import Foundation

/// The change the simulator saves when no replacement content is given: deterministic, always
/// different from the input, and harmless to an Office document.
///
/// Office documents are ZIP archives (ECMA-376 Part 2, OPC); for those the edit appends a line to
/// the archive comment (APPNOTE.TXT §4.3.16), which every reader ignores, so the document still
/// opens. Anything else gets the same line appended.
public enum ContentEdit {
    /// The text each edit adds.
    public static let marker = "Edited by the WOPIKit Office simulator.\n"

    /// `content` changed as described above.
    public static func edited(_ content: Data) -> Data {
        let bytes = [UInt8](content)
        let addition = [UInt8](marker.utf8)
        guard let eocd = endOfCentralDirectory(in: bytes) else { return content + Data(addition) }
        let commentLength = Int(bytes[eocd + 20]) | Int(bytes[eocd + 21]) << 8
        let newLength = commentLength + addition.count
        guard newLength <= 0xFFFF else { return content + Data(addition) }
        var out = bytes
        out[eocd + 20] = UInt8(newLength & 0xFF)
        out[eocd + 21] = UInt8(newLength >> 8)
        out += addition
        return Data(out)
    }

    /// The offset of the end-of-central-directory record whose comment runs exactly to the end of the data.
    private static func endOfCentralDirectory(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 22 else { return nil }
        var offset = bytes.count - 22
        let lowest = max(0, bytes.count - 22 - 0xFFFF)
        while offset >= lowest {
            if bytes[offset] == 0x50, bytes[offset + 1] == 0x4B, bytes[offset + 2] == 0x05, bytes[offset + 3] == 0x06 {
                let commentLength = Int(bytes[offset + 20]) | Int(bytes[offset + 21]) << 8
                if offset + 22 + commentLength == bytes.count { return offset }
            }
            offset -= 1
        }
        return nil
    }
}
