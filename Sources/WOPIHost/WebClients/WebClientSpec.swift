import Foundation

/// A browser editor the host is told about: a name for links and logs, and its discovery URL
/// (`wopi serve --wopi-client collabora=http://127.0.0.1:9980/hosting/discovery`).
public struct WebClientSpec: Sendable, Hashable, CustomStringConvertible {
    /// The name pages use in `/open/<id>?client=NAME`: letters, digits, `-` and `_`.
    public let name: String
    /// Where its discovery XML is read from (http or https).
    public let discoveryURL: URL

    /// Reads `NAME=URL`; throws a message naming the problem.
    public init(argument: String) throws(WebClientError) {
        guard let equals = argument.firstIndex(of: "=") else { throw .badSpec(argument, "expected NAME=DISCOVERY_URL") }
        let name = String(argument[..<equals])
        let text = String(argument[argument.index(after: equals)...])
        try self.init(name: name, discoveryURL: text)
    }

    /// A client named `name` whose discovery is at `discoveryURL`.
    public init(name: String, discoveryURL: String) throws(WebClientError) {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_"))
        guard !name.isEmpty, name.count <= 40, name.unicodeScalars.allSatisfy({ allowed.contains($0) && $0.isASCII }) else {
            throw .badSpec("\(name)=\(discoveryURL)", "the name must be 1–40 ASCII letters, digits, '-' or '_'")
        }
        guard let url = URL(string: discoveryURL), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host != nil else {
            throw .badSpec("\(name)=\(discoveryURL)", "the discovery URL must be an http or https URL")
        }
        self.name = name
        self.discoveryURL = url
    }

    /// `NAME=URL`.
    public var description: String { "\(name)=\(discoveryURL.absoluteString)" }
}

/// Why a browser editor cannot be used.
public enum WebClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `--wopi-client` was not `NAME=URL` with a usable name and URL.
    case badSpec(String, String)
    /// Two clients have the same name.
    case duplicateName(String)
    /// The discovery could not be fetched or read.
    case discovery(client: String, url: String, reason: String)

    /// One line naming the problem.
    public var description: String {
        switch self {
        case let .badSpec(text, reason): "--wopi-client '\(text)': \(reason)"
        case let .duplicateName(name): "--wopi-client: the name '\(name)' is given twice"
        case let .discovery(client, url, reason): "browser editor '\(client)': cannot read its discovery at \(url): \(reason)"
        }
    }
}
