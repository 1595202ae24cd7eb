import WOPIHost

extension WOPIHostConfiguration {
    /// Office's sign-in registration; with it the host serves `/oauth2/*` and `/wopibootstrapper`
    /// (``AuthorizationServer``, through ``AuthorizationRoutes``). `nil` turns sign-in off.
    public var officeRegistration: OfficeRegistration? {
        get { productSettings[ObjectIdentifier(OfficeRegistration.self)] as? OfficeRegistration }
        set { productSettings[ObjectIdentifier(OfficeRegistration.self)] = newValue }
    }

    /// Sign-in through the operator's OpenID Connect provider, beside or instead of passwords; `nil` for passwords only.
    /// Needs a store that is an `IdentityLinkStore` (SQLite and PostgreSQL are).
    public var openIDSignIn: OpenIDSignIn? {
        get { productSettings[ObjectIdentifier(OpenIDSignIn.self)] as? OpenIDSignIn }
        set { productSettings[ObjectIdentifier(OpenIDSignIn.self)] = newValue }
    }

    /// Lifetimes and limits of sign-in: codes, OAuth tokens, failed passwords.
    public var authorizationPolicy: AuthorizationPolicy {
        get { productSettings[ObjectIdentifier(AuthorizationPolicy.self)] as? AuthorizationPolicy ?? AuthorizationPolicy() }
        set { productSettings[ObjectIdentifier(AuthorizationPolicy.self)] = newValue }
    }
}
