import Foundation

/// What Office opens when the user taps the back arrow:
/// `<passback scheme>:ofe|u|<url>|z|<yes|no>|c|<context>` (seed 000, "Return users to the
/// referring application"). Office sends it only if the document opened successfully.
///
/// Your app receives it as a `URL`, usually in Foundation's fully percent-encoded form
/// (`clouddrive:ofe%7Cu%7Chttps%3A//…`); ``init(url:)`` reads that as well as the raw form.
///
/// ```swift
/// func scene(_ scene: UIScene, openURLContexts contexts: Set<UIOpenURLContext>) {
///     guard let url = contexts.first?.url, let back = try? OfficePassback(url: url) else { return }
///     showFolder(try back.decodeContext(as: FolderState.self))
/// }
/// ```
public struct OfficePassback: Sendable, Hashable {
    /// Your app's scheme, the `|p|` of the invoke URI.
    public let scheme: String
    /// The command Office reports; `ofe` in practice.
    public let command: OfficeCommand
    /// `|u|`: the document URL, in URI form.
    public let documentURL: String
    /// `|z|`: whether Office still has changes to upload (`yes`), `nil` when absent.
    public let uploadPending: Bool?
    /// `|c|`: the decoded document context from the invoke URI.
    public let context: String?
    /// Unknown descriptor/argument pairs, in order.
    public let extraArguments: [OfficeURIArgument]

    /// The descriptors this type models; others go to ``extraArguments``.
    public static let knownDescriptors: Set<String> = ["u", "z", "c"]

    /// Creates and validates a passback, as Office (or a simulator of it) builds one.
    ///
    /// - Throws: ``OfficeURLError/invalidScheme(_:)``, ``OfficeURLError/unsupportedDocumentURL(_:)``
    ///   or ``OfficeURLError/reservedDescriptor(_:)``.
    public init(
        scheme: String,
        command: OfficeCommand = .edit,
        documentURL: String,
        uploadPending: Bool? = nil,
        context: String? = nil,
        extraArguments: [OfficeURIArgument] = []
    ) throws(OfficeURLError) {
        guard ArgumentEncoding.isValidScheme(scheme) else { throw .invalidScheme(scheme) }
        let url = ArgumentEncoding.normalizeURL(documentURL)
        guard ArgumentEncoding.httpHost(of: url) != nil else { throw .unsupportedDocumentURL(documentURL) }
        for extra in extraArguments where Self.knownDescriptors.contains(extra.descriptor) {
            throw .reservedDescriptor(extra.descriptor)
        }
        self.scheme = scheme
        self.command = command
        self.documentURL = url
        self.uploadPending = uploadPending
        self.context = context
        self.extraArguments = extraArguments
    }

    /// The passback Office sends for an invoke URI: same document and context, to its `|p|` scheme.
    ///
    /// - Returns: `nil` when the invoke URI has no passback scheme (Office then does not return).
    public init?(returningFrom invoke: OfficeInvokeURI, uploadPending: Bool) {
        guard let scheme = invoke.passbackScheme,
              let passback = try? OfficePassback(scheme: scheme, command: .edit, documentURL: invoke.documentURL,
                                                 uploadPending: uploadPending, context: invoke.context)
        else { return nil }
        self = passback
    }

    /// Parses a passback in the raw or the fully percent-encoded form; whitespace around it is ignored.
    ///
    /// - Throws: ``OfficeURLError`` naming the problem, for example a missing `|u|` or a `|z|`
    ///   that is neither `yes` nor `no`.
    public init(string: String) throws(OfficeURLError) {
        let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
        let (scheme, rest) = try ArgumentEncoding.splitScheme(trimmed)
        let raw = try ArgumentList.rawRemainder(rest)
        let head = raw.prefix { $0 != "|" }
        guard let command = OfficeCommand(rawValue: head.lowercased()) else {
            throw head.isEmpty && raw.isEmpty ? .missingDocumentURL : .unknownCommand(String(head))
        }
        let (known, extra) = try ArgumentList(raw: raw).sorted(known: Self.knownDescriptors)
        guard let url = known["u"] else { throw .missingDocumentURL }
        var pending: Bool?
        if let z = known["z"] {
            switch ArgumentEncoding.decodeText(z).lowercased() {
            case "yes": pending = true
            case "no": pending = false
            default: throw .invalidUploadPending(ArgumentEncoding.decodeText(z))
            }
        }
        try self.init(scheme: scheme, command: command, documentURL: url, uploadPending: pending,
                      context: known["c"].map(ArgumentEncoding.decodeText), extraArguments: extra)
    }

    /// Parses the `URL` your app was opened with; same rules as ``init(string:)``.
    public init(url: URL) throws(OfficeURLError) {
        try self.init(string: url.absoluteString)
    }

    /// The raw form, for example `clouddrive:ofe|u|https://contoso/Q4/budget.docx|z|no|c|folderviewQ4`.
    public var string: String { "\(scheme):\(remainder)" }

    /// The fully percent-encoded form, what `URL(string: string)` gives on iOS 17+ (every `%` encoded, see
    /// ``OfficeInvokeURI/percentEncodedString``).
    public var percentEncodedString: String {
        "\(scheme):\(ArgumentEncoding.foundationEncodedRemainder(remainder))"
    }

    /// The `URL` Office would open, built from ``percentEncodedString``.
    public var url: URL {
        // Only URI-valid characters remain after encoding, so Foundation accepts it.
        guard let url = URL(string: percentEncodedString) else {
            preconditionFailure("percent-encoded passback rejected by Foundation: \(percentEncodedString)")
        }
        return url
    }

    /// Decodes a context written by ``OfficeInvokeURI/withContext(_:)``.
    ///
    /// - Throws: ``OfficeURLError/invalidDocumentContext(_:)`` when there is no context or it does not decode.
    public func decodeContext<Context: Decodable>(as type: Context.Type) throws(OfficeURLError) -> Context {
        guard let context else { throw .invalidDocumentContext("the passback carries no '|c|' context") }
        return try DocumentContextCoder.decode(type, from: context)
    }

    private var remainder: String {
        var parts = [command.rawValue, "u", documentURL]
        if let uploadPending { parts += ["z", uploadPending ? "yes" : "no"] }
        if let context { parts += ["c", ArgumentEncoding.encodeText(context)] }
        for extra in extraArguments { parts += [extra.descriptor, ArgumentEncoding.encodeText(extra.value)] }
        return parts.joined(separator: "|")
    }
}

extension OfficePassback: CustomStringConvertible {
    /// The raw form, ``string``.
    public var description: String { string }
}
