import Foundation

/// Checks that a WOPI request was signed by the WOPI client whose keys it holds
/// (online/scenarios/proofkeys.rst).
///
/// A request is accepted when its `X-WOPI-TimeStamp` is neither older than ``maximumAge`` nor
/// further ahead than ``maximumClockSkew``, and one of three combinations verifies:
/// `X-WOPI-Proof` with the current key, `X-WOPI-ProofOld` with the current key, or `X-WOPI-Proof`
/// with the old key. The clock is a parameter so that recorded requests can be checked.
public struct ProofKeyVerifier: Sendable {
    /// The WOPI client's keys, from its discovery XML.
    public var keys: ProofKeyPair
    /// The oldest timestamp accepted, in seconds before now; 20 minutes as the protocol asks.
    public var maximumAge: TimeInterval
    /// How far in the future a timestamp may lie, in seconds, to allow for clock drift between
    /// client and host; anything further is refused, so a captured request cannot be made to
    /// live longer than ``maximumAge`` by signing it ahead of time.
    public var maximumClockSkew: TimeInterval

    /// Creates a verifier for a key pair.
    public init(keys: ProofKeyPair, maximumAge: TimeInterval = 20 * 60, maximumClockSkew: TimeInterval = 5 * 60) {
        self.keys = keys
        self.maximumAge = maximumAge
        self.maximumClockSkew = maximumClockSkew
    }

    /// Verifies a request from the raw values a host has at hand: the access token, the external
    /// request URL, and the three header values (`nil` when a header is absent).
    ///
    /// - Parameters:
    ///   - accessToken: The request's access token, as the client signed it.
    ///   - url: The request URL as the client saw it (the external URL behind a proxy).
    ///   - timestampHeader: The `X-WOPI-TimeStamp` header value.
    ///   - proofHeader: The `X-WOPI-Proof` header value.
    ///   - proofOldHeader: The `X-WOPI-ProofOld` header value.
    ///   - now: The current time; pass a fixed date to check a recorded request.
    public func verify(
        accessToken: String,
        url: String,
        timestampHeader: String?,
        proofHeader: String?,
        proofOldHeader: String?,
        now: Date = Date()
    ) -> ProofKeyVerification {
        guard let timestampHeader else { return .invalid(.missingTimestamp) }
        guard let timestamp = ProofKeyTimestamp(headerValue: timestampHeader) else {
            return .invalid(.malformedTimestamp(timestampHeader))
        }
        let request = ProofKeyRequest(accessToken: accessToken, url: url, timestamp: timestamp)
        return verify(request, proof: proofHeader, proofOld: proofOldHeader, now: now)
    }

    /// Verifies a request given its signed parts and the base64 proof header values.
    ///
    /// - Parameters:
    ///   - request: The signed parts: access token, URL and timestamp.
    ///   - proof: The `X-WOPI-Proof` header value, or `nil` when absent.
    ///   - proofOld: The `X-WOPI-ProofOld` header value, or `nil` when absent.
    ///   - now: The current time; pass a fixed date to check a recorded request.
    public func verify(
        _ request: ProofKeyRequest,
        proof: String?,
        proofOld: String?,
        now: Date = Date()
    ) -> ProofKeyVerification {
        let nowTicks = ProofKeyTimestamp(now).ticks
        let ticks = request.timestamp.ticks
        // Compare in ticks with overflow checks: the header is attacker-controlled.
        let (age, ageOverflow) = nowTicks.subtractingReportingOverflow(ticks)
        if !ageOverflow, age > Self.ticks(maximumAge) {
            return .invalid(.timestampExpired(ageInSeconds: age / ProofKeyTimestamp.ticksPerSecond))
        }
        if ageOverflow || -age > Self.ticks(maximumClockSkew) {
            let ahead = ageOverflow ? Int64.max : -age
            return .invalid(.timestampInFuture(secondsAhead: ahead / ProofKeyTimestamp.ticksPerSecond))
        }

        let message = request.signedBytes
        let proofSignature = proof.flatMap { Data(base64Encoded: $0.trimmingCharacters(in: .whitespaces)) }
        let proofOldSignature = proofOld.flatMap { Data(base64Encoded: $0.trimmingCharacters(in: .whitespaces)) }

        if let proofSignature, keys.current.isValidSignature(proofSignature, for: message) {
            return .valid(.proofWithCurrentKey)
        }
        if let proofOldSignature, keys.current.isValidSignature(proofOldSignature, for: message) {
            return .valid(.proofOldWithCurrentKey)
        }
        if let proofSignature, let old = keys.old, old.isValidSignature(proofSignature, for: message) {
            return .valid(.proofWithOldKey)
        }

        if proof == nil { return .invalid(.missingProof) }
        if proofSignature == nil { return .invalid(.malformedProof(header: "X-WOPI-Proof")) }
        if proofOld != nil, proofOldSignature == nil { return .invalid(.malformedProof(header: "X-WOPI-ProofOld")) }
        return .invalid(.signatureMismatch)
    }

    /// Seconds as ticks, clamped so that odd settings (negative, huge, NaN) cannot trap.
    private static func ticks(_ seconds: TimeInterval) -> Int64 {
        let ticks = seconds * Double(ProofKeyTimestamp.ticksPerSecond)
        guard ticks.isFinite || ticks > 0 else { return 0 }
        if ticks >= Double(Int64.max) { return Int64.max }
        return ticks > 0 ? Int64(ticks) : 0
    }
}
