import OfficeURLScheme
import Testing

@Suite struct BootstrapperChallengeTests {
    /// The sample from the WOPI REST docs (Bootstrap.rst), with its space after a comma.
    static let docsSample = #"Bearer authorization_uri="https://contoso.com/api/oauth2/authorize",tokenIssuance_uri="https://contoso.com/api/oauth2/token",providerId="tp_contoso", UrlSchemes="%7B%22iOS%22%20%3A%20%5B%22contoso%22%2C%22contoso-EMM%22%5D%2C%20%22Android%22%20%3A%20%5B%22contoso%22%2C%22contoso-EMM%22%5D%2C%20%22UWP%22%3A%20%5B%22contoso%22%2C%22contoso-EMM%22%5D%7D""#

    @Test func parsesTheDocumentedSample() throws {
        let challenge = try BootstrapperChallenge(headerValue: Self.docsSample)
        #expect(challenge.authorizationURI == "https://contoso.com/api/oauth2/authorize")
        #expect(challenge.tokenIssuanceURI == "https://contoso.com/api/oauth2/token")
        #expect(challenge.providerID == "tp_contoso")
        #expect(challenge.iOSURLSchemes == ["contoso", "contoso-EMM"])
        #expect(challenge.urlSchemes?["UWP"] == ["contoso", "contoso-EMM"])
    }

    @Test func buildsAndReadsBack() throws {
        let challenge = try BootstrapperChallenge(authorizationURI: "https://127.0.0.1:8080/oauth/authorize", tokenIssuanceURI: "https://127.0.0.1:8080/oauth/token",
                                                  providerID: "tpcontoso", urlSchemes: ["Android": ["a"], "iOS": ["contoso"]])
        #expect(challenge.headerValue == #"Bearer authorization_uri="https://127.0.0.1:8080/oauth/authorize",tokenIssuance_uri="https://127.0.0.1:8080/oauth/token",providerId="tpcontoso",UrlSchemes="%7B%22iOS%22%3A%5B%22contoso%22%5D%2C%22Android%22%3A%5B%22a%22%5D%7D""#)
        #expect(try BootstrapperChallenge(headerValue: challenge.headerValue) == challenge)
    }

    @Test func toleratesVariants() throws {
        let variants = [
            #"bearer authorization_uri="https://c/a", tokenIssuance_uri="https://c/t""#,
            #"Bearer: authorization_uri = "https://c/a" ,tokenissuance_uri="https://c/t""#,
            "  Bearer authorization_uri=https://c/a,tokenIssuance_uri=https://c/t  ",
        ]
        for variant in variants {
            let challenge = try BootstrapperChallenge(headerValue: variant)
            #expect(challenge.authorizationURI == "https://c/a" && challenge.tokenIssuanceURI == "https://c/t", "\(variant)")
            #expect(challenge.urlSchemes == nil && challenge.iOSURLSchemes.isEmpty)
        }
    }

    @Test func rejectsWithNamedProblems() {
        #expect(throws: OfficeURLError.invalidChallenge("the value does not start with 'Bearer'")) {
            try BootstrapperChallenge(headerValue: #"Basic realm="x""#)
        }
        #expect(throws: OfficeURLError.invalidChallenge("tokenIssuance_uri is missing")) {
            try BootstrapperChallenge(headerValue: #"Bearer authorization_uri="https://c/a""#)
        }
        #expect(throws: OfficeURLError.invalidChallenge("UrlSchemes is not URL-encoded JSON")) {
            try BootstrapperChallenge(headerValue: #"Bearer authorization_uri="https://c/a",tokenIssuance_uri="https://c/t",UrlSchemes="%7Bnope""#)
        }
        #expect(throws: OfficeURLError.self) {
            try BootstrapperChallenge(authorizationURI: "https://c/a?x=1", tokenIssuanceURI: "https://c/t")
        }
        #expect(throws: OfficeURLError.self) {
            try BootstrapperChallenge(authorizationURI: "https://c/a", tokenIssuanceURI: "https://c/t", providerID: "tp contoso")
        }
    }
}
