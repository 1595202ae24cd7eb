import Foundation
import Testing
@testable import WOPIHost
#if canImport(FoundationXML)
import FoundationXML
import WOPIStoreSQLite
#endif

/// Reads the sample documents the host ships (its resource files) with an independent ZIP reader
/// (central directory first, as Office does) and checks each package part by part, then imports
/// them as a new host does.
@Suite("Sample documents")
struct SampleDocumentsTests {
    /// The demo set's packages, by file name.
    private static func packages() throws -> [String: OfficePackage] {
        var packages: [String: OfficePackage] = [:]
        for (fileName, url) in try SampleDocuments.demoSet { packages[fileName] = try OfficePackage(Data(contentsOf: url)) }
        return packages
    }

    @Test("The demo set is one workbook, document and presentation with safe names, found in the resource bundle")
    func demoSetNames() throws {
        let set = try SampleDocuments.demoSet
        #expect(set.map(\.fileName) == ["Q4 budget.xlsx", "Welcome.docx", "Pitch.pptx"])
        let forbidden = Set(#"\/:*?"<>|#{}^[]`%"#)
        for document in set {
            #expect(document.fileName.allSatisfy { !forbidden.contains($0) }, "\(document.fileName)")
            #expect(document.url.lastPathComponent == document.fileName)
            let package = try OfficePackage(Data(contentsOf: document.url))
            let main = try package.mainPart()
            switch document.fileName.split(separator: ".").last {
            case "xlsx": #expect(main == "xl/workbook.xml")
            case "docx": #expect(main == "word/document.xml")
            case "pptx": #expect(main == "ppt/presentation.xml")
            default: Issue.record("unexpected extension in \(document.fileName)")
            }
        }
    }

    @Test("Every package is complete: parts typed, XML well formed, relationships resolve")
    func packagesAreComplete() throws {
        let packages = try Self.packages()
        #expect(packages.count == 3)
        for (name, package) in packages {
            #expect(package.archive.entries.first?.name == "[Content_Types].xml", "\(name)")
            for required in ["[Content_Types].xml", "_rels/.rels", "docProps/core.xml", "docProps/app.xml"] {
                #expect(package.parts[required] != nil, "\(name): missing \(required)")
            }
            for (part, bytes) in package.parts where part.hasSuffix(".xml") || part.hasSuffix(".rels") {
                #expect(ParsedXML(bytes) != nil, "\(name): \(part) is not well-formed XML")
            }
            try package.checkContentTypesAndRelationships()
        }
    }

    @Test("The Word document holds the title in the Title style and each paragraph")
    func wordDocumentContent() throws {
        let package = try #require(try Self.packages()["Welcome.docx"])
        for part in ["word/document.xml", "word/styles.xml", "word/settings.xml", "word/_rels/document.xml.rels"] {
            #expect(package.parts[part] != nil, "missing \(part)")
        }
        let document = try package.xml("word/document.xml")
        let paragraphs = document.indices(named: "w:p")
        #expect(paragraphs.count == 4)
        let texts = paragraphs.map { paragraph in
            document.descendants(of: paragraph, named: "w:t").map { document.elements[$0].text }.joined()
        }
        #expect(texts.first == "Welcome to WOPIKit")
        #expect(texts.dropFirst().allSatisfy { $0.count > 40 }, "\(texts)")
        let titleStyle = document.descendants(of: paragraphs[0], named: "w:pStyle").first.map { document.elements[$0].attributes["w:val"] }
        #expect(titleStyle == "Title")
        let styles = try package.xml("word/styles.xml")
        #expect(styles.elements(named: "w:style").contains { $0.attributes["w:styleId"] == "Title" })

        let core = try package.xml("docProps/core.xml")
        #expect(core.elements(named: "dc:title").first?.text == "Welcome to WOPIKit")
        #expect(core.elements(named: "dc:creator").first?.text == "WOPIKit")
    }

    @Test("The budget workbook has numbers, shared strings and SUM formulas with correct cached totals")
    func workbookContent() throws {
        let package = try #require(try Self.packages()["Q4 budget.xlsx"])
        for part in ["xl/workbook.xml", "xl/styles.xml", "xl/worksheets/sheet1.xml", "xl/sharedStrings.xml", "xl/_rels/workbook.xml.rels"] {
            #expect(package.parts[part] != nil, "missing \(part)")
        }
        let strings = try package.xml("xl/sharedStrings.xml")
            .elements(named: "t").map(\.text)
        let sheet = try package.xml("xl/worksheets/sheet1.xml")
        var cells: [String: (formula: String?, value: String, type: String?)] = [:]
        for index in sheet.indices(named: "c") {
            let cell = sheet.elements[index]
            let formula = sheet.descendants(of: index, named: "f").first.map { sheet.elements[$0].text }
            let value = sheet.descendants(of: index, named: "v").first.map { sheet.elements[$0].text } ?? ""
            cells[cell.attributes["r"] ?? "?"] = (formula, value, cell.attributes["t"])
        }
        func text(_ reference: String) -> String? {
            guard let cell = cells[reference], cell.type == "s", let index = Int(cell.value), strings.indices.contains(index) else { return nil }
            return strings[index]
        }
        #expect(text("A1") == "Category")
        #expect(text("A6") == "Total")
        #expect(sheet.elements(named: "dimension").first?.attributes["ref"] == "A1:C6")

        let formulas = cells.filter { $0.value.formula != nil }
        #expect(formulas.count == 2, "the workbook has \(formulas.count) formulas")
        for (reference, cell) in formulas {
            let formula = try #require(cell.formula)
            // Recompute the SUM over the column the formula names and compare with the cached value.
            let column = String(reference.prefix { $0.isLetter })
            #expect(formula == "SUM(\(column)2:\(column)5)")
            let total = (2...5).compactMap { cells["\(column)\($0)"].flatMap { Double($0.value) } }.reduce(0, +)
            let cached = try #require(Double(cell.value))
            #expect(abs(cached - total) < 0.001, "\(reference) caches \(cached), column sums to \(total)")
        }
        let workbook = try package.xml("xl/workbook.xml")
        #expect(workbook.elements(named: "sheet").first?.attributes["name"] == "Budget")
    }

    @Test("The presentation has master, layout, theme and a title slide")
    func presentationContent() throws {
        let package = try #require(try Self.packages()["Pitch.pptx"])
        for part in [
            "ppt/presentation.xml", "ppt/slides/slide1.xml", "ppt/slideLayouts/slideLayout1.xml",
            "ppt/slideMasters/slideMaster1.xml", "ppt/theme/theme1.xml", "ppt/_rels/presentation.xml.rels",
        ] {
            #expect(package.parts[part] != nil, "missing \(part)")
        }
        let slide = try package.xml("ppt/slides/slide1.xml")
        let shapes = slide.indices(named: "p:sp")
        #expect(shapes.count == 2)
        func paragraphs(_ shape: Int) -> [String] {
            slide.descendants(of: shape, named: "a:p").map { paragraph in
                slide.descendants(of: paragraph, named: "a:t").map { slide.elements[$0].text }.joined()
            }
        }
        let placeholderTypes = shapes.map { slide.descendants(of: $0, named: "p:ph").first.flatMap { slide.elements[$0].attributes["type"] } }
        #expect(placeholderTypes == ["ctrTitle", "subTitle"])
        #expect(paragraphs(shapes[0]) == ["WOPIKit"])
        #expect(paragraphs(shapes[1]) == ["Office documents, served from your own host"])

        let presentation = try package.xml("ppt/presentation.xml")
        #expect(presentation.elements(named: "p:sldId").count == 1)
        #expect(presentation.elements(named: "p:sldMasterId").count == 1)
        #expect(presentation.elements(named: "p:notesSz").count == 1)
        let theme = try package.xml("ppt/theme/theme1.xml")
        for list in ["a:fillStyleLst", "a:lnStyleLst", "a:effectStyleLst", "a:bgFillStyleLst"] {
            let index = try #require(theme.indices(named: list).first)
            #expect(theme.children(of: index).count >= 3, "\(list) needs three styles")
        }
    }

    @Test("A new host's demo user gets the three documents, byte for byte")
    func provisioning() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-samples-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let storage = try HostStorage.embedded(data: folder)
        let account = try #require(try await DemoProvisioning.provisionIfEmpty(storage))
        #expect(account.files.map(\.name) == SampleDocuments.fileNames)
        for (file, sample) in zip(account.files, try SampleDocuments.demoSet) {
            let stored = try await storage.store.file(id: file.id)
            #expect(stored?.size == Int64(try Data(contentsOf: sample.url).count))
        }
        #expect(try await DemoProvisioning.provisionIfEmpty(storage) == nil)
    }
}

// MARK: - Independent ZIP reader

/// Bitwise CRC-32 (APPNOTE 4.4.7), to check every entry.
private func bitwiseCRC32(_ data: Data) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in data {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
    }
    return ~crc
}

private struct ZipFormatError: Error, CustomStringConvertible {
    var description: String
}

/// Reads stored entries by the central directory, cross-checking each local header and CRC.
private struct ZipReader {
    struct Entry {
        var name: String
        var flags: UInt16
        var method: UInt16
        var dosTime: UInt16
        var dosDate: UInt16
        var data: Data
    }

    let entries: [Entry]

    init(_ archive: Data) throws {
        let bytes = [UInt8](archive)
        func u16(_ offset: Int) throws -> UInt16 {
            guard offset >= 0, offset + 2 <= bytes.count else { throw ZipFormatError(description: "read past end at \(offset)") }
            return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
        }
        func u32(_ offset: Int) throws -> UInt32 {
            UInt32(try u16(offset)) | UInt32(try u16(offset + 2)) << 16
        }
        guard bytes.count >= 22 else { throw ZipFormatError(description: "too short") }
        // The end record has no comment here, so it is the last 22 bytes (APPNOTE 4.3.16).
        let end = bytes.count - 22
        guard try u32(end) == 0x0605_4B50 else { throw ZipFormatError(description: "no end of central directory record") }
        let count = Int(try u16(end + 10))
        guard try u16(end + 8) == count else { throw ZipFormatError(description: "entry counts disagree") }
        let directorySize = Int(try u32(end + 12))
        var offset = Int(try u32(end + 16))
        guard offset + directorySize == end else { throw ZipFormatError(description: "central directory does not end at the end record") }

        var entries: [Entry] = []
        for _ in 0..<count {
            guard try u32(offset) == 0x0201_4B50 else { throw ZipFormatError(description: "bad central header at \(offset)") }
            let flags = try u16(offset + 8)
            let method = try u16(offset + 10)
            let time = try u16(offset + 12)
            let date = try u16(offset + 14)
            let crc = try u32(offset + 16)
            let compressed = Int(try u32(offset + 20))
            let uncompressed = Int(try u32(offset + 24))
            let nameLength = Int(try u16(offset + 28))
            let extraLength = Int(try u16(offset + 30))
            let commentLength = Int(try u16(offset + 32))
            let local = Int(try u32(offset + 42))
            guard offset + 46 + nameLength <= bytes.count,
                  let name = String(bytes: bytes[(offset + 46)..<(offset + 46 + nameLength)], encoding: .utf8)
            else { throw ZipFormatError(description: "bad name at \(offset)") }
            guard method == 0, compressed == uncompressed else { throw ZipFormatError(description: "\(name) is not stored") }

            // The local header must repeat what the central directory says (APPNOTE 4.3.7).
            guard try u32(local) == 0x0403_4B50,
                  try u16(local + 6) == flags, try u16(local + 8) == method,
                  try u32(local + 14) == crc, Int(try u32(local + 18)) == compressed,
                  Int(try u16(local + 26)) == nameLength,
                  Array(bytes[(local + 30)..<(local + 30 + nameLength)]) == Array(name.utf8)
            else { throw ZipFormatError(description: "local header of \(name) disagrees with the central directory") }
            let start = local + 30 + nameLength + Int(try u16(local + 28))
            guard start + compressed <= bytes.count else { throw ZipFormatError(description: "\(name) runs past the end") }
            let data = Data(bytes[start..<(start + compressed)])
            guard bitwiseCRC32(data) == crc else { throw ZipFormatError(description: "CRC mismatch in \(name)") }

            entries.append(Entry(name: name, flags: flags, method: method, dosTime: time, dosDate: date, data: data))
            offset += 46 + nameLength + extraLength + commentLength
        }
        self.entries = entries
    }
}

// MARK: - OPC checks

/// A ZIP read as an Open Packaging Conventions package.
private struct OfficePackage {
    let archive: ZipReader
    let parts: [String: Data]

    init(_ data: Data) throws {
        archive = try ZipReader(data)
        parts = Dictionary(archive.entries.map { ($0.name, $0.data) }, uniquingKeysWith: { first, _ in first })
        guard parts.count == archive.entries.count else { throw ZipFormatError(description: "duplicate entry names") }
    }

    func xml(_ name: String) throws -> ParsedXML {
        guard let data = parts[name] else { throw ZipFormatError(description: "missing part \(name)") }
        guard let document = ParsedXML(data) else { throw ZipFormatError(description: "\(name) is not well-formed") }
        return document
    }

    /// The target of the package's officeDocument relationship.
    func mainPart() throws -> String {
        let relationships = try xml("_rels/.rels").elements(named: "Relationship")
        guard let main = relationships.first(where: { $0.attributes["Type"]?.hasSuffix("/officeDocument") == true }),
              let target = main.attributes["Target"]
        else { throw ZipFormatError(description: "no officeDocument relationship") }
        return target
    }

    /// Every part has a content type, every override names a part, every relationship resolves.
    func checkContentTypesAndRelationships() throws {
        let types = try xml("[Content_Types].xml")
        let defaults = Set(types.elements(named: "Default").compactMap { $0.attributes["Extension"]?.lowercased() })
        let overrides = types.elements(named: "Override").compactMap { $0.attributes["PartName"] }
        for override in overrides {
            #expect(override.hasPrefix("/") && parts[String(override.dropFirst())] != nil, "override for missing part \(override)")
        }
        let overridden = Set(overrides.map { String($0.dropFirst()).lowercased() })
        for name in parts.keys where name != "[Content_Types].xml" {
            let ext = String(name.split(separator: ".").last ?? "").lowercased()
            #expect(overridden.contains(name.lowercased()) || defaults.contains(ext), "\(name) has no content type")
        }
        for name in parts.keys where name.hasSuffix(".rels") {
            // "word/_rels/document.xml.rels" describes "word/document.xml"; targets are relative to "word/".
            let folder = name.components(separatedBy: "_rels/").first ?? ""
            let ids = try xml(name).elements(named: "Relationship").map { relationship in
                let target = relationship.attributes["Target"] ?? ""
                let resolved = resolve(target, against: folder)
                #expect(parts[resolved] != nil, "\(name): target \(target) (\(resolved)) is missing")
                return relationship.attributes["Id"] ?? ""
            }
            #expect(Set(ids).count == ids.count, "\(name) repeats an Id")
        }
    }

    private func resolve(_ target: String, against folder: String) -> String {
        var segments = folder.split(separator: "/").map(String.init)
        for segment in target.split(separator: "/") {
            if segment == ".." { _ = segments.popLast() } else if segment != "." { segments.append(String(segment)) }
        }
        return segments.joined(separator: "/")
    }
}

// MARK: - XML

/// A parsed XML document as a flat list of elements with parent links.
private final class ParsedXML: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var attributes: [String: String]
        var parent: Int?
        var text = ""
    }

    private(set) var elements: [Element] = []
    private var stack: [Int] = []

    /// `nil` when the data is not well-formed XML.
    init?(_ data: Data) {
        super.init()
        let parser = XMLParser(data: data)
        parser.delegate = self
        guard parser.parse() else { return nil }
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        elements.append(Element(name: elementName, attributes: attributes, parent: stack.last))
        stack.append(elements.count - 1)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        _ = stack.popLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let current = stack.last { elements[current].text += string }
    }

    func indices(named name: String) -> [Int] {
        elements.indices.filter { elements[$0].name == name }
    }

    func elements(named name: String) -> [Element] {
        indices(named: name).map { elements[$0] }
    }

    func children(of index: Int) -> [Int] {
        elements.indices.filter { elements[$0].parent == index }
    }

    func descendants(of index: Int, named name: String) -> [Int] {
        elements.indices.filter { candidate in
            guard elements[candidate].name == name else { return false }
            var parent = elements[candidate].parent
            while let current = parent {
                if current == index { return true }
                parent = elements[current].parent
            }
            return false
        }
    }
}
