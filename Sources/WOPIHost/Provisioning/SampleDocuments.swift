import Foundation

/// Small but complete Office Open XML documents, so a fresh host has real files to open.
///
/// Each function returns the bytes of an OPC package (ECMA-376 Part 2) holding every part
/// the matching Office app needs to open the file without offering to repair it:
/// `[Content_Types].xml` (Part 2 §10.1), the package relationships `_rels/.rels` (Part 2 §9.3),
/// the core and extended properties (Part 2 §11, Part 1 §22.2) and the format's own parts
/// (Part 1 §11 WordprocessingML, §12 SpreadsheetML, §13 PresentationML). The ZIP container
/// is written by ``ZipArchiveWriter``.
///
/// ```swift
/// for (fileName, data) in try SampleDocuments.demoSet {
///     try data.write(to: folder.appendingPathComponent(fileName))
/// }
/// ```
public enum SampleDocuments {
    /// One worksheet cell for ``workbook(title:sheetName:rows:boldFirstRow:author:created:)``.
    public enum Cell: Sendable, Hashable {
        /// No cell is written.
        case empty
        /// A string, stored in the shared string table (ECMA-376 Part 1 §18.4).
        case text(String)
        /// A finite number (ECMA-376 Part 1 §18.3.1.4, `c` without `t`).
        case number(Double)
        /// A formula in A1 notation such as `SUM(B2:B4)`; a leading `=` is dropped, as the file
        /// format stores formulas without it (Part 1 §18.3.1.40). `cachedValue` is the result
        /// shown by readers that do not recalculate; without it Excel recalculates on load.
        case formula(String, cachedValue: Double? = nil)
    }

    /// Input that cannot be written into a valid document.
    public enum InputError: Error, Sendable, Hashable, CustomStringConvertible {
        /// `field` holds a character XML 1.0 cannot represent (§2.2 `Char`), such as U+0000.
        case invalidXMLCharacter(field: String, scalar: UInt32)
        /// The sheet name breaks an Excel rule (Part 1 §18.2.19): `reason` says which.
        case invalidSheetName(String, reason: String)
        /// The number in `cell` is NaN or infinite, which a worksheet cannot hold.
        case nonFiniteNumber(cell: String)
        /// The formula in `cell` is empty.
        case emptyFormula(cell: String)
        /// The text in `cell` is longer than Excel's 32,767-character cell limit.
        case cellTextTooLong(cell: String)
        /// More rows or columns than a worksheet has (1,048,576 × 16,384).
        case sheetTooLarge(rows: Int, columns: Int)

        /// A one-line explanation that names the offending field or cell.
        public var description: String {
            switch self {
            case .invalidXMLCharacter(let field, let scalar):
                return "\(field) contains U+\(String(scalar, radix: 16, uppercase: true)), which XML cannot represent"
            case .invalidSheetName(let name, let reason):
                return "sheet name '\(name)' is invalid: \(reason)"
            case .nonFiniteNumber(let cell):
                return "cell \(cell) holds a number that is NaN or infinite"
            case .emptyFormula(let cell):
                return "cell \(cell) has an empty formula"
            case .cellTextTooLong(let cell):
                return "cell \(cell) has more than 32767 characters of text"
            case .sheetTooLarge(let rows, let columns):
                return "a worksheet holds at most 1048576 rows and 16384 columns, got \(rows) rows and \(columns) columns"
            }
        }
    }

    // MARK: - Demo set

    /// The documents a host puts in an empty data folder: a workbook, a document and a presentation.
    ///
    /// File names avoid every character WOPI hosts and Office reject in names
    /// (`\ / : * ? " < > | # { } ^ [ ] ` %`). Generated on each access, stamped with the current date.
    public static var demoSet: [(fileName: String, data: Data)] {
        get throws {
            let now = Date()
            return [
                ("Q4 budget.xlsx", try demoBudget(created: now)),
                ("Welcome.docx", try wordDocument(
                    title: "Welcome to WOPIKit",
                    paragraphs: [
                        "This document lives on your own WOPI host. Open it in Word, type a few words and save: the change goes straight back to the host.",
                        "While you edit, the host holds a WOPI lock so nobody else overwrites your work. Close the document and the lock is released.",
                        "Try the other samples too: a budget workbook with a formula and a short presentation.",
                    ],
                    created: now
                )),
                ("Pitch.pptx", try presentation(
                    title: "WOPIKit",
                    subtitle: "Office documents, served from your own host",
                    created: now
                )),
            ]
        }
    }

    /// A budget table whose totals row is a `SUM` formula, with cached results computed here.
    private static func demoBudget(created: Date) throws -> Data {
        let lines: [(String, budget: Double, actual: Double)] = [
            ("Salaries", 42_000, 41_250.50),
            ("Cloud hosting", 3_800, 4_125.75),
            ("Marketing", 6_500, 5_980),
            ("Travel", 2_200, 1_875.20),
        ]
        let lastRow = lines.count + 1
        var rows: [[Cell]] = [[.text("Category"), .text("Budget"), .text("Actual")]]
        rows += lines.map { [.text($0.0), .number($0.budget), .number($0.actual)] }
        rows.append([
            .text("Total"),
            .formula("SUM(B2:B\(lastRow))", cachedValue: lines.reduce(0) { $0 + $1.budget }),
            .formula("SUM(C2:C\(lastRow))", cachedValue: lines.reduce(0) { $0 + $1.actual }),
        ])
        return try workbook(title: "Q4 budget", sheetName: "Budget", rows: rows, created: created)
    }

    // MARK: - WordprocessingML

    /// A Word document (`.docx`): a paragraph in the built-in *Title* style, then one *Normal*
    /// paragraph per element of `paragraphs`.
    ///
    /// Parts: `word/document.xml` (ECMA-376 Part 1 §17.2), `word/styles.xml` (§17.7),
    /// `word/settings.xml` (§17.15, so Word 2013+ does not open it in compatibility mode) and
    /// `word/theme/theme1.xml` (§20.1.6). A `\n` in a paragraph becomes a line break
    /// (`w:br`, §17.3.3.1) and a tab a `w:tab` (§17.3.3.32).
    ///
    /// - Throws: ``InputError/invalidXMLCharacter(field:scalar:)`` for control characters.
    public static func wordDocument(
        title: String,
        paragraphs: [String],
        author: String = "WOPIKit",
        created: Date = Date()
    ) throws -> Data {
        var body = try wordParagraph(title, style: "Title", field: "title")
        for (index, paragraph) in paragraphs.enumerated() {
            body += try wordParagraph(paragraph, style: nil, field: "paragraph \(index + 1)")
        }
        let document = """
            \(xmlDeclaration)
            <w:document xmlns:w="\(Namespace.wordprocessingML)" xmlns:r="\(Namespace.officeRelationships)">
            <w:body>\(body)<w:sectPr><w:pgSz w:w="12240" w:h="15840"/>\
            <w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="720" w:footer="720" w:gutter="0"/>\
            </w:sectPr></w:body>
            </w:document>
            """
        let documentRelationships = relationships([
            (RelationshipType.styles, "styles.xml"),
            (RelationshipType.settings, "settings.xml"),
            (RelationshipType.theme, "theme/theme1.xml"),
        ])
        return try package(
            mainPart: "word/document.xml",
            mainContentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
            parts: [
                ("word/document.xml", document, nil),
                ("word/_rels/document.xml.rels", documentRelationships, nil),
                ("word/styles.xml", wordStyles, "application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"),
                ("word/settings.xml", wordSettings, "application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"),
                ("word/theme/theme1.xml", theme, ContentType.theme),
            ],
            title: title, author: author, created: created
        )
    }

    /// One `w:p`, splitting lines into `w:br` and tabs into `w:tab`.
    private static func wordParagraph(_ text: String, style: String?, field: String) throws -> String {
        let properties = style.map { #"<w:pPr><w:pStyle w:val="\#($0)"/></w:pPr>"# } ?? ""
        let lines = normalizedLines(text)
        guard lines != [""] else { return "<w:p>\(properties)</w:p>" }
        var run = ""
        for (lineIndex, line) in lines.enumerated() {
            if lineIndex > 0 { run += "<w:br/>" }
            for (segmentIndex, segment) in line.split(separator: "\t", omittingEmptySubsequences: false).enumerated() {
                if segmentIndex > 0 { run += "<w:tab/>" }
                if !segment.isEmpty {
                    run += #"<w:t xml:space="preserve">\#(try escaped(String(segment), field: field))</w:t>"#
                }
            }
        }
        return "<w:p>\(properties)<w:r>\(run)</w:r></w:p>"
    }

    private static let wordStyles = """
        \(xmlDeclaration)
        <w:styles xmlns:w="\(Namespace.wordprocessingML)">
        <w:docDefaults><w:rPrDefault><w:rPr>\
        <w:rFonts w:asciiTheme="minorHAnsi" w:eastAsiaTheme="minorHAnsi" w:hAnsiTheme="minorHAnsi" w:cstheme="minorBidi"/>\
        <w:sz w:val="22"/><w:szCs w:val="22"/><w:lang w:val="en-US" w:eastAsia="en-US" w:bidi="ar-SA"/>\
        </w:rPr></w:rPrDefault><w:pPrDefault><w:pPr><w:spacing w:after="160" w:line="259" w:lineRule="auto"/>\
        </w:pPr></w:pPrDefault></w:docDefaults>
        <w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>
        <w:style w:type="character" w:default="1" w:styleId="DefaultParagraphFont"><w:name w:val="Default Paragraph Font"/>\
        <w:uiPriority w:val="1"/><w:semiHidden/><w:unhideWhenUsed/></w:style>
        <w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/>\
        <w:next w:val="Normal"/><w:uiPriority w:val="10"/><w:qFormat/><w:pPr><w:spacing w:after="240" w:line="240" w:lineRule="auto"/>\
        <w:contextualSpacing/></w:pPr><w:rPr><w:rFonts w:asciiTheme="majorHAnsi" w:eastAsiaTheme="majorEastAsia" \
        w:hAnsiTheme="majorHAnsi" w:cstheme="majorBidi"/><w:spacing w:val="-10"/><w:kern w:val="28"/>\
        <w:sz w:val="56"/><w:szCs w:val="56"/></w:rPr></w:style>
        </w:styles>
        """

    private static let wordSettings = """
        \(xmlDeclaration)
        <w:settings xmlns:w="\(Namespace.wordprocessingML)">
        <w:defaultTabStop w:val="720"/><w:characterSpacingControl w:val="doNotCompress"/>
        <w:compat><w:compatSetting w:name="compatibilityMode" w:uri="http://schemas.microsoft.com/office/word" w:val="15"/></w:compat>
        </w:settings>
        """

    // MARK: - SpreadsheetML

    /// An Excel workbook (`.xlsx`) with one worksheet holding `rows`, row 1 first.
    ///
    /// Parts: `xl/workbook.xml` (ECMA-376 Part 1 §18.2), `xl/worksheets/sheet1.xml` (§18.3),
    /// `xl/styles.xml` (§18.8), `xl/sharedStrings.xml` (§18.4) and `xl/theme/theme1.xml`.
    /// Numbers and formula results use the `#,##0.00` format; with `boldFirstRow` row 1 is bold.
    ///
    /// - Parameters:
    ///   - title: The document title in the core properties.
    ///   - sheetName: 1 to 31 characters, none of `: \ / ? * [ ]`, not starting or ending with `'`.
    ///   - rows: Cells from column A onwards; shorter rows are fine.
    ///   - boldFirstRow: Whether row 1 is bold, as a header row.
    ///   - author: The creator in the core properties.
    ///   - created: The creation date in the core properties.
    /// - Throws: ``InputError`` naming the bad sheet name or cell.
    public static func workbook(
        title: String,
        sheetName: String,
        rows: [[Cell]],
        boldFirstRow: Bool = true,
        author: String = "WOPIKit",
        created: Date = Date()
    ) throws -> Data {
        try validate(sheetName: sheetName)
        let columnCount = rows.map(\.count).max() ?? 0
        guard rows.count <= 1_048_576, columnCount <= 16_384 else {
            throw InputError.sheetTooLarge(rows: rows.count, columns: columnCount)
        }

        var sharedStrings: [String] = []
        var sharedStringIndex: [String: Int] = [:]
        var sheetRows = ""
        var lastUsedRow = 0
        var lastUsedColumn = 0
        var needsRecalculation = false
        for (rowIndex, row) in rows.enumerated() {
            let bold = boldFirstRow && rowIndex == 0
            var cells = ""
            for (columnIndex, cell) in row.enumerated() {
                let reference = columnName(columnIndex) + String(rowIndex + 1)
                let textStyle = bold ? 1 : 0
                let numberStyle = bold ? 3 : 2
                switch cell {
                case .empty:
                    continue
                case .text(let text):
                    guard text.count <= 32_767 else { throw InputError.cellTextTooLong(cell: reference) }
                    let escapedText = try escaped(text, field: "cell \(reference)")
                    let index: Int
                    if let existing = sharedStringIndex[escapedText] {
                        index = existing
                    } else {
                        index = sharedStrings.count
                        sharedStrings.append(escapedText)
                        sharedStringIndex[escapedText] = index
                    }
                    cells += #"<c r="\#(reference)" s="\#(textStyle)" t="s"><v>\#(index)</v></c>"#
                case .number(let value):
                    guard value.isFinite else { throw InputError.nonFiniteNumber(cell: reference) }
                    cells += #"<c r="\#(reference)" s="\#(numberStyle)"><v>\#(xmlNumber(value))</v></c>"#
                case .formula(let formula, let cachedValue):
                    let expression = formula.hasPrefix("=") ? String(formula.dropFirst()) : formula
                    guard !expression.trimmingCharacters(in: .whitespaces).isEmpty else {
                        throw InputError.emptyFormula(cell: reference)
                    }
                    let escapedFormula = try escaped(expression, field: "cell \(reference)")
                    var value = ""
                    if let cachedValue {
                        guard cachedValue.isFinite else { throw InputError.nonFiniteNumber(cell: reference) }
                        value = "<v>\(xmlNumber(cachedValue))</v>"
                    } else {
                        needsRecalculation = true
                    }
                    cells += #"<c r="\#(reference)" s="\#(numberStyle)"><f>\#(escapedFormula)</f>\#(value)</c>"#
                }
                lastUsedColumn = max(lastUsedColumn, columnIndex + 1)
                lastUsedRow = rowIndex + 1
            }
            if !cells.isEmpty {
                sheetRows += #"<row r="\#(rowIndex + 1)">\#(cells)</row>"#
            }
        }

        let dimension = lastUsedRow == 0 ? "A1" : "A1:\(columnName(max(lastUsedColumn, 1) - 1))\(lastUsedRow)"
        var columns = #"<col min="1" max="1" width="24" customWidth="1"/>"#
        if columnCount > 1 {
            columns += #"<col min="2" max="\#(columnCount)" width="14" customWidth="1"/>"#
        }
        let worksheet = """
            \(xmlDeclaration)
            <worksheet xmlns="\(Namespace.spreadsheetML)" xmlns:r="\(Namespace.officeRelationships)">
            <dimension ref="\(dimension)"/>
            <sheetViews><sheetView tabSelected="1" workbookViewId="0"/></sheetViews>
            <sheetFormatPr defaultRowHeight="15"/>
            <cols>\(columns)</cols>
            <sheetData>\(sheetRows)</sheetData>
            <pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>
            </worksheet>
            """
        // fullCalcOnLoad (§18.2.2) makes Excel compute formulas that carry no cached result.
        let calculation = needsRecalculation ? #"<calcPr calcId="191029" fullCalcOnLoad="1"/>"# : #"<calcPr calcId="191029"/>"#
        let workbook = """
            \(xmlDeclaration)
            <workbook xmlns="\(Namespace.spreadsheetML)" xmlns:r="\(Namespace.officeRelationships)">
            <bookViews><workbookView xWindow="0" yWindow="0" windowWidth="16384" windowHeight="8192"/></bookViews>
            <sheets><sheet name="\(try escaped(sheetName, field: "sheet name"))" sheetId="1" r:id="rId1"/></sheets>
            \(calculation)
            </workbook>
            """
        let stringItems = sharedStrings.map { #"<si><t xml:space="preserve">\#($0)</t></si>"# }.joined()
        let stringCount = rows.joined().filter { if case .text = $0 { true } else { false } }.count
        let sharedStringsPart = """
            \(xmlDeclaration)
            <sst xmlns="\(Namespace.spreadsheetML)" count="\(stringCount)" uniqueCount="\(sharedStrings.count)">\(stringItems)</sst>
            """
        let workbookRelationships = relationships([
            (RelationshipType.worksheet, "worksheets/sheet1.xml"),
            (RelationshipType.styles, "styles.xml"),
            (RelationshipType.sharedStrings, "sharedStrings.xml"),
            (RelationshipType.theme, "theme/theme1.xml"),
        ])
        return try package(
            mainPart: "xl/workbook.xml",
            mainContentType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
            parts: [
                ("xl/workbook.xml", workbook, nil),
                ("xl/_rels/workbook.xml.rels", workbookRelationships, nil),
                ("xl/worksheets/sheet1.xml", worksheet, "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"),
                ("xl/styles.xml", spreadsheetStyles, "application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"),
                ("xl/sharedStrings.xml", sharedStringsPart, "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"),
                ("xl/theme/theme1.xml", theme, ContentType.theme),
            ],
            title: title, author: author, created: created
        )
    }

    /// Cell formats (§18.8.10): 0 plain, 1 bold, 2 `#,##0.00` (built-in format 4), 3 bold `#,##0.00`.
    private static let spreadsheetStyles = """
        \(xmlDeclaration)
        <styleSheet xmlns="\(Namespace.spreadsheetML)">
        <fonts count="2"><font><sz val="11"/><color theme="1"/><name val="Calibri"/><family val="2"/><scheme val="minor"/></font>\
        <font><b/><sz val="11"/><color theme="1"/><name val="Calibri"/><family val="2"/><scheme val="minor"/></font></fonts>
        <fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>
        <borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>
        <cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>
        <cellXfs count="4"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>\
        <xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>\
        <xf numFmtId="4" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>\
        <xf numFmtId="4" fontId="1" fillId="0" borderId="0" xfId="0" applyNumberFormat="1" applyFont="1"/></cellXfs>
        <cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>
        </styleSheet>
        """

    /// Excel's sheet-name rules, which it enforces on open.
    private static func validate(sheetName: String) throws {
        if sheetName.isEmpty { throw InputError.invalidSheetName(sheetName, reason: "it is empty") }
        if sheetName.count > 31 { throw InputError.invalidSheetName(sheetName, reason: "it is longer than 31 characters") }
        if let bad = sheetName.first(where: { ":\\/?*[]".contains($0) }) {
            throw InputError.invalidSheetName(sheetName, reason: "it contains '\(bad)'")
        }
        if sheetName.hasPrefix("'") || sheetName.hasSuffix("'") {
            throw InputError.invalidSheetName(sheetName, reason: "it starts or ends with an apostrophe")
        }
        if sheetName.lowercased() == "history" {
            throw InputError.invalidSheetName(sheetName, reason: "Excel reserves 'History'")
        }
        if sheetName.unicodeScalars.contains(where: { $0.value < 0x20 }) {
            throw InputError.invalidSheetName(sheetName, reason: "it contains a control character")
        }
    }

    /// The column letters for a zero-based index: 0 → `A`, 25 → `Z`, 26 → `AA` (§18.3.1.4).
    static func columnName(_ index: Int) -> String {
        var remaining = index + 1
        var letters: [Character] = []
        while remaining > 0 {
            let digit = (remaining - 1) % 26
            letters.insert(Character(Unicode.Scalar(UInt8(65 + digit))), at: 0)
            remaining = (remaining - 1) / 26
        }
        return String(letters)
    }

    /// An `xsd:double` lexical form; whole numbers without a trailing `.0`.
    private static func xmlNumber(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    // MARK: - PresentationML

    /// A PowerPoint presentation (`.pptx`) with one *Title Slide* showing `title` and `subtitle`.
    ///
    /// Parts: `ppt/presentation.xml` (ECMA-376 Part 1 §13.3.6), one slide master (§13.3.10),
    /// its *Title Slide* layout (§13.3.9), the slide (§13.3.8), the theme (§14.2.7) and the
    /// presentation, view and table-style properties PowerPoint writes with every file
    /// (§13.3.7, §13.3.12, §14.2.9). Slides are 16:9 (12,192,000 × 6,858,000 EMU). A `\n` in
    /// either text starts a new paragraph.
    ///
    /// - Throws: ``InputError/invalidXMLCharacter(field:scalar:)`` for control characters.
    public static func presentation(
        title: String,
        subtitle: String,
        author: String = "WOPIKit",
        created: Date = Date()
    ) throws -> Data {
        let titleParagraphs = try drawingParagraphs(title, field: "title")
        let subtitleParagraphs = try drawingParagraphs(subtitle, field: "subtitle")
        let slide = """
            \(xmlDeclaration)
            <p:sld \(presentationNamespaces)>
            <p:cSld><p:spTree>\(groupShapeProperties)
            \(placeholder(id: 2, name: "Title 1", type: "ctrTitle", index: nil, frame: nil, listStyle: "", paragraphs: titleParagraphs))
            \(placeholder(id: 3, name: "Subtitle 2", type: "subTitle", index: 1, frame: nil, listStyle: "", paragraphs: subtitleParagraphs))
            </p:spTree></p:cSld>
            <p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr>
            </p:sld>
            """
        let presentationPart = """
            \(xmlDeclaration)
            <p:presentation \(presentationNamespaces) saveSubsetFonts="1">
            <p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst>
            <p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst>
            <p:sldSz cx="12192000" cy="6858000"/>
            <p:notesSz cx="6858000" cy="9144000"/>
            <p:defaultTextStyle><a:defPPr><a:defRPr lang="en-US"/></a:defPPr>\
            <a:lvl1pPr marL="0" algn="l" defTabSz="914400" rtl="0" eaLnBrk="1" latinLnBrk="0" hangingPunct="1">\
            <a:defRPr sz="1800" kern="1200"><a:solidFill><a:schemeClr val="tx1"/></a:solidFill>\
            <a:latin typeface="+mn-lt"/><a:ea typeface="+mn-ea"/><a:cs typeface="+mn-cs"/></a:defRPr></a:lvl1pPr>\
            </p:defaultTextStyle>
            </p:presentation>
            """
        let presentationRelationships = relationships([
            (RelationshipType.slideMaster, "slideMasters/slideMaster1.xml"),
            (RelationshipType.slide, "slides/slide1.xml"),
            (RelationshipType.presentationProperties, "presProps.xml"),
            (RelationshipType.viewProperties, "viewProps.xml"),
            (RelationshipType.theme, "theme/theme1.xml"),
            (RelationshipType.tableStyles, "tableStyles.xml"),
        ])
        let presentationML = "application/vnd.openxmlformats-officedocument.presentationml"
        return try package(
            mainPart: "ppt/presentation.xml",
            mainContentType: "\(presentationML).presentation.main+xml",
            parts: [
                ("ppt/presentation.xml", presentationPart, nil),
                ("ppt/_rels/presentation.xml.rels", presentationRelationships, nil),
                ("ppt/slideMasters/slideMaster1.xml", slideMaster, "\(presentationML).slideMaster+xml"),
                ("ppt/slideMasters/_rels/slideMaster1.xml.rels", relationships([
                    (RelationshipType.slideLayout, "../slideLayouts/slideLayout1.xml"),
                    (RelationshipType.theme, "../theme/theme1.xml"),
                ]), nil),
                ("ppt/slideLayouts/slideLayout1.xml", titleSlideLayout, "\(presentationML).slideLayout+xml"),
                ("ppt/slideLayouts/_rels/slideLayout1.xml.rels", relationships([
                    (RelationshipType.slideMaster, "../slideMasters/slideMaster1.xml"),
                ]), nil),
                ("ppt/slides/slide1.xml", slide, "\(presentationML).slide+xml"),
                ("ppt/slides/_rels/slide1.xml.rels", relationships([
                    (RelationshipType.slideLayout, "../slideLayouts/slideLayout1.xml"),
                ]), nil),
                ("ppt/theme/theme1.xml", theme, ContentType.theme),
                ("ppt/presProps.xml", """
                    \(xmlDeclaration)
                    <p:presentationPr \(presentationNamespaces)/>
                    """, "\(presentationML).presProps+xml"),
                ("ppt/viewProps.xml", """
                    \(xmlDeclaration)
                    <p:viewPr \(presentationNamespaces)><p:gridSpacing cx="76200" cy="76200"/></p:viewPr>
                    """, "\(presentationML).viewProps+xml"),
                ("ppt/tableStyles.xml", """
                    \(xmlDeclaration)
                    <a:tblStyleLst xmlns:a="\(Namespace.drawingML)" def="{5C22544A-7EE6-4342-B048-85BDC9FD1C3A}"/>
                    """, "\(presentationML).tableStyles+xml"),
            ],
            title: title, author: author, created: created
        )
    }

    private static let presentationNamespaces =
        #"xmlns:a="\#(Namespace.drawingML)" xmlns:r="\#(Namespace.officeRelationships)" xmlns:p="\#(Namespace.presentationML)""#

    /// The non-visual and visual properties every shape tree starts with (§19.3.1.45).
    private static let groupShapeProperties = """
        <p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>\
        <p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/><a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>
        """

    /// One `a:p` per line of `text`; an empty text keeps a single empty paragraph (§21.1.2.2.6).
    private static func drawingParagraphs(_ text: String, field: String) throws -> String {
        try normalizedLines(text).map { line in
            line.isEmpty
                ? #"<a:p><a:endParaRPr lang="en-US"/></a:p>"#
                : #"<a:p><a:r><a:rPr lang="en-US"/><a:t>\#(try escaped(line, field: field))</a:t></a:r></a:p>"#
        }.joined()
    }

    /// A placeholder shape (§19.3.1.43); `frame` is (x, y, width, height) in EMU, or inherited when `nil`.
    private static func placeholder(
        id: Int, name: String, type: String, index: Int?,
        frame: (Int, Int, Int, Int)?, listStyle: String, paragraphs: String,
        bodyProperties: String = "<a:bodyPr/>"
    ) -> String {
        let indexAttribute = index.map { #" idx="\#($0)""# } ?? ""
        let shapeProperties = frame.map { x, y, width, height in
            #"<p:spPr><a:xfrm><a:off x="\#(x)" y="\#(y)"/><a:ext cx="\#(width)" cy="\#(height)"/></a:xfrm>"#
                + #"<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr>"#
        } ?? "<p:spPr/>"
        return #"<p:sp><p:nvSpPr><p:cNvPr id="\#(id)" name="\#(name)"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr>"#
            + #"<p:nvPr><p:ph type="\#(type)"\#(indexAttribute)/></p:nvPr></p:nvSpPr>\#(shapeProperties)"#
            + #"<p:txBody>\#(bodyProperties)<a:lstStyle>\#(listStyle)</a:lstStyle>\#(paragraphs)</p:txBody></p:sp>"#
    }

    private static func prompt(_ text: String) -> String {
        #"<a:p><a:r><a:rPr lang="en-US"/><a:t>\#(text)</a:t></a:r><a:endParaRPr lang="en-US"/></a:p>"#
    }

    /// The master (§13.3.10): title and body placeholders, the colour map and text styles.
    private static let slideMaster = """
        \(xmlDeclaration)
        <p:sldMaster \(presentationNamespaces)>
        <p:cSld><p:bg><p:bgRef idx="1001"><a:schemeClr val="bg1"/></p:bgRef></p:bg><p:spTree>\(groupShapeProperties)
        \(placeholder(
            id: 2, name: "Title Placeholder 1", type: "title", index: nil,
            frame: (838200, 365125, 10515600, 1325563), listStyle: "",
            paragraphs: prompt("Click to edit Master title style"),
            bodyProperties: #"<a:bodyPr vert="horz" lIns="91440" tIns="45720" rIns="91440" bIns="45720" rtlCol="0" anchor="ctr"><a:normAutofit/></a:bodyPr>"#
        ))
        \(placeholder(
            id: 3, name: "Text Placeholder 2", type: "body", index: 1,
            frame: (838200, 1825625, 10515600, 4351338), listStyle: "",
            paragraphs: prompt("Click to edit Master text styles"),
            bodyProperties: #"<a:bodyPr vert="horz" lIns="91440" tIns="45720" rIns="91440" bIns="45720" rtlCol="0"><a:normAutofit/></a:bodyPr>"#
        ))
        </p:spTree></p:cSld>
        <p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" \
        accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/>
        <p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst>
        <p:txStyles>\
        <p:titleStyle><a:lvl1pPr algn="l" defTabSz="914400" rtl="0" eaLnBrk="1" latinLnBrk="0" hangingPunct="1">\
        <a:lnSpc><a:spcPct val="90000"/></a:lnSpc><a:spcBef><a:spcPct val="0"/></a:spcBef><a:buNone/>\
        <a:defRPr sz="4400" kern="1200"><a:solidFill><a:schemeClr val="tx1"/></a:solidFill>\
        <a:latin typeface="+mj-lt"/><a:ea typeface="+mj-ea"/><a:cs typeface="+mj-cs"/></a:defRPr></a:lvl1pPr></p:titleStyle>\
        <p:bodyStyle><a:lvl1pPr marL="228600" indent="-228600" algn="l" defTabSz="914400" rtl="0" eaLnBrk="1" latinLnBrk="0" hangingPunct="1">\
        <a:lnSpc><a:spcPct val="90000"/></a:lnSpc><a:spcBef><a:spcPts val="1000"/></a:spcBef>\
        <a:buFont typeface="Arial" panose="020B0604020202020204" pitchFamily="34" charset="0"/><a:buChar char="•"/>\
        <a:defRPr sz="2800" kern="1200"><a:solidFill><a:schemeClr val="tx1"/></a:solidFill>\
        <a:latin typeface="+mn-lt"/><a:ea typeface="+mn-ea"/><a:cs typeface="+mn-cs"/></a:defRPr></a:lvl1pPr></p:bodyStyle>\
        <p:otherStyle><a:defPPr><a:defRPr lang="en-US"/></a:defPPr></p:otherStyle>\
        </p:txStyles>
        </p:sldMaster>
        """

    /// The *Title Slide* layout (§13.3.9, type `title`): a centred title and subtitle.
    private static let titleSlideLayout = """
        \(xmlDeclaration)
        <p:sldLayout \(presentationNamespaces) type="title" preserve="1">
        <p:cSld name="Title Slide"><p:spTree>\(groupShapeProperties)
        \(placeholder(
            id: 2, name: "Title 1", type: "ctrTitle", index: nil,
            frame: (1524000, 1122363, 9144000, 2387600),
            listStyle: #"<a:lvl1pPr algn="ctr"><a:defRPr sz="6000"/></a:lvl1pPr>"#,
            paragraphs: prompt("Click to edit Master title style"),
            bodyProperties: #"<a:bodyPr anchor="b"/>"#
        ))
        \(placeholder(
            id: 3, name: "Subtitle 2", type: "subTitle", index: 1,
            frame: (1524000, 3602038, 9144000, 1655762),
            listStyle: #"<a:lvl1pPr marL="0" indent="0" algn="ctr"><a:buNone/><a:defRPr sz="2400"/></a:lvl1pPr>"#,
            paragraphs: prompt("Click to edit Master subtitle style")
        ))
        </p:spTree></p:cSld>
        <p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr>
        </p:sldLayout>
        """

    // MARK: - Shared parts

    /// The Office theme (ECMA-376 Part 1 §20.1.6.9): colours, fonts and the three-entry
    /// style lists the schema requires (§20.1.4.1.14, .21, .15, .10).
    private static let theme = """
        \(xmlDeclaration)
        <a:theme xmlns:a="\(Namespace.drawingML)" name="Office Theme"><a:themeElements>
        <a:clrScheme name="Office">\
        <a:dk1><a:sysClr val="windowText" lastClr="000000"/></a:dk1><a:lt1><a:sysClr val="window" lastClr="FFFFFF"/></a:lt1>\
        <a:dk2><a:srgbClr val="44546A"/></a:dk2><a:lt2><a:srgbClr val="E7E6E6"/></a:lt2>\
        <a:accent1><a:srgbClr val="4472C4"/></a:accent1><a:accent2><a:srgbClr val="ED7D31"/></a:accent2>\
        <a:accent3><a:srgbClr val="A5A5A5"/></a:accent3><a:accent4><a:srgbClr val="FFC000"/></a:accent4>\
        <a:accent5><a:srgbClr val="5B9BD5"/></a:accent5><a:accent6><a:srgbClr val="70AD47"/></a:accent6>\
        <a:hlink><a:srgbClr val="0563C1"/></a:hlink><a:folHlink><a:srgbClr val="954F72"/></a:folHlink></a:clrScheme>
        <a:fontScheme name="Office">\
        <a:majorFont><a:latin typeface="Calibri Light"/><a:ea typeface=""/><a:cs typeface=""/></a:majorFont>\
        <a:minorFont><a:latin typeface="Calibri"/><a:ea typeface=""/><a:cs typeface=""/></a:minorFont></a:fontScheme>
        <a:fmtScheme name="Office"><a:fillStyleLst>\
        <a:solidFill><a:schemeClr val="phClr"/></a:solidFill>\
        <a:solidFill><a:schemeClr val="phClr"><a:tint val="50000"/></a:schemeClr></a:solidFill>\
        <a:solidFill><a:schemeClr val="phClr"><a:shade val="80000"/></a:schemeClr></a:solidFill></a:fillStyleLst>\
        <a:lnStyleLst>\(themeLine(6350))\(themeLine(12700))\(themeLine(19050))</a:lnStyleLst>\
        <a:effectStyleLst><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle>\
        <a:effectStyle><a:effectLst/></a:effectStyle></a:effectStyleLst>\
        <a:bgFillStyleLst><a:solidFill><a:schemeClr val="phClr"/></a:solidFill>\
        <a:solidFill><a:schemeClr val="phClr"><a:tint val="95000"/></a:schemeClr></a:solidFill>\
        <a:solidFill><a:schemeClr val="phClr"><a:shade val="90000"/></a:schemeClr></a:solidFill></a:bgFillStyleLst>\
        </a:fmtScheme></a:themeElements>
        <a:objectDefaults/><a:extraClrSchemeLst/>
        </a:theme>
        """

    private static func themeLine(_ width: Int) -> String {
        #"<a:ln w="\#(width)" cap="flat" cmpd="sng" algn="ctr"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill>"#
            + #"<a:prstDash val="solid"/><a:miter lim="800000"/></a:ln>"#
    }

    /// Zips the main parts with the content types, package relationships and properties every
    /// OPC package needs. `parts` are (name, XML, content type); `nil` content types are covered
    /// by the main part's override or the `rels` default.
    private static func package(
        mainPart: String,
        mainContentType: String,
        parts: [(name: String, xml: String, contentType: String?)],
        title: String,
        author: String,
        created: Date
    ) throws -> Data {
        var overrides = [(mainPart, mainContentType)]
        overrides += parts.compactMap { part in part.contentType.map { (part.name, $0) } }
        overrides += [
            ("docProps/core.xml", "application/vnd.openxmlformats-package.core-properties+xml"),
            ("docProps/app.xml", "application/vnd.openxmlformats-officedocument.extended-properties+xml"),
        ]
        // Part names in overrides are absolute (ECMA-376 Part 2 §10.1.2.2.3).
        let overrideElements = overrides.map { #"<Override PartName="/\#($0.0)" ContentType="\#($0.1)"/>"# }.joined()
        let contentTypes = """
            \(xmlDeclaration)
            <Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">\
            <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>\
            <Default Extension="xml" ContentType="application/xml"/>\(overrideElements)</Types>
            """
        let packageRelationships = relationships([
            (RelationshipType.officeDocument, mainPart),
            (RelationshipType.coreProperties, "docProps/core.xml"),
            (RelationshipType.extendedProperties, "docProps/app.xml"),
        ])
        let timestamp = w3cDateTime(created)
        let escapedTitle = try escaped(title, field: "title")
        let escapedAuthor = try escaped(author, field: "author")
        let coreProperties = """
            \(xmlDeclaration)
            <cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" \
            xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" \
            xmlns:dcmitype="http://purl.org/dc/dcmitype/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\
            <dc:title>\(escapedTitle)</dc:title><dc:creator>\(escapedAuthor)</dc:creator>\
            <cp:lastModifiedBy>\(escapedAuthor)</cp:lastModifiedBy>\
            <dcterms:created xsi:type="dcterms:W3CDTF">\(timestamp)</dcterms:created>\
            <dcterms:modified xsi:type="dcterms:W3CDTF">\(timestamp)</dcterms:modified></cp:coreProperties>
            """
        let appProperties = """
            \(xmlDeclaration)
            <Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties" \
            xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">\
            <Application>WOPIKit</Application><DocSecurity>0</DocSecurity></Properties>
            """

        var zip = ZipArchiveWriter(modificationDate: created)
        // Office writes [Content_Types].xml first; some readers expect it there.
        try zip.addEntry(path: "[Content_Types].xml", data: Data(contentTypes.utf8))
        try zip.addEntry(path: "_rels/.rels", data: Data(packageRelationships.utf8))
        try zip.addEntry(path: "docProps/core.xml", data: Data(coreProperties.utf8))
        try zip.addEntry(path: "docProps/app.xml", data: Data(appProperties.utf8))
        for part in parts {
            try zip.addEntry(path: part.name, data: Data(part.xml.utf8))
        }
        return zip.archiveData()
    }

    /// A relationships part (ECMA-376 Part 2 §9.3.2) with ids `rId1`, `rId2`, … in order.
    private static func relationships(_ targets: [(type: String, target: String)]) -> String {
        let elements = targets.enumerated().map { index, relationship in
            #"<Relationship Id="rId\#(index + 1)" Type="\#(relationship.type)" Target="\#(relationship.target)"/>"#
        }.joined()
        return """
            \(xmlDeclaration)
            <Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\(elements)</Relationships>
            """
    }

    /// `text` split at `\r\n`, `\r` and `\n`.
    private static func normalizedLines(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n", with: "\n")
            .replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
    }

    /// Escapes markup characters and refuses characters outside XML 1.0 `Char` (§2.2).
    /// Tabs and line ends become character references so attribute normalisation keeps them.
    private static func escaped(_ text: String, field: String) throws -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x26: result += "&amp;"
            case 0x3C: result += "&lt;"
            case 0x3E: result += "&gt;"
            case 0x22: result += "&quot;"
            case 0x27: result += "&apos;"
            case 0x09: result += "&#9;"
            case 0x0A: result += "&#10;"
            case 0x0D: result += "&#13;"
            case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF:
                result.unicodeScalars.append(scalar)
            default:
                throw InputError.invalidXMLCharacter(field: field, scalar: scalar.value)
            }
        }
        return result
    }

    /// W3CDTF in UTC without fractional seconds, the form Office writes (Part 2 §11.1).
    private static func w3cDateTime(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    private static let xmlDeclaration = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#

    private enum Namespace {
        static let wordprocessingML = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
        static let spreadsheetML = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
        static let presentationML = "http://schemas.openxmlformats.org/presentationml/2006/main"
        static let drawingML = "http://schemas.openxmlformats.org/drawingml/2006/main"
        static let officeRelationships = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    }

    private enum ContentType {
        static let theme = "application/vnd.openxmlformats-officedocument.theme+xml"
    }

    /// Relationship types from ECMA-376 Part 1 §15 and Part 2 Annex F.
    private enum RelationshipType {
        private static let office = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
        static let officeDocument = "\(office)/officeDocument"
        static let extendedProperties = "\(office)/extended-properties"
        static let coreProperties = "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties"
        static let styles = "\(office)/styles"
        static let settings = "\(office)/settings"
        static let theme = "\(office)/theme"
        static let worksheet = "\(office)/worksheet"
        static let sharedStrings = "\(office)/sharedStrings"
        static let slideMaster = "\(office)/slideMaster"
        static let slideLayout = "\(office)/slideLayout"
        static let slide = "\(office)/slide"
        static let presentationProperties = "\(office)/presProps"
        static let viewProperties = "\(office)/viewProps"
        static let tableStyles = "\(office)/tableStyles"
    }
}
