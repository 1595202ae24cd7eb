/// The WOPI file a run is aimed at: its WOPISrc and an access token for it (PROTOCOL §4).
///
/// The file's name must end in `.wopitest` (the prereq case checks `BaseFileName`), and the token's user must be
/// allowed to write it. Tests create, rename and delete other files next to it.
public struct ConformanceTarget: Sendable, Hashable {
    /// The file's WOPISrc URL, e.g. `http://127.0.0.1:8080/wopi/files/42`.
    public let wopiSrc: String
    /// The access token sent as `?access_token=` and `Authorization: Bearer`.
    public let accessToken: String
    /// `access_token_ttl`: the token's expiry in milliseconds since the Unix epoch (0 when unknown).
    public let accessTokenTTL: Int64

    /// Creates a target; throws when the URL is not an absolute http(s) URL or the token is empty.
    public init(wopiSrc: String, accessToken: String, accessTokenTTL: Int64 = 0) throws(TargetError) {
        let lowered = wopiSrc.lowercased()
        guard (lowered.hasPrefix("http://") || lowered.hasPrefix("https://")), AbsoluteURI.isAbsolute(wopiSrc) else {
            throw TargetError(reason: "WOPISrc '\(wopiSrc)' is not an absolute http(s) URL")
        }
        guard !accessToken.isEmpty else { throw TargetError(reason: "the access token is empty") }
        guard accessTokenTTL >= 0 else { throw TargetError(reason: "access_token_ttl \(accessTokenTTL) is negative") }
        self.wopiSrc = wopiSrc
        self.accessToken = accessToken
        self.accessTokenTTL = accessTokenTTL
    }

    /// Why a target was rejected.
    public struct TargetError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong.
        public let reason: String
        /// The reason.
        public var description: String { reason }
    }
}
