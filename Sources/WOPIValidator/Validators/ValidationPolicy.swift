/// Where this runner is deliberately stricter than Microsoft's.
public struct ValidationPolicy: Sendable, Hashable {
    /// Headers a `<ResponseHeaderValidator>` always requires, whatever its `IsRequired` says (compared
    /// case-insensitively). The original treats a missing `X-WOPI-ItemVersion` as a pass; WOPIKit
    /// makes it required, because Office for iOS relies on it after GetFile, PutFile, Lock and Unlock.
    public var alwaysRequiredHeaders: Set<String>

    /// Creates a policy.
    public init(alwaysRequiredHeaders: Set<String> = ["X-WOPI-ItemVersion"]) {
        self.alwaysRequiredHeaders = alwaysRequiredHeaders
    }

    /// Microsoft's exact behaviour.
    public static let original = ValidationPolicy(alwaysRequiredHeaders: [])
    /// The policy WOPIKit's CI runs with (`X-WOPI-ItemVersion` required).
    public static let wopiKit = ValidationPolicy()

    func requires(_ header: String) -> Bool {
        alwaysRequiredHeaders.contains { $0.lowercased() == header.lowercased() }
    }
}
