import HTTPTypes
import Hummingbird
import WOPICore
import WOPIHost

extension WOPIBackend {
    /// Why ``RequestOriginRules`` refuses a browser's form post for this host's public origin; `nil`
    /// when it may go on (its CSRF token is still checked).
    func originRefusal(_ request: Request) -> RequestOriginRules.Refusal? {
        let sent = RequestOriginRules.Request(fetchSite: request.headers[Self.fetchSiteField], origin: request.headers[.origin])
        guard case .refused(let refusal) = RequestOriginRules.evaluate(sent, hostOrigin: publicOrigin) else { return nil }
        return refusal
    }

    /// `Sec-Fetch-Site` (W3C Fetch Metadata Request Headers).
    static var fetchSiteField: HTTPField.Name { HTTPField.Name("Sec-Fetch-Site")! }
}
