/// What swift-corelibs-foundation's `XMLParser` must never be given. On Linux it traps on an element or attribute
/// name that is not UTF-8, and reads through a null pointer for a processing instruction without data (`<?x?>`).
/// The documents WOPIKit reads (WOPI discovery, the validator's definitions, S3 answers) are UTF-8 and have no
/// processing instructions, so a document with either is refused before it reaches the parser.
public enum XMLInputCheck {
    /// Why `bytes` must not be given to `XMLParser`, or `nil` when they may.
    public static func problem(in bytes: some Collection<UInt8>) -> String? {
        if transcode(bytes.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: true, into: { _ in }) {
            return "the document is not UTF-8"
        }
        let array = Array(bytes)
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        // The XML declaration (XML 1.0 §2.8) may open the document, after a byte order mark.
        var start = array.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < array.count, whitespace.contains(array[start]) { start += 1 }
        var index = 0
        while index + 1 < array.count {
            if array[index] == UInt8(ascii: "<"), array[index + 1] == UInt8(ascii: "?") {
                let isDeclaration = index == start && index + 5 < array.count
                    && array[(index + 2)..<(index + 5)].elementsEqual("xml".utf8) && whitespace.contains(array[index + 5])
                guard isDeclaration else { return "the document has a processing instruction" }
            }
            index += 1
        }
        return nil
    }
}
