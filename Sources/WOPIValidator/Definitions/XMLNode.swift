#if canImport(FoundationXML)
import FoundationXML
#endif
import Foundation
import WOPICore

/// A parsed XML element: name, attributes, child elements and text. The definitions parser walks this tree.
public struct XMLNode: Sendable, Hashable {
    /// The element's local name.
    public var name: String
    /// Attribute values by name.
    public var attributes: [String: String]
    /// Child elements in document order.
    public var children: [XMLNode]
    /// Concatenated character data directly inside the element.
    public var text: String
    /// 1-based line of the start tag, for error messages.
    public var line: Int

    /// Creates an element.
    public init(name: String, attributes: [String: String] = [:], children: [XMLNode] = [], text: String = "", line: Int = 0) {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
        self.line = line
    }

    /// The first child named `name`.
    public func child(_ name: String) -> XMLNode? { children.first { $0.name == name } }

    /// Parses an XML document into its root element.
    public static func parse(_ data: Data) throws(DefinitionError) -> XMLNode {
        if let problem = XMLInputCheck.problem(in: data) { throw DefinitionError(line: 1, reason: "malformed XML: \(problem)") }
        let delegate = TreeBuilder()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        parser.shouldProcessNamespaces = true
        guard parser.parse(), let root = delegate.root else {
            let reason = delegate.failure ?? parser.parserError.map { String(describing: $0) } ?? "unknown XML error"
            throw DefinitionError(line: parser.lineNumber, reason: "malformed XML: \(reason)")
        }
        return root
    }
}

/// Collects XMLParser callbacks into an ``XMLNode`` tree. Used on one thread for one parse only.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    var stack: [XMLNode] = []
    var root: XMLNode?
    var failure: String?

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        // Namespaced attributes (xsi:noNamespaceSchemaLocation) carry no test data.
        let attributes = attributeDict.filter { !$0.key.contains(":") }
        stack.append(XMLNode(name: elementName, attributes: attributes, line: parser.lineNumber))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard let node = stack.popLast() else { return }
        if stack.isEmpty {
            root = node
        } else {
            stack[stack.count - 1].children.append(node)
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        failure = String(describing: parseError)
    }
}
