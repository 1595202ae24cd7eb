import Testing
import WOPICore

@Suite("Masking secrets in text that leaves the tool")
struct SecretRedactorTests {
    let mask = SecretRedactor.mask

    @Test("query and form fields: access_token, refresh_token, code, client_secret, password", arguments: [
        ("GET /wopi/files/1?access_token=abc.DEF-123&access_token_ttl=0", "GET /wopi/files/1?access_token=[redacted]&access_token_ttl=0"),
        ("grant_type=refresh_token&refresh_token=r1r2r3&client_id=office", "grant_type=refresh_token&refresh_token=[redacted]&client_id=office"),
        ("ms-word-tp:code=Zq9x&action=edit", "ms-word-tp:code=[redacted]&action=edit"),
        ("client_secret=s3cr3t password=hunter2 x", "client_secret=[redacted] password=[redacted] x"),
        ("<a href=\"/x?access_token=tok\">", "<a href=\"/x?access_token=[redacted]\">"),
        ("Password=\"p w\" ok", "Password=\"[redacted]\" ok"),
    ])
    func queryAndFormFields(text: String, expected: String) {
        #expect(SecretRedactor().redact(text) == expected)
    }

    @Test("JSON members, plain and inside an escaped JSON string", arguments: [
        (#"{"access_token":"a.b.c","access_token_ttl":5}"#, #"{"access_token":"[redacted]","access_token_ttl":5}"#),
        (#"{"refresh_token" : "r\"x", "name": "ok"}"#, #"{"refresh_token" : "[redacted]", "name": "ok"}"#),
        (#""body": "{\"access_token\":\"zz9\",\"n\":1}""#, #""body": "{\"access_token\":\"[redacted]\",\"n\":1}""#),
        (#"{"AccessToken":"q","clientSecret":"w","code":"c1"}"#, #"{"AccessToken":"[redacted]","clientSecret":"[redacted]","code":"[redacted]"}"#),
    ])
    func jsonMembers(text: String, expected: String) {
        #expect(SecretRedactor().redact(text) == expected)
    }

    @Test("Bearer and Basic credentials, but not a challenge's auth-params")
    func authorizationSchemes() {
        let redactor = SecretRedactor()
        #expect(redactor.redact("Authorization: Bearer eyJ0eXAi.Zm9v-_~+/==") == "Authorization: Bearer \(mask)")
        #expect(redactor.redact("authorization: bearer abc, next") == "authorization: bearer \(mask), next")
        #expect(redactor.redact("Authorization: Basic dXNlcjpwYXNz") == "Authorization: Basic \(mask)")
        let challenge = #"WWW-Authenticate: Bearer authorization_uri="https://a/authorize",tokenIssuance_uri="https://a/token""#
        #expect(redactor.redact(challenge) == challenge)
    }

    @Test("a known value is masked wherever it appears: as is, percent-encoded, form-encoded and JSON-escaped")
    func knownValues() {
        let token = "tok/en+with space&more"
        let redactor = SecretRedactor(knownSecrets: [token])
        #expect(redactor.redact("echo \(token) done") == "echo \(mask) done")
        #expect(redactor.redact("u?t=tok%2Fen%2Bwith%20space%26more") == "u?t=\(mask)")
        #expect(redactor.redact("t=tok%2Fen%2Bwith+space%26more") == "t=\(mask)")
        #expect(redactor.redact(#"{"x":"tok\/en+with space&more"}"#) == #"{"x":"\#(mask)"}"#)
        #expect(SecretRedactor(knownSecrets: ["pw"]).redact("pw stays: too short to mask by value") == "pw stays: too short to mask by value")
        #expect(redactor.adding(["another-secret"]).redact("another-secret \(token)") == "\(mask) \(mask)")
    }

    @Test("text without secrets is unchanged, and masking twice changes nothing more")
    func idempotent() {
        let plain = "PASS Locks/Lock.Success [HTTP 409] X-WOPI-Lock: abc; access token given; token-refresh ok"
        #expect(SecretRedactor().redact(plain) == plain)
        let once = SecretRedactor(knownSecrets: ["secret-value"]).redact("access_token=secret-value Bearer secret-value")
        #expect(once == "access_token=\(mask) Bearer \(mask)")
        #expect(SecretRedactor().redact(once) == once)
    }

    @Test("names that hold secrets")
    func secretNames() {
        for name in ["access-token", "scratch-token", "password", "client-secret", "WOPI_OFFICE_CLIENT_SECRET", "refresh_token", "code"] {
            #expect(SecretRedactor.isSecretName(name), "\(name)")
        }
        for name in ["wopi-src", "user", "testcases", "access-token-ttl", "tokenIssuance_uri"] {
            #expect(!SecretRedactor.isSecretName(name), "\(name)")
        }
    }
}
