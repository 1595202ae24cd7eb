import Foundation

/// Builds a ZIP archive in memory, the container format of every Office Open XML package.
///
/// Entries are *stored* (compression method 0, PKWARE APPNOTE 6.3.10 §4.4.5), which
/// ECMA-376 Part 2 Annex C allows and every Office app reads. The writer emits, per
/// APPNOTE §4.3.6: one local file header (§4.3.7) followed by the entry's bytes for each
/// entry, then the central directory (§4.3.12) and the end of central directory record
/// (§4.3.16). It never writes data descriptors (§4.3.9), encryption or ZIP64 records, so
/// archives are limited to 65,535 entries and 4 GiB, far beyond a sample document.
///
/// ```swift
/// var zip = ZipArchiveWriter()
/// try zip.addEntry(path: "[Content_Types].xml", data: contentTypes)
/// let archive = zip.archiveData()
/// ```
public struct ZipArchiveWriter: Sendable, Hashable {
    /// Why an entry or the archive was refused.
    public enum Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// The entry name is empty; APPNOTE §4.4.17 requires a relative path.
        case emptyEntryName
        /// The entry name starts with `/`, contains `\`, a drive letter or a `.`/`..`
        /// segment (APPNOTE §4.4.17.1 forbids absolute paths and backslashes).
        case invalidEntryName(String)
        /// Another entry already has this name, compared case-insensitively as
        /// ECMA-376 Part 2 §6.3.5 requires for part names.
        case duplicateEntryName(String)
        /// The entry name is longer than the 65,535 bytes a header can record (§4.4.10).
        case entryNameTooLong(String)
        /// The entry is 4 GiB or larger, which needs ZIP64 (§4.5.3); this writer does not emit it.
        case entryTooLarge(String)
        /// The archive would exceed 65,535 entries or 4 GiB, which needs ZIP64 (§4.4.21).
        case archiveTooLarge

        /// A one-line explanation that names the offending entry.
        public var description: String {
            switch self {
            case .emptyEntryName:
                return "ZIP entry name is empty"
            case .invalidEntryName(let name):
                return "ZIP entry name '\(name)' must be a relative path with '/' separators and no '.' or '..' segments"
            case .duplicateEntryName(let name):
                return "ZIP entry '\(name)' was added twice (names are compared case-insensitively)"
            case .entryNameTooLong(let name):
                return "ZIP entry name '\(name.prefix(40))…' is longer than 65535 bytes"
            case .entryTooLarge(let name):
                return "ZIP entry '\(name)' is 4 GiB or larger; ZIP64 is not supported"
            case .archiveTooLarge:
                return "ZIP archive would exceed 65535 entries or 4 GiB; ZIP64 is not supported"
            }
        }
    }

    /// One entry already written to `body`, remembered for the central directory.
    private struct Entry: Sendable, Hashable {
        var name: [UInt8]
        var crc32: UInt32
        var size: UInt32
        var localHeaderOffset: UInt32
    }

    /// "Version needed to extract" 2.0 (APPNOTE §4.4.3.2): the baseline Office itself writes.
    private static let versionNeeded: UInt16 = 20
    /// "Version made by" (§4.4.2): MS-DOS attribute compatibility (upper byte 0), spec 2.0.
    private static let versionMadeBy: UInt16 = 20
    /// General purpose bit 11 (§4.4.4): names are UTF-8 (APPNOTE Appendix D.2).
    private static let utf8NameFlag: UInt16 = 1 << 11

    private var body = Data()
    private var entries: [Entry] = []
    private var lowercasedNames: Set<String> = []
    private let dosTime: UInt16
    private let dosDate: UInt16

    /// Creates an empty archive whose entries all carry `modificationDate`.
    ///
    /// - Parameter modificationDate: Stored as an MS-DOS date and time in UTC (APPNOTE
    ///   §4.4.6), clamped to the representable range 1980-01-01 … 2107-12-31 and rounded
    ///   down to an even second.
    public init(modificationDate: Date = Date()) {
        (dosTime, dosDate) = Self.dosDateTime(modificationDate)
    }

    /// The number of entries added so far.
    public var entryCount: Int { entries.count }

    /// Appends a stored entry.
    ///
    /// - Parameters:
    ///   - path: The entry name, a relative path using `/` (APPNOTE §4.4.17), written as UTF-8.
    ///   - data: The entry's bytes, written uncompressed.
    /// - Throws: ``Error`` when the name is empty, absolute, repeated or too long, or the
    ///   entry or archive would need ZIP64.
    public mutating func addEntry(path: String, data: Data) throws(Error) {
        let name = Array(path.utf8)
        try Self.validate(name: path, bytes: name)
        guard !lowercasedNames.contains(path.lowercased()) else { throw .duplicateEntryName(path) }
        guard data.count < Int(UInt32.max) else { throw .entryTooLarge(path) }
        guard entries.count < Int(UInt16.max) else { throw .archiveTooLarge }
        let localHeaderSize = 30 + name.count
        // The central directory adds 46 + name bytes per entry plus a 22-byte end record.
        let projected = body.count + localHeaderSize + data.count
            + entries.reduce(0) { $0 + 46 + $1.name.count } + 46 + name.count + 22
        guard projected < Int(UInt32.max) else { throw .archiveTooLarge }

        let entry = Entry(
            name: name,
            crc32: Self.crc32(of: data),
            size: UInt32(data.count),
            localHeaderOffset: UInt32(body.count)
        )
        // Local file header, APPNOTE §4.3.7.
        body.appendLittleEndian(UInt32(0x0403_4B50))
        body.appendLittleEndian(Self.versionNeeded)
        body.appendLittleEndian(Self.utf8NameFlag)
        body.appendLittleEndian(UInt16(0))  // compression method: stored (§4.4.5)
        body.appendLittleEndian(dosTime)
        body.appendLittleEndian(dosDate)
        body.appendLittleEndian(entry.crc32)
        body.appendLittleEndian(entry.size)  // compressed size
        body.appendLittleEndian(entry.size)  // uncompressed size
        body.appendLittleEndian(UInt16(name.count))
        body.appendLittleEndian(UInt16(0))  // extra field length
        body.append(contentsOf: name)
        body.append(data)

        entries.append(entry)
        lowercasedNames.insert(path.lowercased())
    }

    /// The complete archive: entries, central directory and end of central directory record.
    public func archiveData() -> Data {
        var archive = body
        let directoryOffset = UInt32(archive.count)
        for entry in entries {
            // Central directory file header, APPNOTE §4.3.12.
            archive.appendLittleEndian(UInt32(0x0201_4B50))
            archive.appendLittleEndian(Self.versionMadeBy)
            archive.appendLittleEndian(Self.versionNeeded)
            archive.appendLittleEndian(Self.utf8NameFlag)
            archive.appendLittleEndian(UInt16(0))  // stored
            archive.appendLittleEndian(dosTime)
            archive.appendLittleEndian(dosDate)
            archive.appendLittleEndian(entry.crc32)
            archive.appendLittleEndian(entry.size)
            archive.appendLittleEndian(entry.size)
            archive.appendLittleEndian(UInt16(entry.name.count))
            archive.appendLittleEndian(UInt16(0))  // extra field length
            archive.appendLittleEndian(UInt16(0))  // file comment length
            archive.appendLittleEndian(UInt16(0))  // disk number start
            archive.appendLittleEndian(UInt16(0))  // internal file attributes
            archive.appendLittleEndian(UInt32(0))  // external file attributes
            archive.appendLittleEndian(entry.localHeaderOffset)
            archive.append(contentsOf: entry.name)
        }
        let directorySize = UInt32(archive.count) - directoryOffset
        // End of central directory record, APPNOTE §4.3.16.
        archive.appendLittleEndian(UInt32(0x0605_4B50))
        archive.appendLittleEndian(UInt16(0))  // number of this disk
        archive.appendLittleEndian(UInt16(0))  // disk where the central directory starts
        archive.appendLittleEndian(UInt16(entries.count))
        archive.appendLittleEndian(UInt16(entries.count))
        archive.appendLittleEndian(directorySize)
        archive.appendLittleEndian(directoryOffset)
        archive.appendLittleEndian(UInt16(0))  // comment length
        return archive
    }

    /// The CRC-32 of `data` as APPNOTE §4.4.7 defines it: polynomial 0xEDB88320 (reflected),
    /// initial value and final XOR 0xFFFFFFFF.
    public static func crc32(of data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// One entry per byte value, so the checksum costs one lookup per byte.
    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        return value
    }

    /// Encodes a date as MS-DOS (time, date) words in UTC (APPNOTE §4.4.6).
    static func dosDateTime(_ date: Date) -> (time: UInt16, date: UInt16) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        guard let year = parts.year, let month = parts.month, let day = parts.day,
              let hour = parts.hour, let minute = parts.minute, let second = parts.second
        else { return (0, 0x21) }
        if year < 1980 { return (0, 0x21) }  // 1980-01-01 00:00:00, the earliest DOS date
        if year > 2107 { return (0xBF7D, 0xFF9F) }  // 2107-12-31 23:59:58, the latest
        let time = UInt16(hour << 11 | minute << 5 | second / 2)
        let dateWord = UInt16((year - 1980) << 9 | month << 5 | day)
        return (time, dateWord)
    }

    private static func validate(name: String, bytes: [UInt8]) throws(Error) {
        guard !bytes.isEmpty else { throw .emptyEntryName }
        guard bytes.count <= Int(UInt16.max) else { throw .entryNameTooLong(name) }
        let segments = name.split(separator: "/", omittingEmptySubsequences: false)
        let hasDriveLetter = name.count >= 2 && name.dropFirst().first == ":"
        guard !name.hasPrefix("/"), !name.contains("\\"), !hasDriveLetter,
              !segments.contains(where: { $0 == "." || $0 == ".." })
        else { throw .invalidEntryName(name) }
    }
}

extension Data {
    /// Appends `value` in little-endian byte order, the order of every ZIP header field (APPNOTE §4.4.1.1).
    fileprivate mutating func appendLittleEndian<Value: FixedWidthInteger>(_ value: Value) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
