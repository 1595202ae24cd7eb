import Hummingbird
import WOPICore

/// The name a create operation asks for (PutRelativeFile, CreateChildFile, CreateChildContainer):
/// `X-WOPI-SuggestedTarget` lets the host adjust it, `X-WOPI-RelativeTarget` must be used exactly.
/// The two are mutually exclusive; both headers arrive UTF-7 encoded.
enum RequestedTarget {
    /// Suggested mode: a full name, or (for files) an extension starting with `.`.
    case suggested(String)
    /// Specific mode: this name or a refusal.
    case exact(String)

    /// Reads and decodes the target headers; 400 when neither is present, 501 when both are
    /// (CreateChildFile.rst and CreateChildContainer.rst ask for 501).
    init(_ request: Request, operation: String) throws {
        switch (try request.headers.single(.wopiSuggestedTarget), try request.headers.single(.wopiRelativeTarget)) {
        case (let suggested?, nil): self = .suggested(try NameRules.decodeHeader(suggested))
        case (nil, let relative?): self = .exact(try NameRules.decodeHeader(relative))
        case (nil, nil): throw WOPIError.badRequest("\(operation) needs X-WOPI-SuggestedTarget or X-WOPI-RelativeTarget")
        case (_?, _?): throw WOPIError.notImplemented("X-WOPI-SuggestedTarget and X-WOPI-RelativeTarget are mutually exclusive")
        }
    }

    /// Whether the host may change the name (suggested mode).
    var isSuggested: Bool {
        if case .suggested = self { true } else { false }
    }
}
