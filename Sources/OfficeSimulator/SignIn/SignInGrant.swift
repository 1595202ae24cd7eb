/// What a finished sign-in gives Office: the authorization code and the optional `tk` token
/// endpoint override and `sc` session context (specifytokenissuance.rst, sessioncontext.rst).
struct SignInGrant: Sendable, Hashable {
    var code: String
    var tokenEndpoint: String?
    var sessionContext: String?
    /// The `redirect_uri` of the authorization request, repeated on the token request (RFC 6749 §4.1.3);
    /// `nil` for app-to-app sign-in, whose request has none.
    var redirectURI: String?
}
