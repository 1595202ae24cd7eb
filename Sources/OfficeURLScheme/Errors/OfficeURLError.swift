/// Why an Office URI, passback, sign-in URL or bootstrapper challenge was rejected.
///
/// Every case carries the offending value, and ``description`` names the problem in one line,
/// so it can be shown to a developer or printed by a command-line tool as it is.
public enum OfficeURLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The string has no `scheme:` prefix.
    case missingScheme(String)
    /// The scheme is not one of ``OfficeApp``'s schemes (Office URI Schemes §2).
    case unknownScheme(String)
    /// The command is not `ofv`, `ofe` or `nft` (Office URI Schemes §3).
    case unknownCommand(String)
    /// The `|u|` argument is missing.
    case missingDocumentURL
    /// The document URL or save location is not an absolute `http`/`https` URL with a host.
    case unsupportedDocumentURL(String)
    /// The abbreviated form (`ms-word:https://…`) was followed by `|` arguments (Office URI Schemes §1.4).
    case argumentsAfterAbbreviatedForm(String)
    /// An `nft` save location (`|s|`) is on another host than the template (Office URI Schemes §3.3).
    case saveLocationOnAnotherHost(documentHost: String, saveLocationHost: String)
    /// A save location (`|s|`) was given with a command other than `nft`.
    case saveLocationWithoutNewFromTemplate
    /// The app does not support `nft` (SharePoint Designer, InfoPath).
    case newFromTemplateNotSupported(OfficeApp)
    /// A scheme (passback, sign-in, Office return) does not follow RFC 3986 §3.1:
    /// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
    case invalidScheme(String)
    /// A file name contains a character Office and WOPI hosts reject (invalidcharacters.rst).
    case invalidFileName(String, character: Character)
    /// A file name is empty.
    case emptyFileName
    /// A descriptor is not 1 or more of `A-Z a-z 0-9 . _ ~ -`.
    case invalidDescriptor(String)
    /// An extra argument uses a descriptor the type models itself (for example `u`).
    case reservedDescriptor(String)
    /// The same descriptor or parameter appears twice.
    case duplicateArgument(String)
    /// A descriptor is the last item, with no argument after it.
    case missingArgumentValue(descriptor: String)
    /// The `|a|` source is neither `App` nor `Web`.
    case invalidSource(String)
    /// The passback's `|z|` is neither `yes` nor `no`.
    case invalidUploadPending(String)
    /// A percent-encoded form does not decode to UTF-8.
    case malformedPercentEncoding(String)
    /// A required sign-in or challenge parameter is missing.
    case missingParameter(String)
    /// A sign-in parameter is not `name=value`.
    case malformedParameter(String)
    /// A sign-in response carries both `code` and `error`, so it is neither a success nor a failure.
    case conflictingSignInResult
    /// The sign-in request names no Office app with a return scheme (`app=word|excel|powerpoint|officemobile`).
    case unknownSignInApp(String?)
    /// A typed document context could not be encoded or decoded.
    case invalidDocumentContext(String)
    /// A `WWW-Authenticate` value is not a valid bootstrapper challenge.
    case invalidChallenge(String)
    /// The string is none of the formats this library reads.
    case unrecognizedURL(String)

    /// One line that names the problem and the offending value.
    public var description: String {
        switch self {
        case .missingScheme(let s):
            "'\(Self.clip(s))' has no scheme: expected '<scheme>:…'"
        case .unknownScheme(let s):
            "unknown Office scheme '\(Self.clip(s))' (expected one of \(OfficeApp.allCases.map(\.scheme).joined(separator: ", ")))"
        case .unknownCommand(let c):
            "unknown command '\(Self.clip(c))' (expected ofv, ofe or nft)"
        case .missingDocumentURL:
            "the document URL argument '|u|' is missing"
        case .unsupportedDocumentURL(let u):
            "'\(Self.clip(u))' is not an absolute http or https URL"
        case .argumentsAfterAbbreviatedForm(let rest):
            "the abbreviated form '<scheme>:<url>' allows no further arguments, found '\(Self.clip(rest))'"
        case .saveLocationOnAnotherHost(let documentHost, let saveHost):
            "the save location is on host '\(saveHost)' but the template is on '\(documentHost)'; nft needs the same host"
        case .saveLocationWithoutNewFromTemplate:
            "a save location '|s|' is only allowed with the nft (new from template) command"
        case .newFromTemplateNotSupported(let app):
            "\(app.scheme) does not support the nft (new from template) command"
        case .invalidScheme(let s):
            "'\(Self.clip(s))' is not a valid URI scheme (RFC 3986: a letter, then letters, digits, '+', '-' or '.')"
        case .invalidFileName(let name, let c):
            "file name '\(Self.clip(name))' contains '\(c)', which Office does not allow (\\ / : * ? \" < > | # { } ^ [ ] ` %)"
        case .emptyFileName:
            "the file name is empty"
        case .invalidDescriptor(let d):
            "'\(Self.clip(d))' is not a valid descriptor (letters, digits, '.', '_', '~', '-')"
        case .reservedDescriptor(let d):
            "descriptor '\(d)' has its own property and cannot be an extra argument"
        case .duplicateArgument(let d):
            "'\(Self.clip(d))' appears more than once"
        case .missingArgumentValue(let d):
            "descriptor '\(Self.clip(d))' has no argument after it"
        case .invalidSource(let s):
            "source '\(Self.clip(s))' is neither App nor Web"
        case .invalidUploadPending(let z):
            "upload-pending flag '|z|\(Self.clip(z))' is neither yes nor no"
        case .malformedPercentEncoding(let s):
            "'\(Self.clip(s))' is not valid percent-encoded UTF-8"
        case .missingParameter(let p):
            "required parameter '\(p)' is missing"
        case .malformedParameter(let p):
            "parameter '\(Self.clip(p))' is not name=value"
        case .conflictingSignInResult:
            "a sign-in response carries both 'code' and 'error'"
        case .unknownSignInApp(let app):
            "sign-in request names no known Office app (app=\(app.map { "'\(Self.clip($0))'" } ?? "missing"); expected word, excel, powerpoint or officemobile)"
        case .invalidDocumentContext(let why):
            "document context: \(why)"
        case .invalidChallenge(let why):
            "not a bootstrapper challenge: \(why)"
        case .unrecognizedURL(let s):
            "'\(Self.clip(s))' is not an Office invoke URI, passback, or app-to-app sign-in URL"
        }
    }

    /// Keeps messages to one readable line whatever the input: control characters are escaped
    /// and long values shortened.
    static func clip(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            if scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}" {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out.count > 120 ? String(out.prefix(117)) + "..." : out
    }
}
