import Foundation
import WOPIHost

/// A validated OAuth 2.0 authorization request (RFC 6749 §4.1.1, plus Office's `rs`, `build`,
/// `platform` from oauthparams.rst and PKCE from RFC 7636 §4.3).
///
/// The sign-in and consent forms carry its parameters as hidden fields and every POST validates
/// them again, so a tampered field is no more than a new request.
struct AuthorizationRequest: Sendable {
    /// Why a request cannot go on, and how to say so.
    enum Refusal: Error, Sendable {
        /// Shown as a page, never redirected: the client or redirect URI cannot be trusted (RFC 6749 §4.1.2.1).
        case page(message: SignInStrings.Message, detail: String?)
        /// Redirected to the client with RFC 6749 §4.1.2.1 error parameters.
        case redirect(error: String, description: String)
    }

    var client: OAuthClient
    /// The registered redirect URI the answer goes to.
    var redirectURI: String
    /// Whether `redirect_uri` was in the request (the token request must then repeat it).
    var redirectURIGiven: Bool
    var state: String?
    var scope: String
    var codeChallenge: String?
    /// The parameters to send back through the form, names lower-cased.
    var carriedFields: [(String, String)]

    /// The parameters the forms carry, in this order.
    static let carriedNames = ["client_id", "redirect_uri", "response_type", "scope", "state", "code_challenge",
                               "code_challenge_method", "rs", "build", "platform"]

    /// Validates `fields` against the registered `clients`.
    ///
    /// Client and redirect URI are checked first; only once both are trusted does a refusal
    /// become a redirect. `state` is kept for the redirect whatever else is wrong.
    init(_ fields: FormFields, clients: [OAuthClient]) throws(Refusal) {
        guard let clientID = fields.nonEmpty("client_id") else { throw .page(message: .badRequest, detail: "client_id is missing.") }
        guard let client = clients.first(where: { $0.id == clientID }) else { throw .page(message: .unknownClient, detail: nil) }
        let redirect: String
        if let given = fields.nonEmpty("redirect_uri") {
            guard let registered = client.registeredRedirect(matching: given) else { throw .page(message: .redirectMismatch, detail: nil) }
            redirect = registered
        } else {
            // RFC 6749 §3.1.2.3: may be omitted only when exactly one is registered.
            guard client.redirectURIs.count == 1, let only = client.redirectURIs.first else {
                throw .page(message: .badRequest, detail: "redirect_uri is missing.")
            }
            redirect = only
        }
        self.client = client
        self.redirectURI = redirect
        self.redirectURIGiven = fields.nonEmpty("redirect_uri") != nil
        self.state = fields["state"]
        self.scope = fields["scope"] ?? ""
        self.carriedFields = Self.carriedNames.compactMap { name in fields[name].map { (name, $0) } }

        guard let responseType = fields.nonEmpty("response_type") else {
            throw .redirect(error: "invalid_request", description: "response_type is missing")
        }
        guard responseType == "code" else {
            throw .redirect(error: "unsupported_response_type", description: "only response_type=code is supported")
        }
        if let challenge = fields.nonEmpty("code_challenge") {
            guard fields.nonEmpty("code_challenge_method") == "S256" else {
                throw .redirect(error: "invalid_request", description: "code_challenge_method must be S256")
            }
            guard PKCE.isValidChallenge(challenge) else {
                throw .redirect(error: "invalid_request", description: "code_challenge is not a base64url SHA-256 digest")
            }
            codeChallenge = challenge
        } else if client.requiresPKCE {
            throw .redirect(error: "invalid_request", description: "this client must send a PKCE S256 code_challenge")
        }
    }

    /// Where a refusal goes once the redirect URI is trusted: `redirect_uri?error=…&error_description=…&state=…`.
    func errorRedirect(_ error: String, _ description: String) -> String {
        RedirectURI.appending([("error", error), ("error_description", OAuthErrorResponse.safeDescription(description)), ("state", state)],
                              to: redirectURI)
    }

    /// A digest of what the consent ticket must match: the client, redirect, scope, state, challenge.
    var fingerprint: SecretDigest {
        SecretDigest(of: [client.id, redirectURI, redirectURIGiven ? "1" : "0", scope, state ?? "\u{0}", codeChallenge ?? ""]
            .map { "\($0.utf8.count):\($0)" }.joined())
    }
}
