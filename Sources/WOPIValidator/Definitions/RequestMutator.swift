/// A `<Mutators>` entry that deliberately corrupts part of a request.
public enum RequestMutator: Sendable, Hashable {
    /// `<AccessToken Mutation=…/>`: send this token (a fresh random one when `nil`) instead of the real one.
    case accessToken(mutation: String?)
    /// `<ProofKey …/>`: alter the proof-key headers. Microsoft's command-line runner has no proof key to sign
    /// with, so it ignores these; this runner applies them when it signs (see ``ValidatorProofSigner``).
    case proofKey(mutateCurrent: Bool, mutateOld: Bool, timestamp: String?, keyRelation: String?)
}
