import WOPICore
import WOPIHost

/// What every password form of one host shares — the OAuth sign-in page and the web front's — so a
/// guesser cannot double the allowance by switching forms, and password checks stay bounded in
/// number (and memory) for the whole host.
struct SignInGuard: Sendable {
    /// Wrong passwords per name and address.
    let throttle: SignInThrottle
    /// Runs scrypt off the threads that run requests, a few checks at a time.
    let passwords: PasswordChecker
    /// Verified against when a sign-in name is unknown, so a wrong name costs as much time as a wrong password.
    let decoyPasswordHash: PasswordHash

    /// One scrypt hash, made here rather than on a request. Failures are counted in `store` when it
    /// is a ``SignInFailureStore`` (SQLite and PostgreSQL are), else in this process.
    init(policy: AuthorizationPolicy, store: any WOPIStore) {
        throttle = SignInThrottle(policy: policy, failures: store as? any SignInFailureStore ?? InMemorySignInFailures())
        passwords = PasswordChecker()
        decoyPasswordHash = (try? PasswordHash(hashing: Base64URL.randomToken())) ?? .unusable
    }
}
