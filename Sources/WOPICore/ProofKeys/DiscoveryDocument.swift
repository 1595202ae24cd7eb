import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The parts of a WOPI client's discovery XML (`/hosting/discovery`) a host needs: the proof keys
/// and the actions (WOPI docs, online/discovery.rst and online/scenarios/proofkeys.rst).
///
/// It reads discovery from Office or any WOPI client, and writes one for a WOPIKit key pair so
/// tests and the Office simulator can stand in for Office.
public struct DiscoveryDocument: Sendable, Hashable {
    /// One `action` element: what an app can do with files of one extension, and where.
    public struct Action: Sendable, Hashable {
        /// The `name` of the enclosing `net-zone` (e.g. `external-https`), if any.
        public var netZone: String?
        /// The `name` of the enclosing `app` (e.g. `Word`).
        public var appName: String
        /// The action's `name` (e.g. `view`, `edit`, `editnew`).
        public var name: String
        /// The `ext` attribute, without a dot; `nil` for actions keyed by `progid` instead.
        public var fileExtension: String?
        /// The `urlsrc` attribute: the URL template of the action.
        public var urlSource: String
        /// The enclosing `app`'s `favIconUrl`: the icon a host page shows for the app (WOPI docs,
        /// online/hostpage.rst, "favicon").
        public var favIconURL: String?

        /// Creates an action.
        public init(netZone: String? = "external-https", appName: String, name: String, fileExtension: String?, urlSource: String,
                    favIconURL: String? = nil) {
            self.netZone = netZone
            self.appName = appName
            self.name = name
            self.fileExtension = fileExtension
            self.urlSource = urlSource
            self.favIconURL = favIconURL
        }
    }

    /// Why a discovery document could not be read.
    public enum ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The text is not well-formed XML.
        case malformedXML(line: Int, column: Int, reason: String)
        /// The root element is not `wopi-discovery`.
        case notDiscovery(rootElement: String)
        /// There is more than one `proof-key` element, so it is unclear which keys to trust.
        case duplicateProofKey
        /// An element lacks an attribute the protocol requires.
        case missingAttribute(element: String, attribute: String)
        /// A key attribute of `proof-key` could not be used.
        case invalidProofKey(attribute: String, ProofKeyError)
        /// `value` and `modulus`/`exponent` (or their `old` forms) describe different keys.
        case inconsistentProofKey(attributes: String)

        /// A one-line explanation that names the problem.
        public var description: String {
            switch self {
            case let .malformedXML(line, column, reason):
                "discovery XML is malformed at line \(line), column \(column): \(reason)"
            case let .notDiscovery(root):
                "not a WOPI discovery document: the root element is <\(root)>, expected <wopi-discovery>"
            case .duplicateProofKey:
                "discovery XML has more than one <proof-key> element"
            case let .missingAttribute(element, attribute):
                "discovery XML: <\(element)> lacks the \(attribute) attribute"
            case let .invalidProofKey(attribute, error):
                "discovery XML: proof-key \(attribute): \(error)"
            case let .inconsistentProofKey(attributes):
                "discovery XML: proof-key \(attributes) describe different keys"
            }
        }
    }

    /// The keys from the `proof-key` element; `nil` when the document has none.
    public var proofKeys: ProofKeyPair?
    /// The `action` elements, in document order.
    public var actions: [Action]

    /// Creates a document from its parts, for instance to publish a generated key pair.
    public init(proofKeys: ProofKeyPair?, actions: [Action] = []) {
        self.proofKeys = proofKeys
        self.actions = actions
    }

    /// Reads a discovery document.
    ///
    /// A key given both as `value` (CSP blob) and as `modulus`/`exponent` must be the same key in
    /// both forms; a key given in only one form is read from that form.
    ///
    /// - Throws: ``ParseError`` naming the problem.
    public init(xml: Data) throws(ParseError) {
        if let problem = XMLInputCheck.problem(in: xml) { throw .malformedXML(line: 1, column: 1, reason: problem) }
        let parser = XMLParser(data: xml)
        parser.shouldResolveExternalEntities = false
        let reader = DiscoveryReader()
        parser.delegate = reader
        let finished = parser.parse()
        if let error = reader.error { throw error }
        guard finished, parser.parserError == nil else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "unknown error"
            throw .malformedXML(line: parser.lineNumber, column: parser.columnNumber, reason: reason)
        }
        guard let root = reader.rootElement else {
            throw .malformedXML(line: parser.lineNumber, column: parser.columnNumber, reason: "no root element")
        }
        // swift-corelibs-foundation's XMLParser can report success for a document cut off
        // inside an element, so check that every element was closed.
        if let open = reader.openElements.last {
            throw .malformedXML(line: parser.lineNumber, column: parser.columnNumber, reason: "the document ends inside <\(open)>")
        }
        guard root == "wopi-discovery" else { throw .notDiscovery(rootElement: root) }
        actions = reader.actions
        proofKeys = try reader.proofKeyAttributes.map { attributes throws(ParseError) in
            try Self.proofKeys(from: attributes)
        }
    }

    /// Reads a discovery document from text.
    public init(xml: String) throws(ParseError) {
        try self.init(xml: Data(xml.utf8))
    }

    /// The document as discovery XML: `wopi-discovery` with one `net-zone` per zone, one `app`
    /// per app name, the actions, and the `proof-key` element with every key in both forms.
    public var xmlString: String {
        var xml = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<wopi-discovery>\n"
        var zones: [String?] = []
        for action in actions where !zones.contains(action.netZone) {
            zones.append(action.netZone)
        }
        for zone in zones {
            let zoneActions = actions.filter { $0.netZone == zone }
            var apps: [String] = []
            for action in zoneActions where !apps.contains(action.appName) {
                apps.append(action.appName)
            }
            let indent = zone == nil ? "  " : "    "
            if let zone { xml += "  <net-zone name=\"\(MarkupEscaping.escape(zone))\">\n" }
            for app in apps {
                xml += "\(indent)<app name=\"\(MarkupEscaping.escape(app))\">\n"
                for action in zoneActions where action.appName == app {
                    xml += "\(indent)  <action name=\"\(MarkupEscaping.escape(action.name))\""
                    if let ext = action.fileExtension { xml += " ext=\"\(MarkupEscaping.escape(ext))\"" }
                    xml += " urlsrc=\"\(MarkupEscaping.escape(action.urlSource))\"/>\n"
                }
                xml += "\(indent)</app>\n"
            }
            if zone != nil { xml += "  </net-zone>\n" }
        }
        if let proofKeys {
            var attributes: [(String, String)] = []
            if let old = proofKeys.old {
                if let blob = old.base64CSPBlob { attributes.append(("oldvalue", blob)) }
                attributes.append(("oldmodulus", old.base64Modulus))
                attributes.append(("oldexponent", old.base64Exponent))
            }
            if let blob = proofKeys.current.base64CSPBlob { attributes.append(("value", blob)) }
            attributes.append(("modulus", proofKeys.current.base64Modulus))
            attributes.append(("exponent", proofKeys.current.base64Exponent))
            xml += "  <proof-key"
            for (name, value) in attributes { xml += " \(name)=\"\(MarkupEscaping.escape(value))\"" }
            xml += "/>\n"
        }
        xml += "</wopi-discovery>\n"
        return xml
    }

    // MARK: - Private

    private static func proofKeys(from attributes: [String: String]) throws(ParseError) -> ProofKeyPair {
        guard let current = try key(prefix: "", from: attributes) else {
            throw .missingAttribute(element: "proof-key", attribute: "modulus")
        }
        return ProofKeyPair(current: current, old: try key(prefix: "old", from: attributes))
    }

    /// Reads the key named by `prefix` ("" or "old"); `nil` when neither of its forms is present.
    private static func key(prefix: String, from attributes: [String: String]) throws(ParseError) -> ProofKey? {
        let modulusName = prefix + "modulus"
        let exponentName = prefix + "exponent"
        let valueName = prefix + "value"
        var fromPrimitives: ProofKey?
        switch (attributes[modulusName], attributes[exponentName]) {
        case let (modulus?, exponent?):
            guard let modulusData = Data(base64Encoded: modulus) else {
                throw .invalidProofKey(attribute: modulusName, .invalidBase64(field: modulusName))
            }
            guard let exponentData = Data(base64Encoded: exponent) else {
                throw .invalidProofKey(attribute: exponentName, .invalidBase64(field: exponentName))
            }
            do {
                fromPrimitives = try ProofKey(modulus: modulusData, exponent: exponentData)
            } catch {
                throw .invalidProofKey(attribute: modulusName, error)
            }
        case (_?, nil):
            throw .missingAttribute(element: "proof-key", attribute: exponentName)
        case (nil, _?):
            throw .missingAttribute(element: "proof-key", attribute: modulusName)
        case (nil, nil):
            fromPrimitives = nil
        }
        var fromBlob: ProofKey?
        if let value = attributes[valueName] {
            guard let blob = Data(base64Encoded: value) else {
                throw .invalidProofKey(attribute: valueName, .invalidBase64(field: valueName))
            }
            do {
                fromBlob = try ProofKey(cspBlob: blob)
            } catch {
                throw .invalidProofKey(attribute: valueName, error)
            }
        }
        if let fromPrimitives, let fromBlob, fromPrimitives != fromBlob {
            throw .inconsistentProofKey(attributes: "\(valueName) and \(modulusName)/\(exponentName)")
        }
        return fromPrimitives ?? fromBlob
    }
}

/// Collects what ``DiscoveryDocument`` needs while `XMLParser` walks the document.
private final class DiscoveryReader: NSObject, XMLParserDelegate {
    var rootElement: String?
    var actions: [DiscoveryDocument.Action] = []
    var proofKeyAttributes: [String: String]?
    var error: DiscoveryDocument.ParseError?
    var openElements: [String] = []
    private var netZone: String?
    private var appName: String?
    private var appFavIconURL: String?

    func parser(
        _ parser: XMLParser,
        didStartElement elementName: String,
        namespaceURI: String?,
        qualifiedName qName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        if rootElement == nil { rootElement = elementName }
        openElements.append(elementName)
        switch elementName {
        case "net-zone":
            netZone = attributeDict["name"]
        case "app":
            appName = attributeDict["name"]
            appFavIconURL = attributeDict["favIconUrl"]
        case "action":
            guard let name = attributeDict["name"] else { return fail(parser, .missingAttribute(element: "action", attribute: "name")) }
            guard let urlSource = attributeDict["urlsrc"] else {
                return fail(parser, .missingAttribute(element: "action", attribute: "urlsrc"))
            }
            guard let appName else { return fail(parser, .missingAttribute(element: "app", attribute: "name")) }
            actions.append(.init(netZone: netZone, appName: appName, name: name, fileExtension: attributeDict["ext"], urlSource: urlSource,
                                   favIconURL: appFavIconURL))
        case "proof-key":
            guard proofKeyAttributes == nil else { return fail(parser, .duplicateProofKey) }
            proofKeyAttributes = attributeDict
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        _ = openElements.popLast()
        switch elementName {
        case "net-zone": netZone = nil
        case "app": appName = nil; appFavIconURL = nil
        default: break
        }
    }

    private func fail(_ parser: XMLParser, _ error: DiscoveryDocument.ParseError) {
        if self.error == nil { self.error = error }
        parser.abortParsing()
    }
}
