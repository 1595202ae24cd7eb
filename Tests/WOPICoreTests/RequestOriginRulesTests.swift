import Foundation
import Testing
import WOPICore

@Suite("Request origin rules")
struct RequestOriginRulesTests {
    let host = "https://files.example.com"

    func decide(site: String? = nil, origin: String? = nil) -> RequestOriginRules.Decision {
        RequestOriginRules.evaluate(.init(fetchSite: site, origin: origin), hostOrigin: host)
    }

    @Test("Fetch Metadata: same-origin and none pass; same-site, cross-site and unknown values are refused")
    func fetchSite() {
        #expect(decide(site: "same-origin") == .allowed)
        #expect(decide(site: "none") == .allowed)
        #expect(decide(site: "Same-Origin") == .allowed, "header values compare case-insensitively")
        #expect(decide(site: "same-site") == .refused(.fetchSite("same-site")))
        #expect(decide(site: "cross-site") == .refused(.fetchSite("cross-site")))
        #expect(decide(site: "") == .refused(.fetchSite("")))
        #expect(decide(site: "same-origin, cross-site") == .refused(.fetchSite("same-origin, cross-site")))
    }

    @Test("Origin: only the host's own serialized origin passes")
    func origin() {
        #expect(decide(origin: host) == .allowed)
        #expect(decide(origin: "HTTPS://Files.Example.com") == .allowed)
        for foreign in ["http://files.example.com", "https://files.example.com:8443", "https://evil.example.com", "https://files.example.com.evil.net",
                        "", "https://files.example.com/"] {
            #expect(decide(origin: foreign) == .refused(.origin(foreign)), "\(foreign)")
        }
    }

    @Test("Neither header passes (a client that is not a browser); both must pass when both are sent")
    func both() {
        #expect(decide() == .allowed)
        // What a browser sends from a page with Referrer-Policy: no-referrer: no origin, so Fetch Metadata decides.
        #expect(decide(origin: "null") == .allowed)
        #expect(decide(site: "same-origin", origin: "null") == .allowed)
        #expect(decide(site: "cross-site", origin: "null") == .refused(.fetchSite("cross-site")))
        #expect(decide(site: "same-origin", origin: host) == .allowed)
        #expect(decide(site: "same-origin", origin: "https://evil.example") == .refused(.origin("https://evil.example")))
        #expect(decide(site: "cross-site", origin: host) == .refused(.fetchSite("cross-site")))
    }

    @Test("The origin of a URL is RFC 6454's serialization")
    func serialization() {
        func origin(_ text: String) -> String? { RequestOriginRules.origin(of: URL(string: text)!) }
        #expect(origin("https://Files.Example.COM/wopi/base?x=1") == "https://files.example.com")
        #expect(origin("https://files.example.com:443/") == "https://files.example.com")
        #expect(origin("http://127.0.0.1:8080") == "http://127.0.0.1:8080")
        #expect(origin("http://127.0.0.1:80/prefix") == "http://127.0.0.1")
        #expect(origin("http://[::1]:9000/") == "http://[::1]:9000")
        #expect(origin("ftp://files.example.com") == nil)
        #expect(origin("file:///tmp/x") == nil)
        #expect(RequestOriginRules.Refusal.origin("https://evil.example").description.contains("https://evil.example"))
    }
}
