import Foundation

/// One element under `<Validators>`.
public indirect enum ValidatorDefinition: Sendable, Hashable {
    /// `<And>`: every child must pass; all failures are reported.
    case and([ValidatorDefinition])
    /// `<Or>`: passes when any child passes; otherwise every child's failures are reported.
    case or([ValidatorDefinition])
    /// `<ResponseCodeValidator ExpectedCode=…/>`.
    case responseCode(Int)
    /// `<ResponseHeaderValidator …/>`.
    case responseHeader(ResponseHeaderCheck)
    /// `<JsonResponseContentValidator ShouldExist=…>` with its property checks.
    case jsonContent(shouldExist: Bool, properties: [JSONPropertyCheck])
    /// `<JsonSchemaValidator Schema=…/>`: the body must satisfy the named schema from `JsonSchemas/`.
    case jsonSchema(String)
    /// `<LockMismatchValidator ExpectedLock=…/>`: status 409 and, when `ExpectedLock` is non-empty, that
    /// `X-WOPI-Lock` value (an empty one is then not required).
    case lockMismatch(expectedLock: String?)
    /// `<ResponseContentValidator ExpectedResourceId=… | ExpectedBodyContent=…/>`: exact body bytes.
    case responseContent(resourceId: String?, expectedBody: String?)
    /// `<FramesValidator>`: incremental-file-transfer frames, kept verbatim and not evaluated by this runner.
    case frames(XMLNode)
}

/// The settings of a `<ResponseHeaderValidator>`.
public struct ResponseHeaderCheck: Sendable, Hashable {
    /// `Comparator=`; numeric comparisons parse both sides as 32-bit integers.
    public enum Comparator: String, Sendable, Hashable {
        /// `=`: the header value is equal to the expected one.
        case equal = "="
        /// `>`: the header value is greater than the expected one.
        case greater = ">"
        /// `<`: the header value is less than the expected one.
        case less = "<"
        /// `>=`: the header value is greater than or equal to the expected one.
        case greaterOrEqual = ">="
        /// `<=`: the header value is less than or equal to the expected one.
        case lessOrEqual = "<="
    }

    /// `Header=`, matched case-insensitively.
    public let header: String
    /// `ExpectedValue=`.
    public let expectedValue: String?
    /// `ExpectedStateKey=`: when that state is saved and non-empty it replaces `expectedValue`.
    public let expectedStateKey: String?
    /// `Comparator=` (default `=`); `nil` when the file names an unknown comparator, which then fails.
    public let comparator: Comparator?
    /// The comparator text as written, for the failure message.
    public let comparatorText: String
    /// `IsRequired=`: Microsoft's runner defaults it to false (the XSD's `true` default is not applied).
    public let isRequired: Bool
    /// `ShouldMatch=` (default true): false inverts an equality check.
    public let shouldMatch: Bool

    /// Creates a header check.
    public init(header: String, expectedValue: String? = nil, expectedStateKey: String? = nil, comparatorText: String = "=",
                isRequired: Bool = false, shouldMatch: Bool = true) {
        self.header = header
        self.expectedValue = expectedValue
        self.expectedStateKey = expectedStateKey
        let trimmed = comparatorText.trimmingCharacters(in: .whitespaces)
        self.comparatorText = trimmed.isEmpty ? "=" : comparatorText
        self.comparator = Comparator(rawValue: trimmed.isEmpty ? "=" : comparatorText)
        self.isRequired = isRequired
        self.shouldMatch = shouldMatch
    }
}

/// One property check inside `<JsonResponseContentValidator>`.
public struct JSONPropertyCheck: Sendable, Hashable {
    /// The element name, which decides how the value is compared.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The `BooleanProperty` element.
        case boolean = "BooleanProperty"
        /// The `IntegerProperty` element.
        case integer = "IntegerProperty"
        /// The `LongProperty` element.
        case long = "LongProperty"
        /// The `StringProperty` element.
        case string = "StringProperty"
        /// The `StringRegexProperty` element.
        case stringRegex = "StringRegexProperty"
        /// The `AbsoluteUrlProperty` element.
        case absoluteURL = "AbsoluteUrlProperty"
        /// The `ArrayProperty` element.
        case array = "ArrayProperty"
        /// The `ResponseBodyProperty` element.
        case responseBody = "ResponseBodyProperty"
        /// The `ArrayLengthProperty` element.
        case arrayLength = "ArrayLengthProperty"
    }

    /// The element kind.
    public let kind: Kind
    /// `Name=`: a JSON path into the body.
    public let name: String
    /// `IsRequired=` (default false).
    public let isRequired: Bool
    /// `ExpectedValue=` (a regular expression for ``Kind/stringRegex``, JSON for ``Kind/responseBody``).
    public let expectedValue: String?
    /// `EndsWith=` for strings.
    public let endsWith: String?
    /// `ExpectedStateKey=`.
    public let expectedStateKey: String?
    /// `ContainsValue=` for arrays.
    public let containsValue: String?
    /// `ShouldMatch=` for regular expressions (default true).
    public let shouldMatch: Bool
    /// `MustIncludeAccessToken=` for URLs.
    public let mustIncludeAccessToken: Bool
    /// `IgnoreCase=` for strings and regular expressions.
    public let ignoreCase: Bool

    /// Creates a property check.
    public init(kind: Kind, name: String, isRequired: Bool = false, expectedValue: String? = nil, endsWith: String? = nil,
                expectedStateKey: String? = nil, containsValue: String? = nil, shouldMatch: Bool = true,
                mustIncludeAccessToken: Bool = false, ignoreCase: Bool = false) {
        self.kind = kind
        self.name = name
        self.isRequired = isRequired
        self.expectedValue = expectedValue
        self.endsWith = endsWith
        self.expectedStateKey = expectedStateKey
        self.containsValue = containsValue
        self.shouldMatch = shouldMatch
        self.mustIncludeAccessToken = mustIncludeAccessToken
        self.ignoreCase = ignoreCase
    }
}
