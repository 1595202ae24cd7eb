import Foundation
import WOPICore

/// First-run content: on empty storage, a demo user with the sample documents.
public enum DemoProvisioning {
    /// What was created, to tell the person who started the host.
    public struct DemoAccount: Sendable {
        /// The demo user.
        public var user: UserRecord
        /// The generated password, shown once and stored only as a hash.
        public var password: String
        /// The sample files.
        public var files: [FileRecord]
    }

    /// Far above the few kilobytes each sample takes, so only a damaged install is refused.
    static let sampleSizeLimit: Int64 = 16 * 1024 * 1024

    /// The demo user's name.
    public static let userName = "demo"

    /// Creates the demo user `demo` and the sample documents when the store has no users; otherwise does nothing.
    public static func provisionIfEmpty(_ folder: HostStorage) async throws -> DemoAccount? {
        guard try await folder.store.users().isEmpty else { return nil }
        let password = Base64URL.randomToken(byteCount: 12)
        let user: UserRecord
        do {
            user = try await folder.store.createUser(name: userName, displayName: "Demo User", passwordHash: try PasswordHash(hashing: password))
        } catch WOPIStoreError.nameTaken {
            return nil // another host on the same database provisioned it a moment ago
        }
        var files: [FileRecord] = []
        for sample in try SampleDocuments.demoSet {
            files.append(try await folder.importFile(at: sample.url, as: sample.fileName, into: user.rootContainerID,
                                                     maximumSize: Self.sampleSizeLimit))
        }
        return DemoAccount(user: user, password: password, files: files)
    }
}
