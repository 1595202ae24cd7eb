/// UTF-7 (RFC 2152) as .NET's `Encoding.UTF7` writes it, which is how Microsoft's runner encodes names in
/// `X-WOPI-SuggestedTarget`, `X-WOPI-RelativeTarget` and `X-WOPI-RequestedName`.
///
/// Only RFC 2152 "Set D" characters plus space, tab, CR and LF are written directly; the optional
/// direct characters (`!"#$%&*;<=>@[]^_` and friends) are base64-encoded, `+` becomes `+-`, and every
/// base64 run ends with `-`. So `madeup_name` becomes `madeup+AF8-name`.
public enum UTF7 {
    private static let direct: Set<UInt8> = Set("\t\n\r '(),-./0123456789:?ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Encodes `text` as UTF-7.
    public static func encode(_ text: String) -> String {
        var out: [UInt8] = []
        var bits: UInt32 = 0
        var bitCount = -1  // -1: direct mode; otherwise the number of pending bits in base64 mode.
        func closeRun() {
            if bitCount > 0 { out.append(alphabet[Int((bits << (6 - UInt32(bitCount))) & 0x3F)]) }
            out.append(UInt8(ascii: "-"))
            bitCount = -1
            bits = 0
        }
        for unit in text.utf16 {
            if unit < 0x80, direct.contains(UInt8(unit)) {
                if bitCount >= 0 { closeRun() }
                out.append(UInt8(unit))
            } else if bitCount < 0 && unit == UInt16(UInt8(ascii: "+")) {
                out += [UInt8(ascii: "+"), UInt8(ascii: "-")]
            } else {
                if bitCount < 0 {
                    out.append(UInt8(ascii: "+"))
                    bitCount = 0
                }
                bits = (bits << 16) | UInt32(unit)
                bitCount += 16
                while bitCount >= 6 {
                    bitCount -= 6
                    out.append(alphabet[Int((bits >> UInt32(bitCount)) & 0x3F)])
                }
                bits &= (1 << UInt32(bitCount)) - 1
            }
        }
        if bitCount >= 0 { closeRun() }
        return String(decoding: out, as: UTF8.self)
    }

    /// The form PutRelativeFile and the Create… requests send: the UTF-7 text after .NET's URL-encode then
    /// unescape round trip, which leaves everything intact except spaces, which become `+`.
    public static func encodeForTargetHeader(_ text: String) -> String {
        String(encode(text).map { $0 == " " ? "+" : $0 })
    }
}
