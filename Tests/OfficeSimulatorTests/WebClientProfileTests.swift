import Foundation
import WOPIHTTPClient
import OfficeSimulator
import Testing

/// The browser editors' CheckFileInfo rule names each missing or malformed property, and the host
/// page is read as a browser reads it: a page that breaks a host-page rule stops at the host-page step.
@Suite("Browser editor profiles")
struct WebClientProfileTests {
    static var good: [String: Any] { [
        "BaseFileName": "Plan.docx", "OwnerId": "u1", "UserId": "u1", "Version": "v1", "Size": 3, "UserCanWrite": true,
        "LastModifiedTime": "2026-11-25T13:54:07Z", "PostMessageOrigin": "https://drive.contoso.com",
        "HostViewUrl": "https://drive.contoso.com/open/F1?action=view", "HostEditUrl": "https://drive.contoso.com/open/F1?action=edit",
    ] }

    static func body(_ changes: [String: Any?] = [:]) throws -> Data {
        var object = good
        for (key, value) in changes { object[key] = value }
        return try JSONSerialization.data(withJSONObject: object)
    }

    @Test("a complete CheckFileInfo passes both clients' rule")
    func complete() throws {
        for client in WebClientProfile.allCases {
            let check = client.requiredPropertiesCheck(checkFileInfo: try Self.body())
            #expect(check.outcome == .passed && check.suite == "rule" && check.name == "checkfileinfo.\(client.rawValue)-properties", "\(check)")
        }
    }

    @Test("each missing or malformed property is named, for the client that needs it")
    func problemsAreNamed() throws {
        let missingOrigin = WebClientProfile.officeWeb.requiredPropertiesCheck(checkFileInfo: try Self.body(["PostMessageOrigin": nil]))
        #expect(missingOrigin.outcome == .failed && missingOrigin.detail.hasPrefix("PostMessageOrigin is missing; Office for the web needs it"))
        let path = WebClientProfile.officeWeb.requiredPropertiesCheck(checkFileInfo: try Self.body(["PostMessageOrigin": "https://drive.contoso.com/open"]))
        #expect(path.outcome == .failed && path.detail.contains("is not an origin"), "\(path.detail)")
        #expect(missingOrigin.detail.hasSuffix("(Office for the web: Microsoft's CheckFileInfo page and host page docs (online/hostpage.rst, online/postmessage.rst))"),
                "the rule names its source: \(missingOrigin.detail)")
        let relative = WebClientProfile.officeWeb.requiredPropertiesCheck(checkFileInfo: try Self.body(["HostEditUrl": "/open/F1"]))
        #expect(relative.detail.hasPrefix("HostEditUrl '/open/F1' is not an absolute http(s) URL (Office for the web: "), "\(relative.detail)")
        let two = WebClientProfile.officeWeb.requiredPropertiesCheck(checkFileInfo: try Self.body(["HostViewUrl": nil, "Version": 3]))
        #expect(two.detail.contains("Version is a number, not a string") && two.detail.contains("HostViewUrl is missing"), "\(two.detail)")
    }

    @Test("Collabora Online: an opaque LastModifiedTime passes; a missing or odd PostMessageOrigin or LastModifiedTime is a warning naming the source")
    func collaboraOptionalAndOpaque() throws {
        let time = try Self.body(["LastModifiedTime": "2026-11-25 13:54:07.000"])
        let opaque = WebClientProfile.collabora.requiredPropertiesCheck(checkFileInfo: time)
        #expect(opaque.outcome == .passed, "Collabora Online keeps it as an opaque string: \(opaque.detail)")
        #expect(WebClientProfile.officeWeb.requiredPropertiesCheck(checkFileInfo: time).outcome == .passed, "Office for the web does not read it")
        let source = "(Collabora Online: Collabora Online's wsd/reference.md and wsd/wopi/CheckFileInfo.cpp)"
        for changes in [["PostMessageOrigin": nil], ["PostMessageOrigin": "https://drive.contoso.com/open"], ["LastModifiedTime": nil]] as [[String: Any?]] {
            let check = WebClientProfile.collabora.requiredPropertiesCheck(checkFileInfo: try Self.body(changes))
            #expect(check.outcome == .warning && check.detail.hasSuffix(source), "\(changes): \(check.outcome) \(check.detail)")
        }
        let missing = WebClientProfile.collabora.requiredPropertiesCheck(checkFileInfo: try Self.body(["PostMessageOrigin": nil]))
        #expect(missing.detail.hasPrefix("PostMessageOrigin is missing; Collabora Online works without it"), "\(missing.detail)")
        let owner = WebClientProfile.collabora.requiredPropertiesCheck(checkFileInfo: try Self.body(["OwnerId": nil, "PostMessageOrigin": nil]))
        #expect(owner.outcome == .failed && owner.detail.hasPrefix("OwnerId is missing; Collabora Online needs it"), "\(owner.detail)")
    }

    /// A host that answers the host page only; any other request is a test failure.
    struct HostPageOnly: HTTPTransport {
        let page: SimulatorResponse
        func send(_ request: SimulatorRequest) async throws -> SimulatorResponse {
            guard request.url.path == "/open/F1" else { throw CancellationError() }
            return page
        }
    }

    static func page(form: String, cacheControl: String = "no-cache, no-store") -> SimulatorResponse {
        SimulatorResponse(status: 200, headers: [SimulatorHeader("Content-Type", "text/html"), SimulatorHeader("Cache-Control", cacheControl)],
                          body: Data("<!doctype html><html><body>\(form)<iframe name=\"editor\"></iframe></body></html>".utf8))
    }

    static let action = "http://127.0.0.1:9980/browser/1/cool.html?WOPISrc=http%3A%2F%2F127.0.0.1%3A8080%2Fwopi%2Ffiles%2FF1"
    static var future: String { String(Int64(Date().timeIntervalSince1970 * 1000) + 3_600_000) }

    @Test("a host page that breaks a host-page rule stops at the host-page step, naming the rule",
          arguments: [
            (page(form: "<form method=\"post\" action=\"\(action)\"><input type=\"hidden\" name=\"access_token\" value=\"t\"><input type=\"hidden\" name=\"access_token_ttl\" value=\"\(future)\"></form>",
                  cacheControl: "max-age=600"), "must not be cached"),
            (page(form: "<form method=\"get\" action=\"\(action)\"><input type=\"hidden\" name=\"access_token\" value=\"t\"><input type=\"hidden\" name=\"access_token_ttl\" value=\"\(future)\"></form>"),
             "must be posted"),
            (page(form: "<form method=\"post\" action=\"\(action)\"><input type=\"hidden\" name=\"access_token\" value=\"t\"><input type=\"hidden\" name=\"access_token_ttl\" value=\"3600\"></form>"),
             "not a duration"),
            (page(form: "<form method=\"post\" action=\"http://127.0.0.1:9980/browser/1/cool.html\"><input type=\"hidden\" name=\"access_token\" value=\"t\"><input type=\"hidden\" name=\"access_token_ttl\" value=\"\(future)\"></form>"),
             "carries no http(s) WOPISrc"),
            (SimulatorResponse(status: 303, headers: [SimulatorHeader("Location", "/")]), "not signed in"),
          ])
    func hostPageRule(_ page: SimulatorResponse, _ reason: String) async throws {
        let options = WebClientSimulationOptions(client: .collabora, hostPage: URL(string: "http://127.0.0.1:8080/open/F1?action=edit"))
        do {
            _ = try await WebClientSimulator(options: options, transport: HostPageOnly(page: page)).run()
            Issue.record("the page was accepted")
        } catch {
            #expect(error.step == .hostPage && error.reason.contains(reason), "\(error)")
        }
    }
}
