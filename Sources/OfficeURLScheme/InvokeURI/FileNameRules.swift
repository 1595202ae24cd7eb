/// The characters Office and WOPI hosts refuse in file names: `\/:*?"<>|#{}^[]%` and the backtick
/// (Office URI Schemes §1.7 and the WOPI docs' issues/invalidcharacters.rst).
public enum FileNameRules {
    /// Every character a file name must not contain.
    public static let forbiddenCharacters: Set<Character> = [
        "\\", "/", ":", "*", "?", "\"", "<", ">", "|", "#", "{", "}", "^", "[", "]", "`", "%",
    ]

    /// Checks a file name.
    ///
    /// - Throws: ``OfficeURLError/emptyFileName`` or ``OfficeURLError/invalidFileName(_:character:)``
    ///   naming the first forbidden character.
    public static func validate(_ fileName: String) throws(OfficeURLError) {
        guard !fileName.isEmpty else { throw .emptyFileName }
        if let bad = fileName.first(where: { forbiddenCharacters.contains($0) }) {
            throw .invalidFileName(fileName, character: bad)
        }
    }
}
