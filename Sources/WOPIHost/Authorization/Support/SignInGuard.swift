import WOPICore

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

    /// One scrypt hash, made here rather than on a request.
    init(policy: AuthorizationPolicy) {
        throttle = SignInThrottle(policy: policy)
        passwords = PasswordChecker()
        decoyPasswordHash = (try? PasswordHash(hashing: Base64URL.randomToken())) ?? .unusable
    }
}
