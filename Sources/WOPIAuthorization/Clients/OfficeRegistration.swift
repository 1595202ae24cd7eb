import Foundation
import OfficeURLScheme
import WOPIHost

/// How a storage provider is registered with Microsoft for Office sign-in (native/src/identity/,
/// PROTOCOL.md §3): the OAuth 2.0 client Office uses, and what the bootstrapper's 401 challenge
/// advertises.
///
/// Holds the client secret only as its SHA-256 digest.
public struct OfficeRegistration: Sendable, Hashable {
    /// The redirect URI Office registers by default.
    public static let defaultRedirectURI = "https://localhost"

    /// `client_id` Office sends (RFC 6749 §2.2).
    public let clientID: String
    /// The digest of Office's client secret (RFC 6749 §2.3.1).
    public let clientSecretDigest: SecretDigest
    /// The redirect URI registered for Office, `https://localhost` unless told otherwise.
    public let redirectURI: String
    /// `providerId` in the challenge, if Microsoft assigned one.
    public let providerID: String?
    /// The iOS URL schemes of the provider's app, in the order Office should try them (`UrlSchemes`).
    public let iOSURLSchemes: [String]

    /// Creates a registration from a plain-text secret, which it digests and forgets.
    ///
    /// - Throws: ``OfficeRegistrationError`` naming the value that cannot be used.
    public init(clientID: String, clientSecret: String, redirectURI: String = Self.defaultRedirectURI,
                providerID: String? = nil, iOSURLSchemes: [String] = []) throws(OfficeRegistrationError) {
        guard !clientSecret.isEmpty else { throw .invalid("the Office client secret is empty") }
        try self.init(clientID: clientID, clientSecretDigest: SecretDigest(of: clientSecret), redirectURI: redirectURI,
                      providerID: providerID, iOSURLSchemes: iOSURLSchemes)
    }

    /// Creates a registration from a stored secret digest.
    ///
    /// - Throws: ``OfficeRegistrationError`` naming the value that cannot be used.
    public init(clientID: String, clientSecretDigest: SecretDigest, redirectURI: String = Self.defaultRedirectURI,
                providerID: String? = nil, iOSURLSchemes: [String] = []) throws(OfficeRegistrationError) {
        // RFC 6749 §A.1: client_id is VSCHAR (printable ASCII); ':' would break HTTP Basic credentials.
        guard !clientID.isEmpty, clientID.count <= 200,
              clientID.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != ":" }) else {
            throw .invalid("the Office client id '\(clientID.prefix(60))' must be 1-200 printable ASCII characters without ':' or spaces")
        }
        guard clientID != FirstPartyApp.clientID else {
            throw .invalid("the Office client id must differ from the provider app's own client id '\(FirstPartyApp.clientID)'")
        }
        guard let redirect = URL(string: redirectURI), let scheme = redirect.scheme, !scheme.isEmpty,
              redirect.fragment == nil, redirectURI.contains(":") else {
            throw .invalid("the Office redirect URI '\(redirectURI.prefix(100))' is not an absolute URI without a fragment")
        }
        for scheme in iOSURLSchemes where !Self.isValidScheme(scheme) {
            throw .invalid("the iOS URL scheme '\(scheme.prefix(60))' is not a URI scheme (a letter, then letters, digits, + - .)")
        }
        guard Set(iOSURLSchemes.map { $0.lowercased() }).count == iOSURLSchemes.count else {
            throw .invalid("an iOS URL scheme is listed twice")
        }
        if let providerID {
            // BootstrapperChallenge owns the rule for providerId; reuse it rather than restate it.
            do {
                _ = try BootstrapperChallenge(authorizationURI: "https://h/a", tokenIssuanceURI: "https://h/t", providerID: providerID)
            } catch {
                throw .invalid("the provider id '\(providerID.prefix(60))' may hold only A-Z, a-z, 0-9 and _")
            }
        }
        self.clientID = clientID
        self.clientSecretDigest = clientSecretDigest
        self.redirectURI = redirectURI
        self.providerID = providerID
        self.iOSURLSchemes = iOSURLSchemes
    }

    /// RFC 3986 §3.1: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
    static func isValidScheme(_ scheme: String) -> Bool {
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return scheme.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)) }
    }
}

/// A value of an ``OfficeRegistration`` that cannot be used.
public enum OfficeRegistrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The message names the value and the rule it breaks.
    case invalid(String)

    /// One line naming the problem.
    public var description: String {
        switch self {
        case .invalid(let message): message
        }
    }
}
