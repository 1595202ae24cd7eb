import Foundation
import JWTKit
import Logging
import WOPIAuthorization
import WOPICore

/// The provider's signing keys (its JWKS) and the signature check of its id_tokens, through JWTKit.
///
/// A token naming a key id the set lacks reads the JWKS again, once, and no more often than
/// ``OpenIDConnectConfiguration/keyRefetchInterval`` (unknown ids cannot make the host hammer the provider),
/// so a key rotation at the provider needs no restart. Keys are held with one algorithm each: the JWK's `alg`,
/// else the one its type implies (RSA: RS256, EC P-256: ES256, OKP Ed25519: EdDSA); a token whose header asks
/// for another algorithm is refused before any signature check, and so is `none` or an HMAC.
actor ProviderKeySet {
    private let url: String
    private let http: ProviderHTTP
    private let refetchInterval: TimeInterval
    private let now: @Sendable () -> Date
    private let logger: Logger
    private var keys = JWTKeyCollection()
    private var algorithms: [String: String] = [:]
    private var defaultKeyID: String?
    private var lastRefetch: Date?
    private var refetching: Task<Result<Void, OpenIDSignInError>, Never>?
    /// How many times the JWKS was read (for tests and the log).
    private(set) var fetchCount = 0
    /// How many keys the host can verify with.
    var keyCount: Int { algorithms.count }

    init(url: String, http: ProviderHTTP, refetchInterval: TimeInterval, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.url = url
        self.http = http
        self.refetchInterval = refetchInterval
        self.now = now
        self.logger = logger
    }

    /// Reads the JWKS (through `reader`, else the sign-ins' own deadline); throws when it cannot be read or holds no usable key.
    func load(through reader: ProviderHTTP? = nil) async throws(OpenIDDiscoveryError) {
        let answer: ProviderHTTP.Answer
        do { answer = try await (reader ?? http).get(url) } catch { throw .keysUnavailable(url: url, detail: error.description) }
        guard answer.status == 200 else { throw .keysUnavailable(url: url, detail: "HTTP \(answer.status)") }
        guard let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any], let entries = object["keys"] as? [[String: Any]] else {
            throw .keysUnavailable(url: url, detail: "not a JSON Web Key Set")
        }
        let collection = JWTKeyCollection()
        var algorithms: [String: String] = [:]
        let usable = entries.enumerated().compactMap { index, entry in Self.usable(entry, index: index) }
        for (kid, algorithm, json) in usable {
            do {
                var jwk = try JSONDecoder().decode(JWK.self, from: json)
                jwk.keyIdentifier = JWKIdentifier(string: kid)
                guard let alg = JWK.Algorithm(rawValue: algorithm) else { continue }
                jwk.algorithm = alg
                try await collection.add(jwk: jwk, isDefault: usable.count == 1)
                algorithms[kid] = algorithm
            } catch {
                logger.warning("skipped a key of the identity provider's JWKS", metadata: ["kid": "\(kid)", "error": "\(error)"])
            }
        }
        guard !algorithms.isEmpty else { throw .keysUnavailable(url: url, detail: "no RS256, PS256, ES256 or EdDSA signing key") }
        keys = collection
        self.algorithms = algorithms
        defaultKeyID = algorithms.count == 1 ? algorithms.keys.first : nil
        fetchCount += 1
    }

    /// A key entry the host can verify with: its key id (given, or made up from its position), its algorithm and its JSON.
    private static func usable(_ entry: [String: Any], index: Int) -> (String, String, Data)? {
        guard (entry["use"] as? String).map({ $0 == "sig" }) ?? true, let kty = entry["kty"] as? String else { return nil }
        let implied: String?
        switch (kty, entry["crv"] as? String) {
        case ("RSA", _): implied = "RS256"
        case ("EC", "P-256"?): implied = "ES256"
        case ("OKP", "Ed25519"?): implied = "EdDSA"
        default: implied = nil // "oct" (HMAC) keys and curves the host does not accept
        }
        guard let algorithm = (entry["alg"] as? String) ?? implied, OpenIDConnectConfiguration.acceptedAlgorithms.contains(algorithm),
              algorithm.hasPrefix("RS") || algorithm.hasPrefix("PS") ? kty == "RSA" : (algorithm == "ES256" ? kty == "EC" : kty == "OKP") else {
            return nil
        }
        var cleaned = entry
        cleaned.removeValue(forKey: "alg")
        guard let json = try? JSONSerialization.data(withJSONObject: cleaned) else { return nil }
        return ((entry["kid"] as? String) ?? "#\(index)", algorithm, json)
    }

    /// Verifies `token`'s header and signature; returns its payload's bytes.
    func verify(_ token: String) async throws(OpenIDSignInError) -> Data {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(String(parts[0])), let payload = Base64URL.decode(String(parts[1])),
              let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any] else {
            throw OpenIDSignInError(.malformedToken, "the id_token is not a compact JWS")
        }
        guard let alg = header["alg"] as? String, OpenIDConnectConfiguration.acceptedAlgorithms.contains(alg) else {
            throw OpenIDSignInError(.algorithmNotAllowed, "alg \(String(describing: header["alg"] ?? "missing").prefix(16)) is not accepted")
        }
        let kid = (header["kid"] as? String) ?? defaultKeyID
        if kid.map({ algorithms[$0] == nil }) ?? true {
            try await refetchForUnknownKey()
        }
        guard let kid = (header["kid"] as? String) ?? defaultKeyID, let expected = algorithms[kid] else {
            throw OpenIDSignInError(.unknownKey, "the id_token's key is not in the provider's JWKS")
        }
        guard expected == alg else {
            throw OpenIDSignInError(.algorithmNotAllowed, "alg \(alg) is not the algorithm of key \(kid.prefix(64))")
        }
        do {
            _ = try await keys.verify(token, as: SignedPayload.self)
        } catch {
            throw OpenIDSignInError(.badSignature, "the id_token's signature does not verify")
        }
        return payload
    }

    /// Reads the JWKS again, unless it was read for this reason less than the interval ago. Sign-ins that meet an
    /// unknown key while a reading is under way wait for that reading rather than start another or give up.
    private func refetchForUnknownKey() async throws(OpenIDSignInError) {
        if let inFlight = refetching {
            try await inFlight.value.get()
            return
        }
        let time = now()
        if let lastRefetch, time.timeIntervalSince(lastRefetch) < refetchInterval { return }
        lastRefetch = time
        let reading = Task { () -> Result<Void, OpenIDSignInError> in
            do throws(OpenIDDiscoveryError) {
                try await self.load()
                return .success(())
            } catch {
                return .failure(OpenIDSignInError(.providerUnavailable, error.description))
            }
        }
        refetching = reading
        let outcome = await reading.value
        refetching = nil
        if case .success = outcome {
            logger.notice("read the identity provider's keys again for an unknown key id", metadata: ["keys": "\(algorithms.count)"])
        }
        try outcome.get()
    }

    /// JWTKit's part: the signature. The claims are checked by ``IDTokenClaims``, with the configured skew.
    private struct SignedPayload: JWTPayload {
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
}
