import Foundation

/// A URI that launches an Office app on a document:
/// `<scheme>:<command>|u|<url>[|s|…][|d|…][|e|…][|n|…][|a|…][|p|…][|c|…]`.
///
/// It implements the Office URI grammar (Office URI Schemes §1.3–§1.7), the iOS additions for
/// returning to your app (`|p|` passback scheme, `|c|` document context; seed 000), and the WOPI
/// arguments (`|d|` service, `|e|` user, `|n|` file name, `|a|` source; seed 001, from_app.rst).
///
/// ```swift
/// let invoke = try OfficeInvokeURI(app: .word, command: .edit,
///                                  documentURL: "https://contoso/Q4/budget.docx",
///                                  passbackScheme: "clouddrive", context: "folderviewQ4")
/// invoke.string  // "ms-word:ofe|u|https://contoso/Q4/budget.docx|p|clouddrive|c|folderviewQ4"
/// invoke.url     // ms-word:ofe%7Cu%7Chttps%3A//contoso/Q4/budget.docx%7Cp%7Cclouddrive%7Cc%7CfolderviewQ4
/// await UIApplication.shared.open(invoke.url)
/// ```
///
/// ## Two forms of the same URI
/// ``string`` is the form the specification writes, with raw `|` delimiters. Foundation cannot
/// hold it: on iOS 17+ (and swift-foundation) `URL(string:)` percent-encodes it, turning every `|`
/// into `%7C`, and before iOS 17 it returned `nil`. ``url`` is therefore built from
/// ``percentEncodedString``, the form `URL(string:)` makes on iOS 17+, so **`UIApplication.open`
/// receives the fully percent-encoded form** on every iOS version. Office decodes it, and every
/// parser here accepts both forms. (The one difference from `URL(string:)`: Foundation keeps a query
/// or fragment (the text after a `?` or `#`) that holds no invalid character as it is, escapes
/// such as `%7C` included, so decoding its string once can split a value; ``percentEncodedString``
/// encodes every `%` and always decodes back exactly.)
///
/// ## Encoding of arguments
/// Within an argument `:` and `/` stay as they are. In text arguments a `|` becomes `%7C`, `%`
/// becomes `%25`, `#` becomes `%23`, and spaces and non-ASCII are percent-encoded as UTF-8, so
/// parsing gives the value back exactly. URL arguments (`u`, `s`) are kept in URI form: an
/// existing escape such as `%20` is not encoded twice. Arguments render in the order
/// u, s, d, e, n, a, p, c, then unknown pairs as given.
///
/// Because a layer that encodes the whole string without encoding `%` makes a `%7C` inside a
/// value indistinguishable from a delimiter, prefer a typed context (``withContext(_:)``) for
/// anything but simple identifiers.
public struct OfficeInvokeURI: Sendable, Hashable {
    /// The Office app to launch; its ``OfficeApp/scheme`` starts the URI.
    public let app: OfficeApp
    /// What to do with the document (`ofv`, `ofe` or `nft`).
    public let command: OfficeCommand
    /// `|u|`: the direct link to the document (or template for `nft`), or the WOPISrc, in URI form.
    public let documentURL: String
    /// `|s|`: where `nft` saves the new document; on the template's host (§3.3).
    public let saveLocation: String?
    /// `|d|`: the WOPI service identifier (from_app.rst).
    public let service: String?
    /// `|e|`: the WOPI user identifier (from_app.rst).
    public let user: String?
    /// `|n|`: the file name with extension (from_app.rst).
    public let fileName: String?
    /// `|a|`: whether an app or a website launches Office (from_app.rst).
    public let source: InvocationSource?
    /// `|p|`: your app's scheme, without the colon; Office returns to it on the back arrow (seed 000).
    public let passbackScheme: String?
    /// `|c|`: the decoded document context Office hands back in the passback (seed 000).
    public let context: String?
    /// Unknown descriptor/argument pairs, in order (§1.6).
    public let extraArguments: [OfficeURIArgument]

    /// The descriptors this type models; others go to ``extraArguments``.
    public static let knownDescriptors: Set<String> = ["u", "s", "d", "e", "n", "a", "p", "c"]

    /// Creates and validates an invoke URI.
    ///
    /// - Throws: ``OfficeURLError`` naming the problem: a non-http(s) ``documentURL`` or
    ///   ``saveLocation``, a save location with a command other than `nft` or on another host,
    ///   `nft` for an app without it, an invalid passback scheme (RFC 3986 §3.1), a file name with
    ///   one of `\/:*?"<>|#{}^[]%` or the backtick, or an extra argument that reuses a known descriptor.
    public init(
        app: OfficeApp,
        command: OfficeCommand = .edit,
        documentURL: String,
        saveLocation: String? = nil,
        service: String? = nil,
        user: String? = nil,
        fileName: String? = nil,
        source: InvocationSource? = nil,
        passbackScheme: String? = nil,
        context: String? = nil,
        extraArguments: [OfficeURIArgument] = []
    ) throws(OfficeURLError) {
        let url = ArgumentEncoding.normalizeURL(documentURL)
        guard let documentHost = ArgumentEncoding.httpHost(of: url) else { throw .unsupportedDocumentURL(documentURL) }
        if command == .newFromTemplate, !app.supportsNewFromTemplate { throw .newFromTemplateNotSupported(app) }
        var save: String?
        if let saveLocation {
            guard command == .newFromTemplate else { throw .saveLocationWithoutNewFromTemplate }
            let normalized = ArgumentEncoding.normalizeURL(saveLocation)
            guard let saveHost = ArgumentEncoding.httpHost(of: normalized) else { throw .unsupportedDocumentURL(saveLocation) }
            guard saveHost == documentHost else {
                throw .saveLocationOnAnotherHost(documentHost: documentHost, saveLocationHost: saveHost)
            }
            save = normalized
        }
        if let fileName { try FileNameRules.validate(fileName) }
        if let passbackScheme, !ArgumentEncoding.isValidScheme(passbackScheme) { throw .invalidScheme(passbackScheme) }
        for extra in extraArguments where Self.knownDescriptors.contains(extra.descriptor) {
            throw .reservedDescriptor(extra.descriptor)
        }
        self.app = app
        self.command = command
        self.documentURL = url
        self.saveLocation = save
        self.service = service
        self.user = user
        self.fileName = fileName
        self.source = source
        self.passbackScheme = passbackScheme
        self.context = context
        self.extraArguments = extraArguments
    }

    /// Parses an invoke URI in the raw form (`ms-word:ofe|u|…`), the fully percent-encoded form
    /// Foundation makes (`ms-word:ofe%7Cu%7Chttps%3A//…`), or the abbreviated form
    /// (`ms-word:https://…`, which means `ofv|u|<url>`, §1.4). Leading and trailing whitespace is ignored.
    ///
    /// - Throws: ``OfficeURLError`` naming the problem, for example an unknown scheme or command,
    ///   a missing `|u|`, or arguments after the abbreviated form.
    public init(string: String) throws(OfficeURLError) {
        let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
        let (scheme, rest) = try ArgumentEncoding.splitScheme(trimmed)
        guard let app = OfficeApp(scheme: scheme) else { throw .unknownScheme(scheme) }
        let raw = try ArgumentList.rawRemainder(rest)
        let head = raw.prefix { $0 != "|" }
        guard let command = OfficeCommand(rawValue: head.lowercased()) else {
            if head.isEmpty { throw raw.isEmpty ? .missingDocumentURL : .unknownCommand(String(head)) }
            if head.contains(":") {
                // Abbreviated form: the URL alone, nothing after it.
                if let bar = raw.firstIndex(of: "|") { throw .argumentsAfterAbbreviatedForm(String(raw[bar...])) }
                try self.init(app: app, command: .view, documentURL: raw)
                return
            }
            throw .unknownCommand(String(head))
        }
        let list = try ArgumentList(raw: raw)
        let (known, extra) = try list.sorted(known: Self.knownDescriptors)
        guard let url = known["u"] else { throw .missingDocumentURL }
        var source: InvocationSource?
        if let a = known["a"] {
            let decoded = ArgumentEncoding.decodeText(a)
            guard let parsed = InvocationSource(name: decoded) else { throw .invalidSource(decoded) }
            source = parsed
        }
        try self.init(
            app: app,
            command: command,
            documentURL: url,
            saveLocation: known["s"],
            service: known["d"].map(ArgumentEncoding.decodeText),
            user: known["e"].map(ArgumentEncoding.decodeText),
            fileName: known["n"].map(ArgumentEncoding.decodeText),
            source: source,
            passbackScheme: known["p"].map(ArgumentEncoding.decodeText),
            context: known["c"].map(ArgumentEncoding.decodeText),
            extraArguments: extra
        )
    }

    /// Parses the `URL` an app received or built; same rules as ``init(string:)``.
    public init(url: URL) throws(OfficeURLError) {
        try self.init(string: url.absoluteString)
    }

    /// The specification's form, with raw `|` delimiters, for example
    /// `ms-word:ofe|u|https://contoso/Q4/budget.docx|p|clouddrive|c|folderviewQ4`.
    /// Show it, log it, or put it in a web page's link; hand ``url`` to `UIApplication.open`.
    public var string: String {
        "\(app.scheme):\(remainder)"
    }

    /// The fully percent-encoded form, what `URL(string: string)` gives on iOS 17+: `|` as `%7C`,
    /// `%` as `%25`, the `:` of `https:` as `%3A`. Unlike Foundation it also encodes `%` in a
    /// query or fragment that is otherwise valid, so decoding it once always restores ``string``.
    public var percentEncodedString: String {
        "\(app.scheme):\(ArgumentEncoding.foundationEncodedRemainder(remainder))"
    }

    /// The `URL` to pass to `UIApplication.open(_:)`, built from ``percentEncodedString`` so that
    /// it exists on every iOS version (before iOS 17 `URL(string:)` rejects a raw `|`).
    public var url: URL {
        // The percent-encoded form holds only characters valid in a URI, so Foundation accepts it.
        guard let url = URL(string: percentEncodedString) else {
            preconditionFailure("percent-encoded Office URI rejected by Foundation: \(percentEncodedString)")
        }
        return url
    }

    /// Length limits this URI exceeds (Office URI Schemes §1.7: 256 characters, Excel 216).
    /// Office may still open it, so these are warnings rather than errors.
    public var warnings: [OfficeURLWarning] {
        var found: [OfficeURLWarning] = []
        for (descriptor, value) in [("u", documentURL), ("s", saveLocation)] {
            guard let value else { continue }
            let length = ArgumentEncoding.decodeText(value).count
            if length > app.maximumDocumentURLLength {
                found.append(.urlTooLong(descriptor: descriptor, length: length, limit: app.maximumDocumentURLLength, app: app))
            }
        }
        return found
    }

    /// The same URI with a typed document context: `value` is encoded as JSON, then base64url,
    /// so it contains no `|`, `%`, `&` or `=` and survives any encoding layer between your app and
    /// Office. Read it back with ``OfficePassback/decodeContext(as:)``.
    ///
    /// - Throws: ``OfficeURLError/invalidDocumentContext(_:)`` when `value` cannot be encoded.
    public func withContext<Context: Encodable>(_ value: Context) throws(OfficeURLError) -> OfficeInvokeURI {
        try OfficeInvokeURI(
            app: app, command: command, documentURL: documentURL, saveLocation: saveLocation,
            service: service, user: user, fileName: fileName, source: source,
            passbackScheme: passbackScheme, context: try DocumentContextCoder.encode(value),
            extraArguments: extraArguments
        )
    }

    /// The typed context set with ``withContext(_:)``, decoded.
    ///
    /// - Throws: ``OfficeURLError/invalidDocumentContext(_:)`` when there is no context or it does not decode.
    public func decodeContext<Context: Decodable>(as type: Context.Type) throws(OfficeURLError) -> Context {
        guard let context else { throw .invalidDocumentContext("the URI carries no '|c|' context") }
        return try DocumentContextCoder.decode(type, from: context)
    }

    private var remainder: String {
        var parts = [command.rawValue, "u", documentURL]
        if let saveLocation { parts += ["s", saveLocation] }
        if let service { parts += ["d", ArgumentEncoding.encodeText(service)] }
        if let user { parts += ["e", ArgumentEncoding.encodeText(user)] }
        if let fileName { parts += ["n", ArgumentEncoding.encodeText(fileName)] }
        if let source { parts += ["a", source.rawValue] }
        if let passbackScheme { parts += ["p", passbackScheme] }
        if let context { parts += ["c", ArgumentEncoding.encodeText(context)] }
        for extra in extraArguments { parts += [extra.descriptor, ArgumentEncoding.encodeText(extra.value)] }
        return parts.joined(separator: "|")
    }
}

extension OfficeInvokeURI: CustomStringConvertible {
    /// The specification's form, ``string``.
    public var description: String { string }
}
