/// A store under test for ``StoreConformance``, ``AuditStoreConformance``, ``SignInFailureStoreConformance``,
/// ``WebSessionStoreConformance``, ``TemplateOriginStoreConformance`` and ``IdentityLinkStoreConformance``: one connection to storage that is empty and used by nothing else,
/// and the means to connect to the same storage again, as a second host of the deployment would.
///
/// ```swift
/// func connect(to database: URL) async throws -> StoreConformance.Subject {
///     let store = try await MyStore.connect(to: database)
///     return .init(store: store, connectAgain: { try await connect(to: database) }, close: { await store.close() })
/// }
/// ```
public struct StoreSubject<Store: Sendable>: Sendable {
    /// The connection the checks use.
    public var store: Store
    /// Another connection to the same storage, closed by the check that asked for it. Checks that two hosts
    /// see each other's commits, or race for one lock or secret, write through both.
    public var connectAgain: @Sendable () async throws -> StoreSubject<Store>
    /// Releases the connection; the first connection's may also remove the storage made for the check.
    /// Runs once, when the check (or, for a second host, its part of the check) ends.
    public var close: @Sendable () async -> Void

    /// A subject.
    public init(store: Store, connectAgain: @escaping @Sendable () async throws -> StoreSubject<Store>,
                close: @escaping @Sendable () async -> Void = {}) {
        self.store = store
        self.connectAgain = connectAgain
        self.close = close
    }

    /// Runs `body` with this connection, then closes it, also when `body` throws.
    func closing<Result>(after body: (StoreSubject<Store>) async throws -> Result) async throws -> Result {
        do {
            let result = try await body(self)
            await close()
            return result
        } catch {
            await close()
            throw error
        }
    }

    /// A second host's store for the duration of `body`.
    func withSecondHost<Result>(_ body: (Store) async throws -> Result) async throws -> Result {
        try await connectAgain().closing { try await body($0.store) }
    }
}
