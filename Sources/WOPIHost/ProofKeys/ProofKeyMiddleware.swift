import Foundation
import HTTPTypes
import Hummingbird
import Logging
import WOPICore

/// Requires a valid WOPI proof on every `/wopi` request (docs/online/src/scenarios/proofkeys.rst).
///
/// The signed URL is the one the client used: the host's public URL (the external one behind a
/// TLS-terminating proxy) followed by the request's path and query exactly as received. A failure
/// answers 500, as the protocol asks, and is logged with its reason — never with the token.
///
/// With browser editors (``WebClients``) a proof verifies when any configured client's keys (or
/// `--discovery`'s) verify it; a request without any proof passes only while some browser editor
/// has proof checks off, since its requests carry none. With no keys at all (only browser editors
/// whose discovery has none), nothing is checked.
struct ProofKeyMiddleware<Context: RequestContext>: RouterMiddleware {
    let cache: ProofKeyCache?
    var webClients: WebClients? = nil
    let publicURL: URL
    let now: @Sendable () -> Date
    /// Counts refusals by reason; `nil` when metrics are off.
    var metrics: HostMetrics? = nil

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // No path test here: the middleware is mounted on the /wopi group, and the router also routes
        // spellings such as `//wopi/files/…` there, which a prefix test would let through unchecked.
        let token = request.uri.queryParameters.get("access_token") ?? ""
        let url = publicURL.absoluteString + request.uri.description
        let check = { (keys: ProofKeyPair) in
            ProofKeyVerifier(keys: keys).verify(
                accessToken: token, url: url,
                timestampHeader: request.headers[.wopiTimestamp],
                proofHeader: request.headers[.wopiProof],
                proofOldHeader: request.headers[.wopiProofOld],
                now: now())
        }
        if request.headers[.wopiProof] == nil, request.headers[.wopiProofOld] == nil, await webClients?.acceptsUnsignedRequests == true {
            return try await next(request, context)
        }
        guard await hasKeys() else { return try await next(request, context) }
        var result = await verify(check)
        if result.suggestsKeyRefresh {
            // Discovery again for every source: the client that signed may have rotated its keys.
            let refreshedCache = await cache?.refreshIfAllowed(now: now()) ?? false
            let refreshedClients = await webClients?.refreshAfterProofFailure(now: now()) ?? false
            if refreshedCache || refreshedClients { result = await verify(check) }
        }
        guard result.isValid else {
            context.logger.warning("proof key check failed", metadata: ["path": "\(request.uri.path)", "reason": "\(result)"])
            if case .invalid(let failure) = result { metrics?.recordProofRefused(reason: Self.reasonLabel(failure)) }
            throw WOPIError(.internalServerError, "proof key validation failed")
        }
        return try await next(request, context)
    }

    /// Whether any source has keys to check with.
    private func hasKeys() async -> Bool {
        if cache != nil { return true }
        return await !(webClients?.proofKeys.isEmpty ?? true)
    }

    /// The first valid result among every configured key pair, else the first key pair's failure.
    private func verify(_ check: (ProofKeyPair) -> ProofKeyVerification) async -> ProofKeyVerification {
        var pairs: [ProofKeyPair] = []
        if let cache { pairs.append(await cache.current) }
        if let webClients { pairs += await webClients.proofKeys }
        var first: ProofKeyVerification?
        for pair in pairs {
            let result = check(pair)
            if result.isValid { return result }
            if first == nil { first = result }
        }
        return first ?? .invalid(.missingProof)
    }

    /// A metrics label for a proof failure: its case name, never a header's value.
    static func reasonLabel(_ failure: ProofKeyFailure) -> String {
        switch failure {
        case .missingTimestamp: "missing_timestamp"
        case .malformedTimestamp: "malformed_timestamp"
        case .timestampExpired: "timestamp_expired"
        case .timestampInFuture: "timestamp_in_future"
        case .missingProof: "missing_proof"
        case .malformedProof: "malformed_proof"
        case .signatureMismatch: "signature_mismatch"
        }
    }
}

extension HTTPField.Name {
    static let wopiTimestamp = Self("X-WOPI-TimeStamp")!
    static let wopiProof = Self("X-WOPI-Proof")!
    static let wopiProofOld = Self("X-WOPI-ProofOld")!
}
