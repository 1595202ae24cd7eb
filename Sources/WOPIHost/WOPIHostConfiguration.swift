import Foundation

/// How a WOPI host behaves: where it is reachable, how large files may be, how long tokens live.
public struct WOPIHostConfiguration: Sendable {
    /// The URL clients use to reach the host, without a trailing slash (e.g. `https://wopi.contoso.com`).
    /// WOPISrc values and every URL in a response are built from it, so it must be the external one
    /// when the host runs behind a TLS-terminating proxy.
    public var publicURL: URL
    /// The largest body PutFile, PutRelativeFile and CreateChildFile accept; larger ones get 413.
    public var maximumFileSize: Int64
    /// How long a WOPI access token lives.
    public var accessTokenLifetime: TimeInterval
    /// The name shown as `BreadcrumbBrandName`.
    public var brandName: String
    /// How long a replaced or deleted body stays on disk before it is removed. A GetFile that read
    /// the file's record just before the change opens the old body within this window, and an open
    /// file stays readable after it is unlinked, so no download is cut short by a concurrent write.
    public var retiredBodyGracePeriod: Duration = .seconds(30)
    /// How long a GetShareUrl link works.
    public var shareLinkLifetime: TimeInterval = 7 * 24 * 3600
    /// The clock; tests move it.
    public var now: @Sendable () -> Date
    /// Settings of the products built on the host, each under a key of its own (the `WOPIAuthorization` product keeps
    /// its Office registration, sign-in policy and OpenID Connect sign-in here); the host itself reads none of them.
    package var productSettings: [ObjectIdentifier: any Sendable] = [:]
    /// Metrics and audit log; off by default.
    public var monitor = HostMonitor()
    /// How many replaced bodies each file keeps as versions (`wopi serve --keep-versions`); 0 keeps none.
    public var keepVersions = 10
    /// The browser editors files open in (`wopi serve --wopi-client`): the host page at `/open/<id>`,
    /// their proof keys on `/wopi`, and the CheckFileInfo fields they need. `nil` when there are none.
    public var webClients: WebClients? = nil
    /// The largest request header field and block; larger ones get 431.
    public var headerLimits = HeaderLimits.standard

    /// Creates a configuration. Defaults: 512 MiB files, 10-hour tokens.
    public init(publicURL: URL, maximumFileSize: Int64 = 512 * 1024 * 1024, accessTokenLifetime: TimeInterval = 10 * 3600,
                brandName: String = "WOPIKit", now: @escaping @Sendable () -> Date = { Date() }) {
        var text = publicURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        self.publicURL = URL(string: text) ?? publicURL
        self.maximumFileSize = maximumFileSize
        self.accessTokenLifetime = accessTokenLifetime
        self.brandName = brandName
        self.now = now
    }
}
