import Foundation
import Hummingbird
import HTTPTypes

/// The server-rendered pages of `/oauth2/authorize`: sign-in, consent, and the error page shown
/// instead of redirecting when the client or redirect URI cannot be trusted (RFC 6749 §4.1.2.1).
///
/// Each page fits a phone screen (viewport meta, one column), has at most one form, and keeps
/// itself out of frames and caches; the templates escape every value.
struct SignInPage: Sendable {
    /// Which page.
    enum Kind: Sendable {
        /// The sign-in form; `error` is shown above it.
        case signIn(username: String, error: String?)
        /// The consent question for `client`, asked of `user`.
        case consent(client: String, user: String)
        /// An error without a form: the message (already localized) and an optional detail.
        case error(message: String, detail: String?)
    }

    var kind: Kind
    var language: PageLanguage
    /// The service name (`WOPIHostConfiguration.brandName`).
    var brand: String
    /// Where the form posts to.
    var action: String
    /// Hidden fields sent back unchanged: the authorization request, the CSRF token, the consent ticket.
    var hiddenFields: [(String, String)]
    /// The "Sign in with …" button of the sign-in form, when the host has an OpenID Connect provider.
    var provider: ProviderButton? = nil
    /// Whether the sign-in form shows the password fields (not with `--oidc-only`).
    var showsPassword = true

    /// The page as a response with `status`, the host's security headers, and `extraHeaders` (a CSRF cookie).
    func response(status: HTTPResponse.Status = .ok, extraHeaders: HTTPFields = [:]) throws -> Response {
        let strings = language.strings
        func hidden(step: String) -> [HiddenField] {
            (hiddenFields + [("step", step)]).map { HiddenField(name: $0.0, value: $0.1) }
        }
        func frame(_ title: String) -> PageLayout { PageLayout(language: language.rawValue, title: "\(title) · \(brand)") }
        // The forms end in a redirect to the client, which `form-action 'self'` would block.
        switch kind {
        case .signIn(let username, let error):
            let form = SignInForm(strings: strings, heading: PageText.fill(strings.signInHeading, brand), error: error, action: action,
                                  hidden: hidden(step: "signin"), username: username, provider: provider, showsPassword: showsPassword)
            return try frame(strings.signInTitle).response("signin", form, status: status, extraHeaders: extraHeaders, formsRedirectAway: true)
        case .consent(let client, let user):
            let form = ConsentForm(strings: strings, question: PageText.fill(strings.consentQuestion, client),
                                   signedInAs: PageText.fill(strings.signedInAs, user), action: action, hidden: hidden(step: "consent"))
            return try frame(strings.consentTitle).response("consent", form, status: status, extraHeaders: extraHeaders, formsRedirectAway: true)
        case .error(let message, let detail):
            let page = AuthorizationErrorPage(strings: strings, message: message, detail: detail)
            return try frame(strings.errorTitle).response("authorize-error", page, status: status, extraHeaders: extraHeaders,
                                                          formsRedirectAway: true)
        }
    }
}

/// The sign-in form of the web front and of `/oauth2/authorize` (`signin.mustache`).
struct SignInForm: Sendable {
    var strings: SignInStrings
    /// "Sign in to …", filled.
    var heading: String
    var error: String?
    var action: String
    /// The CSRF token and, for OAuth, the authorization request.
    var hidden: [HiddenField]
    /// The name typed before, shown again after a refusal.
    var username: String
    /// "Sign in with …", when the host has an OpenID Connect provider.
    var provider: ProviderButton? = nil
    /// Whether the password fields show.
    var showsPassword = true
}

/// The link that starts a sign-in at the OpenID Connect provider.
struct ProviderButton: Sendable {
    /// "Sign in with …", filled with the provider's name.
    var label: String
    /// The host's start of the sign-in (`/signin/oidc…`).
    var href: String
}

/// A form field sent back unchanged.
struct HiddenField: Sendable {
    var name: String
    var value: String
}

/// The consent question (`consent.mustache`).
struct ConsentForm: Sendable {
    var strings: SignInStrings
    /// "… wants to …", filled with the client's name.
    var question: String
    /// "Signed in as …", filled.
    var signedInAs: String
    var action: String
    var hidden: [HiddenField]
}

/// The OAuth error page (`authorize-error.mustache`).
struct AuthorizationErrorPage: Sendable {
    var strings: SignInStrings
    var message: String
    var detail: String?
}
