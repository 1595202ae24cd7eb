/// A strict RFC 8259 JSON parser producing ``JSONValue``.
///
/// Written for the validator instead of `JSONSerialization` so that numbers keep their form (integer vs.
/// fraction), booleans never turn into numbers, and the schema files' `//` comments can be skipped.
public struct JSONParser: Sendable {
    /// Why a document could not be parsed.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// Byte offset of the problem.
        public let offset: Int
        /// What was wrong.
        public let reason: String
        /// One line naming the problem and its byte offset.
        public var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    /// Whether `//` line comments are skipped (the chunked-transfer schema files contain them).
    public var allowsComments: Bool

    /// Whether Newtonsoft's relaxed syntax is accepted: unquoted member names and single-quoted strings
    /// (TestCases.xml writes `ResponseBodyProperty` expectations that way).
    public var allowsRelaxedSyntax: Bool

    /// Creates a parser.
    public init(allowsComments: Bool = false, allowsRelaxedSyntax: Bool = false) {
        self.allowsComments = allowsComments
        self.allowsRelaxedSyntax = allowsRelaxedSyntax
    }

    /// Parses UTF-8 JSON text (a leading byte-order mark is ignored, as .NET's readers do).
    public func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var cursor = Cursor(bytes: bytes, allowsComments: allowsComments, relaxed: allowsRelaxedSyntax)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { cursor.index = 3 }
        let value = try cursor.value(depth: 0)
        try cursor.skipWhitespace()
        guard cursor.index == bytes.count else { throw cursor.failure("unexpected text after the document") }
        return value
    }

    /// Parses JSON text.
    public func parse(_ text: String) throws(Failure) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

private struct Cursor {
    let bytes: [UInt8]
    let allowsComments: Bool
    let relaxed: Bool
    var index = 0

    init(bytes: [UInt8], allowsComments: Bool, relaxed: Bool) {
        self.bytes = bytes
        self.allowsComments = allowsComments
        self.relaxed = relaxed
    }

    func failure(_ reason: String) -> JSONParser.Failure {
        JSONParser.Failure(offset: index, reason: reason)
    }

    mutating func skipWhitespace() throws(JSONParser.Failure) {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            case UInt8(ascii: "/") where allowsComments:
                guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") else {
                    throw failure("unexpected '/'")
                }
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            default: return
            }
        }
    }

    mutating func value(depth: Int) throws(JSONParser.Failure) -> JSONValue {
        // Deep nesting only comes from hostile input; refuse it instead of exhausting the stack.
        guard depth < 512 else { throw failure("nesting deeper than 512 levels") }
        try skipWhitespace()
        guard index < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "'") where relaxed: return .string(try string(quote: UInt8(ascii: "'")))
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return .number(try number())
        }
    }

    mutating func literal(_ word: String) throws(JSONParser.Failure) {
        let utf8 = Array(word.utf8)
        guard bytes.count - index >= utf8.count, Array(bytes[index..<index + utf8.count]) == utf8 else {
            throw failure("expected '\(word)'")
        }
        index += utf8.count
    }

    mutating func object(depth: Int) throws(JSONParser.Failure) -> JSONValue {
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        try skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            try skipWhitespace()
            let key = try memberName()
            try skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            members.append((key, try value(depth: depth + 1)))
            try skipWhitespace()
            guard index < bytes.count else { throw failure("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw failure("expected ',' or '}'")
        }
    }

    mutating func array(depth: Int) throws(JSONParser.Failure) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        try skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            items.append(try value(depth: depth + 1))
            try skipWhitespace()
            guard index < bytes.count else { throw failure("unterminated array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw failure("expected ',' or ']'")
        }
    }

    mutating func memberName() throws(JSONParser.Failure) -> String {
        guard index < bytes.count else { throw failure("expected a member name") }
        if bytes[index] == UInt8(ascii: "\"") { return try string() }
        guard relaxed else { throw failure("expected a member name") }
        if bytes[index] == UInt8(ascii: "'") { return try string(quote: UInt8(ascii: "'")) }
        let start = index
        while index < bytes.count, bytes[index] == UInt8(ascii: "_") || bytes[index] == UInt8(ascii: "$")
            || (bytes[index] >= 0x30 && bytes[index] <= 0x39) || ((bytes[index] | 0x20) >= 0x61 && (bytes[index] | 0x20) <= 0x7A) {
            index += 1
        }
        guard index > start else { throw failure("expected a member name") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    mutating func number() throws(JSONParser.Failure) -> JSONNumber {
        let start = index
        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid value") }
        if bytes[index] == 0x30 {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("digit expected after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("digit expected in exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let number = JSONNumber(text: text) else { throw failure("invalid number '\(text)'") }
        return number
    }

    mutating func string(quote: UInt8 = UInt8(ascii: "\"")) throws(JSONParser.Failure) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        func flush() {
            if !raw.isEmpty {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw.removeAll(keepingCapacity: true)
            }
        }
        while true {
            guard index < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case quote:
                flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush()
                guard index < bytes.count else { throw failure("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "'"): scalars.append("'")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var unit = try hex4()
                    if (0xD800...0xDBFF).contains(unit), index + 1 < bytes.count,
                       bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                        index += 2
                        let low = try hex4()
                        if (0xDC00...0xDFFF).contains(low) {
                            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            scalars.append("\u{FFFD}")
                            unit = low
                        }
                    }
                    scalars.append(Unicode.Scalar(unit) ?? "\u{FFFD}")
                default:
                    throw failure("invalid escape")
                }
            default:
                guard byte >= 0x20 else { throw failure("control character in string") }
                raw.append(byte)
            }
        }
    }

    mutating func hex4() throws(JSONParser.Failure) -> UInt32 {
        guard bytes.count - index >= 4 else { throw failure("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let digit: UInt32
            switch b {
            case 0x30...0x39: digit = UInt32(b - 0x30)
            case 0x41...0x46: digit = UInt32(b - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(b - 0x61 + 10)
            default: throw failure("invalid hex digit")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }
}
