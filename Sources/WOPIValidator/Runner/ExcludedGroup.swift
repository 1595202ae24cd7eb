/// A test group left out of a run, and why.
public struct ExcludedGroup: Sendable, Hashable, Codable {
    /// The group's name.
    public let name: String
    /// Why it does not run.
    public let reason: String

    /// Creates an exclusion.
    public init(name: String, reason: String) {
        self.name = name
        self.reason = reason
    }

    /// Coauthoring (shared locks) is not something Office for iOS uses; WOPIKit does not implement it.
    static let coauthReason = "coauthoring locks are outside WOPIKit's scope (Office for iOS does not use them)"
    /// Incremental (chunked) file transfer likewise.
    static let chunkedReason = "incremental (chunked) file transfer is outside WOPIKit's scope"

    /// The groups WOPIKit's conformance run leaves out by default.
    public static let wopiKitDefaults: [ExcludedGroup] = [
        ExcludedGroup(name: "CoauthLocks", reason: coauthReason),
        ExcludedGroup(name: "CoauthLockExpiration", reason: coauthReason),
        ExcludedGroup(name: "RenameFileWithCoauthLockSupported", reason: coauthReason),
        ExcludedGroup(name: "IncrementalFileTransferErrorCases", reason: chunkedReason),
        ExcludedGroup(name: "IncrementalFileTransferWithFullFileChunkingScheme", reason: chunkedReason),
        ExcludedGroup(name: "IncrementalFileTransferWithZipChunkingScheme", reason: chunkedReason),
        proofKeys,
    ]

    /// ProofKeys: the cases need requests signed with the WOPI client's private proof keys. Microsoft's own
    /// command-line runner never signs (it has no key); this one does with ``ValidatorProofSigner``, given the
    /// keys whose public halves the host's discovery XML publishes, and then the group runs.
    public static let proofKeys = ExcludedGroup(
        name: "ProofKeys",
        reason: "needs requests signed with a WOPI client's private proof keys; give --proof-key and --proof-key-old (with the host on the matching discovery) to run it")
}
