import Foundation
import OfficeURLScheme

/// Office's app-to-app sign-in (apptoapp.rst, "Office iOS specific changes"): open the provider's
/// app through the first iOS scheme of the bootstrapper's `UrlSchemes` with a sign-in request, and
/// read its answer on the Office app's `-tp` scheme, checking `action` came back unchanged.
struct AppSignIn: Sendable {
    let app: any AppSignInLauncher
    let registration: OfficeClientRegistration
    let officeApp: OfficeApp

    private static let step = SimulationStep.Name.appSignIn

    func run(scheme: String) async throws(SimulationFailure) -> (SignInGrant, String) {
        let action = UUID().uuidString.lowercased()
        let request: SignInRequest
        do {
            // Office spells the culture without a hyphen in this URL (apptoapp.rst example: rs=enUS).
            request = try SignInRequest(
                scheme: scheme, clientID: registration.clientID, responseType: "code", scope: registration.scope,
                culture: registration.culture.replacingOccurrences(of: "-", with: ""), build: registration.build,
                platform: "iOS", officeApp: officeApp.rawValue, action: action)
        } catch {
            throw SimulationFailure(step: Self.step, reason: "the bootstrapper's iOS scheme '\(scheme.prefix(80))' is not a URL scheme: \(error)")
        }
        let answer: String
        do {
            answer = try await app.open(request.string)
        } catch {
            throw SimulationFailure(step: Self.step, reason: "the app opened with \(request.string) gave no answer: \(error)")
        }
        let response: SignInResponse
        do {
            response = try SignInResponse(string: answer)
        } catch {
            throw SimulationFailure(step: Self.step, reason: "the app's answer '\(answer.prefix(200))' is not a sign-in answer: \(error)")
        }
        guard let expectedScheme = officeApp.signInReturnScheme, response.scheme.lowercased() == expectedScheme else {
            throw SimulationFailure(step: Self.step,
                                    reason: "the app answered on '\(response.scheme)', but \(officeApp.displayName) listens on '\(officeApp.signInReturnScheme ?? "?")'")
        }
        guard response.action == action else {
            throw SimulationFailure(step: Self.step,
                                    reason: "the app returned action '\(response.action ?? "(none)")', not the '\(action)' Office sent")
        }
        if let error = response.error {
            let description = error.description.map { " (\($0))" } ?? ""
            throw SimulationFailure(step: Self.step, reason: "the app reported sign-in error '\(error.code)'\(description)")
        }
        guard let code = response.code, !code.isEmpty else {
            throw SimulationFailure(step: Self.step, reason: "the app's answer carries no code")
        }
        var detail = "opened '\(scheme):' with action \(action); the app answered on \(response.scheme) with a code, action unchanged"
        if response.tokenEndpoint != nil { detail += ", tk given" }
        if response.sessionContext != nil { detail += ", sc given" }
        return (SignInGrant(code: code, tokenEndpoint: response.tokenEndpoint, sessionContext: response.sessionContext, redirectURI: nil), detail)
    }
}
