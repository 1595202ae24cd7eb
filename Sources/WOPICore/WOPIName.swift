/// A name that Office for iOS accepts: a file's `BaseFileName`, a `UserId`, an `OwnerId` or a
/// container's `Name`.
///
/// Office for iOS fails to load a file when one of these properties contains any of
/// ``refusedCharacters`` (WOPI native docs, issues/invalidcharacters.rst). On top of that list a
/// `WOPIName` also refuses what no host should store as a name: the empty or blank name, control
/// characters and line separators, the bidirectional controls (``bidirectionalControls``, which
/// can make `invoice\u{202E}xcod.exe` show as `invoiceexe.docx`), the path components `.` and `..`,
/// and names longer than ``maximumUTF8Length`` bytes. A file name must also have something before
/// its extension (``init(fileName:)``): `.docx` is refused.
///
/// Validate untrusted names with ``init(_:)`` or ``init(fileName:)``; turn an arbitrary imported
/// name into a usable one with ``sanitized(_:)`` or ``sanitized(fileName:)``.
public struct WOPIName: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Why a string is not a valid ``WOPIName``.
    public enum ValidationError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The name is empty or only whitespace.
        case empty
        /// The name contains a character Office for iOS refuses (issues/invalidcharacters.rst).
        /// The offset counts `Character`s from the start.
        case refusedCharacter(Character, offset: Int)
        /// The name contains a control character or a line/paragraph separator.
        /// The offset counts Unicode scalars from the start.
        case controlCharacter(Unicode.Scalar, offset: Int)
        /// The name contains a bidirectional control (``WOPIName/bidirectionalControls``), which
        /// reorders how the rest of the name is shown. The offset counts Unicode scalars from the start.
        case bidirectionalControl(Unicode.Scalar, offset: Int)
        /// A file name that is only an extension, such as `.docx`: nothing but whitespace before its last dot.
        case onlyExtension(String)
        /// The name is `.` or `..`, which mean "this folder" and "the parent folder" everywhere.
        case reservedName(String)
        /// The name is longer than ``WOPIName/maximumUTF8Length`` bytes of UTF-8.
        case tooLong(utf8Length: Int)

        /// A one-line explanation that names the problem.
        public var description: String {
            switch self {
            case .empty:
                return "invalid name: it is empty"
            case let .refusedCharacter(character, offset):
                return "invalid name: character '\(character)' at offset \(offset) is refused by Office for iOS"
            case let .controlCharacter(scalar, offset):
                return "invalid name: control character \(WOPIName.code(scalar)) at offset \(offset)"
            case let .bidirectionalControl(scalar, offset):
                return "invalid name: bidirectional control \(WOPIName.code(scalar)) at offset \(offset)"
            case let .onlyExtension(name):
                return "invalid name: '\(name)' is only an extension; a name is needed before it"
            case let .reservedName(name):
                return "invalid name: '\(name)' is reserved"
            case let .tooLong(length):
                return "invalid name: \(length) bytes of UTF-8, at most \(WOPIName.maximumUTF8Length) allowed"
            }
        }
    }

    /// The characters Office for iOS refuses in `BaseFileName`, `UserId`, `OwnerId` and container
    /// names: `\ / : * ? " < > | # { } ^ [ ] %` and the backtick (issues/invalidcharacters.rst).
    public static let refusedCharacters: Set<Character> = [
        "\\", "/", ":", "*", "?", "\"", "<", ">", "|", "#", "{", "}", "^", "[", "]", "`", "%",
    ]

    /// The bidirectional controls refused in names: the embeddings and overrides U+202A–U+202E
    /// and the isolates U+2066–U+2069 (Unicode Standard Annex #9 §2). Shown nowhere themselves,
    /// they reverse or reorder the text around them, so a name could pass for another.
    public static let bidirectionalControls: Set<Unicode.Scalar> = Set((0x202A...0x202E).compactMap(Unicode.Scalar.init)
        + (0x2066...0x2069).compactMap(Unicode.Scalar.init))

    /// The longest name accepted, in bytes of UTF-8.
    ///
    /// 255 bytes is the limit of one path component on the common file systems (ext4, XFS, APFS,
    /// NTFS counts 255 UTF-16 units, which 255 UTF-8 bytes never exceed), so a valid name can
    /// always be stored, exported or downloaded as a file under its own name.
    public static let maximumUTF8Length = 255

    /// The character ``sanitized(_:)`` puts in place of a refused one, as issues/invalidcharacters.rst advises.
    public static let replacementCharacter: Character = "-"

    /// The name used by ``sanitized(_:)`` when nothing usable is left of the input.
    public static let fallbackName = "Untitled"

    /// The validated name.
    public let rawValue: String

    /// Validates a name.
    ///
    /// - Throws: ``ValidationError`` naming the first problem: emptiness, a refused or control
    ///   character (with its offset), a reserved name, or the length.
    public init(_ name: String) throws(ValidationError) {
        if let error = Self.firstProblem(in: name) { throw error }
        rawValue = name
    }

    /// Validates a file name: a valid name (``init(_:)``) with something besides whitespace before
    /// its extension, so `.docx` and ` .docx` are refused.
    ///
    /// - Throws: ``ValidationError``, as ``init(_:)`` does, or ``ValidationError/onlyExtension(_:)``.
    public init(fileName name: String) throws(ValidationError) {
        if let error = Self.firstProblem(in: name) ?? Self.extensionOnlyProblem(in: name) { throw error }
        rawValue = name
    }

    /// Why `name` cannot be a file name, or `nil` when it can: the rule of ``init(fileName:)`` as a value.
    public static func problem(withFileName name: String) -> ValidationError? {
        firstProblem(in: name) ?? extensionOnlyProblem(in: name)
    }

    /// Why `name` cannot be a name (of a folder, user or file), or `nil` when it can: the rule of ``init(_:)`` as a value.
    public static func problem(withName name: String) -> ValidationError? {
        firstProblem(in: name)
    }

    /// Validates a name, returning `nil` when it is not valid (see ``init(_:)`` for the reason).
    public init?(rawValue: String) {
        guard Self.firstProblem(in: rawValue) == nil else { return nil }
        self.rawValue = rawValue
    }

    /// Turns any string into a valid name, for importing files whose names came from elsewhere.
    ///
    /// Refused characters, control characters and bidirectional controls become ``replacementCharacter``; surrounding
    /// whitespace is trimmed; `.` and `..` become dashes; a blank result becomes ``fallbackName``;
    /// an over-long name is shortened at a character boundary, keeping its extension when the
    /// extension is short enough to keep.
    public static func sanitized(_ name: String) -> WOPIName {
        var cleaned = ""
        for character in name {
            if refusedCharacters.contains(character)
                || character.unicodeScalars.contains(where: { isControl($0) || bidirectionalControls.contains($0) }) {
                cleaned.append(replacementCharacter)
            } else {
                cleaned.append(character)
            }
        }
        cleaned = cleaned.trimmingWhitespace()
        if cleaned.isEmpty {
            cleaned = fallbackName
        } else if cleaned == "." || cleaned == ".." {
            cleaned = String(repeating: replacementCharacter, count: cleaned.count)
        }
        if cleaned.utf8.count > maximumUTF8Length {
            cleaned = truncated(cleaned)
        }
        // The steps above remove every problem `firstProblem` looks for; fall back defensively anyway.
        return WOPIName(rawValue: cleaned) ?? WOPIName(unchecked: fallbackName)
    }

    /// The `counter`th variant of `name`, for when `name` is taken: `Budget (2).xlsx`, `Projects (2)`.
    ///
    /// The variant stays within ``maximumUTF8Length`` bytes: the stem is shortened at a character boundary to
    /// make room for the counter; an extension of up to 16 bytes is kept whole, a longer one counts as stem.
    /// With `keepingExtension` false (folders) the whole name is the stem.
    public static func numbered(_ name: String, _ counter: Int, keepingExtension: Bool = true) -> String {
        var stem = Substring(name)
        var suffix = ""
        if keepingExtension, let dot = name.lastIndex(of: "."), dot != name.startIndex, name[dot...].utf8.count <= 17 {
            stem = name[..<dot]
            suffix = String(name[dot...])
        }
        let mark = " (\(counter))"
        let budget = maximumUTF8Length - mark.utf8.count - suffix.utf8.count
        var used = 0
        var kept = stem.prefix { character in
            used += character.utf8.count
            return used <= budget
        }
        // A stem cut short must not end in the space before the counter.
        if kept.endIndex != stem.endIndex { while kept.last?.isWhitespace == true { kept.removeLast() } }
        return kept + mark + suffix
    }

    /// Turns any string into a valid file name (``init(fileName:)``): ``sanitized(_:)``, and a name
    /// that is only an extension gets ``fallbackName`` before it (`.docx` becomes `Untitled.docx`).
    public static func sanitized(fileName name: String) -> WOPIName {
        let cleaned = sanitized(name)
        guard extensionOnlyProblem(in: cleaned.rawValue) != nil else { return cleaned }
        return sanitized(fallbackName + cleaned.rawValue.trimmingWhitespace())
    }

    /// The extension after the last dot, lowercased and without the dot (`"docx"` for
    /// `"Report.DOCX"`); `nil` when the name has no dot, ends with one, or only starts with one
    /// (`".profile"`). WOPI's `FileExtension` property is this value with a leading dot.
    public var fileExtension: String? {
        guard let dot = rawValue.lastIndex(of: "."), dot != rawValue.startIndex else { return nil }
        let suffix = rawValue[rawValue.index(after: dot)...]
        return suffix.isEmpty ? nil : suffix.lowercased()
    }

    /// The name without its extension and dot (`"Report"` for `"Report.docx"`).
    public var baseName: String {
        guard fileExtension != nil, let dot = rawValue.lastIndex(of: ".") else { return rawValue }
        return String(rawValue[..<dot])
    }

    /// The name itself.
    public var description: String { rawValue }

    /// Orders names by their text, so listings sort predictably.
    public static func < (lhs: WOPIName, rhs: WOPIName) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    // MARK: - Private

    private init(unchecked name: String) {
        rawValue = name
    }

    private static func firstProblem(in name: String) -> ValidationError? {
        if name.trimmingWhitespace().isEmpty { return .empty }
        if name == "." || name == ".." { return .reservedName(name) }
        for (offset, scalar) in name.unicodeScalars.enumerated() {
            if isControl(scalar) { return .controlCharacter(scalar, offset: offset) }
            if bidirectionalControls.contains(scalar) { return .bidirectionalControl(scalar, offset: offset) }
        }
        for (offset, character) in name.enumerated() where refusedCharacters.contains(character) {
            return .refusedCharacter(character, offset: offset)
        }
        let length = name.utf8.count
        if length > maximumUTF8Length { return .tooLong(utf8Length: length) }
        return nil
    }

    /// `.onlyExtension` when nothing but whitespace stands before the last dot of `name`, trimmed.
    private static func extensionOnlyProblem(in name: String) -> ValidationError? {
        let trimmed = name.trimmingWhitespace()
        guard let dot = trimmed.lastIndex(of: "."), trimmed[..<dot].allSatisfy(\.isWhitespace) else { return nil }
        return .onlyExtension(trimmed)
    }

    /// `U+202E`: a scalar's code point as the Unicode Standard writes it.
    static func code(_ scalar: Unicode.Scalar) -> String {
        "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
    }

    /// Control characters (general category Cc) and the line and paragraph separators, none of
    /// which can be shown or typed as part of a name.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    /// Shortens a name to ``maximumUTF8Length`` bytes, keeping an extension of up to 16 bytes.
    private static func truncated(_ name: String) -> String {
        var stemSource = Substring(name)
        var suffix = ""
        if let dot = name.lastIndex(of: "."), dot != name.startIndex, name[dot...].utf8.count <= 17 {
            stemSource = name[..<dot]
            suffix = String(name[dot...])
        }
        let budget = maximumUTF8Length - suffix.utf8.count
        var stem = ""
        var used = 0
        for character in stemSource {
            let size = character.utf8.count
            if used + size > budget { break }
            stem.append(character)
            used += size
        }
        stem = stem.trimmingWhitespace()
        return (stem.isEmpty ? fallbackName : stem) + suffix
    }
}

extension WOPIName: Codable {
    /// Decodes a name from a single string, validating it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        do {
            try self.init(string)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Encodes the name as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }

    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
