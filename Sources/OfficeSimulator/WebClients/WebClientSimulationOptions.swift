import Foundation
import WOPIHTTPClient

/// What one simulated browser-editor session needs: which client, the file, and how the editor
/// gets its access token: given, or read from the host page's form as a browser posts it.
public struct WebClientSimulationOptions: Sendable {
    /// The client to play.
    public var client: WebClientProfile
    /// The file's WOPISrc; `nil` only with ``hostPage``, whose form names it.
    public var wopiSrc: URL?
    /// A WOPI access token for the file; `nil` only with ``hostPage``, whose form carries one.
    public var accessToken: String?
    /// The host page that opens the file (`…/open/<id>?action=edit`): read as a browser reads it,
    /// its form's action URL must carry the WOPISrc and its fields the token and its expiry.
    public var hostPage: URL?
    /// The `Cookie` header a signed-in browser sends with the host page request, if it needs one.
    public var hostPageCookie: String?
    /// The content the final save writes; `nil` makes a deterministic change (``ContentEdit``).
    public var replacementContent: Data?
    /// Whether the file gets its content back after the session, as ``SimulationOptions/putsContentBack``
    /// says; `false` keeps what the editor saved.
    public var putsContentBack: Bool

    /// Creates options.
    public init(client: WebClientProfile, wopiSrc: URL? = nil, accessToken: String? = nil, hostPage: URL? = nil,
                hostPageCookie: String? = nil, replacementContent: Data? = nil, putsContentBack: Bool = false) {
        self.client = client
        self.wopiSrc = wopiSrc
        self.accessToken = accessToken
        self.hostPage = hostPage
        self.hostPageCookie = hostPageCookie
        self.replacementContent = replacementContent
        self.putsContentBack = putsContentBack
    }
}
