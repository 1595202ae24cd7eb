/// UTF-7 as defined by RFC 2152, the encoding WOPI uses for file names in HTTP headers.
///
/// WOPI clients send the names in `X-WOPI-SuggestedTarget` and `X-WOPI-RelativeTarget`
/// (PutRelativeFile) and `X-WOPI-RequestedName` (RenameFile, RenameContainer) UTF-7 encoded, so
/// that any Unicode name fits in an ASCII header (WOPI REST docs, files/PutRelativeFile.rst).
///
/// The decoder is strict about structure and lenient only where RFC 2152 itself allows it:
/// a shift sequence may end implicitly at any character outside the base64 set, and any printable
/// ASCII character may appear directly. Everything else that a correct encoder never produces
/// is rejected with a ``DecodingError`` that names the problem and where it is.
public enum UTF7 {
    /// Why a string is not valid UTF-7 (RFC 2152).
    ///
    /// Every offset counts Unicode scalars from the start of the input.
    public enum DecodingError: Error, Hashable, Sendable, CustomStringConvertible {
        /// A character UTF-7 never carries as itself: anything outside 7-bit ASCII, or a control
        /// character other than TAB, CR and LF (RFC 2152, "Rule 3" and "Rule 2").
        case characterNotAllowed(Unicode.Scalar, offset: Int)
        /// A `+` followed by a character that is neither base64 nor `-`; RFC 2152 calls this ill-formed.
        case emptyShift(offset: Int)
        /// The input ends inside a shift sequence, or right after a `+`. Encoders always close a
        /// shift with `-` at the end of the text, so a cut-off sequence means a cut-off name.
        case unterminatedShift(offset: Int)
        /// A shift sequence ended with bits left over that do not form a UTF-16 unit: six or more
        /// bits, or padding bits that are not zero (RFC 2152, "Rule 2").
        case strayBits(offset: Int)
        /// A UTF-16 surrogate without its partner inside the same shift sequence.
        case unpairedSurrogate(UInt16, offset: Int)

        /// A one-line explanation that names the problem and where it is.
        public var description: String {
            switch self {
            case let .characterNotAllowed(scalar, offset):
                let code = "U+" + String(scalar.value, radix: 16, uppercase: true)
                return "invalid UTF-7: character \(code) at offset \(offset) is not allowed unencoded"
            case let .emptyShift(offset):
                return "invalid UTF-7: '+' at offset \(offset) is followed by neither base64 nor '-'"
            case let .unterminatedShift(offset):
                return "invalid UTF-7: the shift sequence starting at offset \(offset) is not terminated"
            case let .strayBits(offset):
                return "invalid UTF-7: the shift sequence ending at offset \(offset) leaves stray bits"
            case let .unpairedSurrogate(unit, offset):
                let code = String(unit, radix: 16, uppercase: true)
                return "invalid UTF-7: unpaired UTF-16 surrogate 0x\(code) at offset \(offset)"
            }
        }
    }

    /// Decodes an RFC 2152 UTF-7 string, such as the value of `X-WOPI-SuggestedTarget`.
    ///
    /// - Parameter encoded: The UTF-7 text; it must be ASCII.
    /// - Returns: The decoded Unicode string.
    /// - Throws: ``DecodingError`` naming the first problem found.
    public static func decode(_ encoded: String) throws(DecodingError) -> String {
        let scalars = Array(encoded.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            guard scalar == "+" else {
                guard isAllowedDirectly(scalar) else {
                    throw .characterNotAllowed(scalar, offset: index)
                }
                result.append(scalar)
                index += 1
                continue
            }
            let shiftStart = index
            index += 1
            guard index < scalars.count else { throw .unterminatedShift(offset: shiftStart) }
            if scalars[index] == "-" {
                // "+-" is the RFC's spelling of a literal plus sign.
                result.append("+")
                index += 1
                continue
            }
            guard base64Value(scalars[index]) != nil else { throw .emptyShift(offset: shiftStart) }

            var bits: UInt32 = 0
            var bitCount = 0
            var pendingHighSurrogate: UInt16?
            while index < scalars.count, let value = base64Value(scalars[index]) {
                bits = (bits << 6) | UInt32(value)
                bitCount += 6
                if bitCount >= 16 {
                    bitCount -= 16
                    let unit = UInt16(truncatingIfNeeded: bits >> UInt32(bitCount))
                    bits &= (UInt32(1) << UInt32(bitCount)) - 1
                    if UTF16.isLeadSurrogate(unit) {
                        if let high = pendingHighSurrogate { throw .unpairedSurrogate(high, offset: index) }
                        pendingHighSurrogate = unit
                    } else if UTF16.isTrailSurrogate(unit) {
                        guard let high = pendingHighSurrogate else { throw .unpairedSurrogate(unit, offset: index) }
                        let value = 0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(unit) - 0xDC00)
                        // Always valid: a surrogate pair covers exactly U+10000...U+10FFFF.
                        guard let combined = Unicode.Scalar(value) else { throw .unpairedSurrogate(unit, offset: index) }
                        result.append(combined)
                        pendingHighSurrogate = nil
                    } else {
                        if let high = pendingHighSurrogate { throw .unpairedSurrogate(high, offset: index) }
                        // Not a surrogate, so always a valid scalar.
                        guard let decoded = Unicode.Scalar(unit) else { throw .unpairedSurrogate(unit, offset: index) }
                        result.append(decoded)
                    }
                }
                index += 1
            }
            guard index < scalars.count else { throw .unterminatedShift(offset: shiftStart) }
            guard bitCount < 6, bits == 0 else { throw .strayBits(offset: index) }
            if let high = pendingHighSurrogate { throw .unpairedSurrogate(high, offset: index) }
            // An explicit "-" ends the shift and is absorbed; any other character ends it
            // implicitly and is then read as itself by the next loop iteration.
            if scalars[index] == "-" { index += 1 }
        }
        return String(result)
    }

    /// Encodes a string as RFC 2152 UTF-7, the way a WOPI client encodes name headers.
    ///
    /// Characters of RFC 2152 sets D and O and the space are written as themselves; `+` becomes
    /// `+-`; everything else — including `\`, `~`, TAB, CR and LF, so that the result is always a
    /// single-line header value — goes into base64 shift sequences. A shift sequence is closed with
    /// `-` only where the next character would otherwise be misread, and always at the end.
    public static func encode(_ string: String) -> String {
        var output = ""
        var pendingUnits: [UInt16] = []
        let scalars = Array(string.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            if scalar != "+", isEncodedDirectly(scalar) {
                flush(&pendingUnits, into: &output, next: scalar)
                output.unicodeScalars.append(scalar)
            } else if scalar == "+" {
                flush(&pendingUnits, into: &output, next: scalar)
                output += "+-"
            } else {
                pendingUnits.append(contentsOf: scalar.utf16)
            }
            if index == scalars.count - 1 {
                flush(&pendingUnits, into: &output, next: nil)
            }
        }
        return output
    }

    // MARK: - Character sets

    private static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".unicodeScalars)

    /// Sets D and O of RFC 2152 plus the space: what the encoder writes as itself.
    private static let directlyEncoded: Set<Unicode.Scalar> = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'(),-./:? !\"#$%&*;<=>@[]^_`{|}".unicodeScalars
    )

    private static func base64Value(_ scalar: Unicode.Scalar) -> UInt8? {
        switch scalar.value {
        case 0x41...0x5A: UInt8(scalar.value - 0x41)
        case 0x61...0x7A: UInt8(scalar.value - 0x61 + 26)
        case 0x30...0x39: UInt8(scalar.value - 0x30 + 52)
        case 0x2B: 62
        case 0x2F: 63
        default: nil
        }
    }

    /// What the decoder accepts unencoded: printable ASCII plus TAB, CR and LF.
    private static func isAllowedDirectly(_ scalar: Unicode.Scalar) -> Bool {
        (0x20...0x7E).contains(scalar.value) || scalar == "\t" || scalar == "\r" || scalar == "\n"
    }

    private static func isEncodedDirectly(_ scalar: Unicode.Scalar) -> Bool {
        directlyEncoded.contains(scalar)
    }

    /// Writes the pending UTF-16 units as one shift sequence, closing it with `-` when the next
    /// character is base64, `-`, or the end of the text.
    private static func flush(_ units: inout [UInt16], into output: inout String, next: Unicode.Scalar?) {
        guard !units.isEmpty else { return }
        output += "+"
        var bits: UInt32 = 0
        var bitCount = 0
        for unit in units {
            bits = (bits << 16) | UInt32(unit)
            bitCount += 16
            while bitCount >= 6 {
                bitCount -= 6
                output.unicodeScalars.append(base64Alphabet[Int((bits >> UInt32(bitCount)) & 0x3F)])
            }
            bits &= (UInt32(1) << UInt32(bitCount)) - 1
        }
        if bitCount > 0 {
            output.unicodeScalars.append(base64Alphabet[Int((bits << UInt32(6 - bitCount)) & 0x3F)])
        }
        units.removeAll(keepingCapacity: true)
        if let next, next != "-", base64Value(next) == nil {
            return
        }
        output += "-"
    }
}
