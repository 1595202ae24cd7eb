import WOPIAuthorization
import WOPIHost

/// The Office registration `wopi serve` last ran with, recorded for `wopi onboarding` under names of
/// their own (the sign-in options' own settings are fallbacks serve reads, and must not change meaning).
/// The secret itself is never recorded: only that one is configured.
enum OnboardingSettings {
    static let clientID = "onboarding-client-id"
    static let secretConfigured = "onboarding-client-secret-configured"
    static let redirectURI = "onboarding-redirect-uri"
    static let providerID = "onboarding-provider-id"

    static func record(_ registration: OfficeRegistration, in store: any WOPIStore) async throws {
        try await store.setHostSetting(registration.clientID, named: clientID)
        try await store.setHostSetting("yes", named: secretConfigured)
        try await store.setHostSetting(registration.redirectURI, named: redirectURI)
        try await store.setHostSetting(registration.providerID ?? "", named: providerID)
    }
}
