import Foundation
import Testing
import WOPIHTTPClient
@testable import WOPIValidator

@Suite("Validators against crafted responses")
struct ValidatorTests {
    let validator = ResponseValidator(resources: ["Doc": TestResource(id: "Doc", name: "Doc.docx", filePath: "R\\Doc.docx")],
                                      schemas: Fixtures.schemasIfPresent, policy: .wopiKit)
    let state = SavedState(accessToken: "t", wopiSrc: "http://h/wopi/files/1")

    func response(_ status: Int, _ headers: [HeaderField] = [], json: String? = nil) -> ResponseSnapshot {
        ResponseSnapshot(TransportResponse(status: status, headers: headers, body: Data((json ?? "").utf8)), expectsText: true)
    }

    @Test("ResponseCodeValidator compares the status")
    func responseCode() {
        #expect(validator.errors(.responseCode(200), response: response(200), state: state).isEmpty)
        #expect(validator.errors(.responseCode(200), response: response(404), state: state) == ["Incorrect StatusCode. Expected: 200, Actual: 404"])
    }

    @Test("a request without validators must answer 200, and Content-Length must match the body")
    func defaults() {
        let plain = RequestDefinition(kind: .checkFileInfo)
        #expect(validator.failures(for: plain, response: response(200), state: state).isEmpty)
        #expect(validator.failures(for: plain, response: response(500), state: state).count == 1)
        let lying = response(200, [HeaderField("Content-Length", "10")], json: "{}")
        #expect(validator.failures(for: plain, response: lying, state: state).first?.contains("does not match value in header content-length") == true)
    }

    @Test("ResponseHeaderValidator: optional, required, equality, ShouldMatch, state keys, comparators")
    func responseHeader() {
        let r = response(200, [HeaderField("x-wopi-lock", "ABC"), HeaderField("X-Count", "5")])
        func errors(_ check: ResponseHeaderCheck, _ s: SavedState? = nil) -> [String] {
            validator.errors(.responseHeader(check), response: r, state: s ?? state)
        }
        #expect(errors(ResponseHeaderCheck(header: "X-WOPI-Lock", expectedValue: "abc")).isEmpty)  // case-insensitive
        #expect(errors(ResponseHeaderCheck(header: "X-WOPI-Lock", expectedValue: "xyz")).count == 1)
        #expect(errors(ResponseHeaderCheck(header: "X-WOPI-Lock", expectedValue: "xyz", shouldMatch: false)).isEmpty)
        #expect(errors(ResponseHeaderCheck(header: "X-WOPI-Lock", expectedValue: "ABC", shouldMatch: false)).count == 1)
        #expect(errors(ResponseHeaderCheck(header: "X-Missing")).isEmpty)
        #expect(errors(ResponseHeaderCheck(header: "X-Missing", isRequired: true)) == ["'X-Missing' header is not present on the response"])
        var saved = state
        saved.save("ABC", for: "Key")
        #expect(errors(ResponseHeaderCheck(header: "X-WOPI-Lock", expectedValue: "zzz", expectedStateKey: "Key"), saved).isEmpty)
        saved.save(nil, for: "Empty")
        #expect(errors(ResponseHeaderCheck(header: "X-WOPI-Lock", expectedValue: "ABC", expectedStateKey: "Empty"), saved).isEmpty)
        #expect(errors(ResponseHeaderCheck(header: "X-Count", expectedValue: "3", comparatorText: ">")).isEmpty)
        #expect(errors(ResponseHeaderCheck(header: "X-Count", expectedValue: "9", comparatorText: ">=")).count == 1)
        #expect(errors(ResponseHeaderCheck(header: "X-Count", expectedValue: "9", comparatorText: "~")) == ["Comparator '~' is not valid"])
    }

    @Test("X-WOPI-ItemVersion is required under the WOPIKit policy but optional under the original one")
    func itemVersionPolicy() {
        let check = ValidatorDefinition.responseHeader(ResponseHeaderCheck(header: "X-WOPI-ItemVersion"))
        #expect(validator.errors(check, response: response(200), state: state) == ["'X-WOPI-ItemVersion' header is not present on the response"])
        let original = ResponseValidator(resources: [:], schemas: [:], policy: .original)
        #expect(original.errors(check, response: response(200), state: state).isEmpty)
    }

    @Test("LockMismatchValidator wants 409 and the current lock")
    func lockMismatch() {
        #expect(validator.errors(.lockMismatch(expectedLock: "L"), response: response(409, [HeaderField("X-WOPI-Lock", "L")]), state: state).isEmpty)
        #expect(validator.errors(.lockMismatch(expectedLock: "L"), response: response(409), state: state)
            == ["'X-WOPI-Lock' header is not present on the response"])
        #expect(validator.errors(.lockMismatch(expectedLock: "L"), response: response(200, [HeaderField("X-WOPI-Lock", "L")]), state: state).count == 1)
        // An empty expected lock is not required, but a non-empty one in the answer is wrong.
        #expect(validator.errors(.lockMismatch(expectedLock: ""), response: response(409), state: state).isEmpty)
        #expect(validator.errors(.lockMismatch(expectedLock: ""), response: response(409, [HeaderField("X-WOPI-Lock", "other")]), state: state).count == 1)
    }

    @Test("Or passes when one child passes; And reports every failure")
    func combinations() {
        let r = response(404)
        #expect(validator.errors(.or([.responseCode(200), .responseCode(404)]), response: r, state: state).isEmpty)
        #expect(validator.errors(.or([.responseCode(200), .responseCode(500)]), response: r, state: state).count == 2)
        #expect(validator.errors(.and([.responseCode(404), .responseCode(200), .responseCode(500)]), response: r, state: state).count == 2)
    }

    @Test("JSON property kinds", arguments: [
        (JSONPropertyCheck(kind: .boolean, name: "UserCanWrite", isRequired: true, expectedValue: "true"), true),
        (JSONPropertyCheck(kind: .boolean, name: "SupportsLocks", isRequired: true, expectedValue: "true"), false),
        (JSONPropertyCheck(kind: .boolean, name: "Missing", expectedValue: "true"), true),
        (JSONPropertyCheck(kind: .boolean, name: "Missing", isRequired: true, expectedValue: "true"), false),
        (JSONPropertyCheck(kind: .integer, name: "Size", expectedValue: "12"), true),
        (JSONPropertyCheck(kind: .long, name: "Size", expectedValue: "13"), false),
        (JSONPropertyCheck(kind: .string, name: "BaseFileName", isRequired: true, endsWith: ".WOPITEST", ignoreCase: true), true),
        (JSONPropertyCheck(kind: .string, name: "BaseFileName", isRequired: true, endsWith: ".WOPITEST"), false),
        (JSONPropertyCheck(kind: .string, name: "OwnerId", expectedValue: "ALICE", ignoreCase: true), true),
        (JSONPropertyCheck(kind: .string, name: "OwnerId", expectedValue: "ALICE"), false),
        (JSONPropertyCheck(kind: .stringRegex, name: "Version", expectedValue: "^v[0-9]+$"), true),
        (JSONPropertyCheck(kind: .stringRegex, name: "Version", expectedValue: "^v[0-9]+$", shouldMatch: false), false),
        (JSONPropertyCheck(kind: .absoluteURL, name: "Url", isRequired: true, mustIncludeAccessToken: true), true),
        (JSONPropertyCheck(kind: .absoluteURL, name: "HostEditUrl", isRequired: true, mustIncludeAccessToken: true), false),
        (JSONPropertyCheck(kind: .absoluteURL, name: "BadUrl"), false),
        (JSONPropertyCheck(kind: .array, name: "SupportedShareUrlTypes", containsValue: "readonly"), true),
        (JSONPropertyCheck(kind: .array, name: "SupportedShareUrlTypes", containsValue: "Edit"), false),
        (JSONPropertyCheck(kind: .arrayLength, name: "Children", expectedValue: "2"), true),
        (JSONPropertyCheck(kind: .arrayLength, name: "Children", expectedValue: "1"), false),
        (JSONPropertyCheck(kind: .long, name: "AccessTokenExpiry", isRequired: true), false),
    ])
    func jsonProperties(check: JSONPropertyCheck, passes: Bool) {
        let body = """
            {"UserCanWrite":true,"SupportsLocks":false,"Size":12,"BaseFileName":"x.wopitest","OwnerId":"alice","Version":"v3",
             "Url":"https://h/wopi/files/2?access_token=abc","HostEditUrl":"https://h/edit","BadUrl":"not a url",
             "SupportedShareUrlTypes":["ReadOnly","ReadWrite"],"Children":[{},{}],"AccessTokenExpiry":5}
            """
        let errors = validator.errors(.jsonContent(shouldExist: true, properties: [check]), response: response(200, json: body), state: state)
        #expect(errors.isEmpty == passes, "\(check.kind) \(check.name): \(errors)")
    }

    @Test("JSON content: ExpectedStateKey wins, bodies must exist (or not), non-JSON fails")
    func jsonContentRules() {
        var saved = state
        saved.save("True", for: "Flag")
        let check = JSONPropertyCheck(kind: .boolean, name: "IsEduUser", expectedValue: "false", expectedStateKey: "Flag")
        #expect(validator.errors(.jsonContent(shouldExist: true, properties: [check]), response: response(200, json: #"{"IsEduUser":true}"#), state: saved).isEmpty)
        #expect(validator.errors(.jsonContent(shouldExist: true, properties: [check]), response: response(200, json: #"{"IsEduUser":false}"#), state: saved).count == 1)
        #expect(validator.errors(.jsonContent(shouldExist: true, properties: []), response: response(200), state: state).count == 1)
        #expect(validator.errors(.jsonContent(shouldExist: false, properties: []), response: response(200), state: state).isEmpty)
        #expect(validator.errors(.jsonContent(shouldExist: false, properties: []), response: response(200, json: "{}"), state: state).count == 1)
        #expect(validator.errors(.jsonContent(shouldExist: true, properties: []), response: response(200, json: "<html>"), state: state).count == 1)
    }

    @Test("ResponseContentValidator compares bytes with the resource's stand-in content")
    func responseContent() {
        let expected = TestResource(id: "Doc", name: "Doc.docx", filePath: "R\\Doc.docx").content
        let good = ResponseSnapshot(TransportResponse(status: 200, body: Data(expected)), expectsText: false)
        let bad = ResponseSnapshot(TransportResponse(status: 200, body: Data(expected + [0])), expectsText: false)
        #expect(validator.errors(.responseContent(resourceId: "Doc", expectedBody: nil), response: good, state: state).isEmpty)
        #expect(validator.errors(.responseContent(resourceId: "Doc", expectedBody: nil), response: bad, state: state).count == 1)
        #expect(validator.errors(.responseContent(resourceId: nil, expectedBody: "hi"), response: response(200, json: "hi"), state: state).isEmpty)
    }

    @Test("JsonSchemaValidator applies the CheckFileInfo schemas")
    func schemas() async throws {
        // The suite's validator has the schemas only where they were found before any test ran; this one has them once fetched.
        let validator = ResponseValidator(resources: [:], schemas: try await Fixtures.definitions().schemas, policy: .wopiKit)
        let valid = #"{"BaseFileName":"a.wopitest","OwnerId":"o","Size":1,"UserId":"u","Version":"1","UserCanWrite":true,"BreadcrumbBrandUrl":"","CloseUrl":"https://x/close"}"#
        #expect(validator.errors(.jsonSchema("CsppCheckFileInfoSchema"), response: response(200, json: valid), state: state).isEmpty)
        let cases = [
            #"{"BaseFileName":"a","OwnerId":"o","Size":1,"UserId":"u"}"#,                        // Version missing
            #"{"BaseFileName":"a","OwnerId":"o","Size":"1","UserId":"u","Version":"1"}"#,        // Size not an integer
            #"{"BaseFileName":"a","OwnerId":"o","Size":1.5,"UserId":"u","Version":"1"}"#,        // fractional Size
            #"{"BaseFileName":"a","OwnerId":"o","Size":1,"UserId":"u","Version":"1","SupportsCoauth":true}"#,  // forbidden in Cspp
            #"{"BaseFileName":"a","OwnerId":"o","Size":1,"UserId":"u","Version":"1","CloseUrl":"not a uri"}"#,
        ]
        for body in cases {
            #expect(!validator.errors(.jsonSchema("CsppCheckFileInfoSchema"), response: response(200, json: body), state: state).isEmpty, "\(body)")
        }
    }

    @Test("a transport failure is reported by the exception check")
    func transportFailure() {
        let definition = RequestDefinition(kind: .checkFileInfo, validators: [.responseCode(200)])
        let failures = validator.failures(for: definition, response: ResponseSnapshot(transportError: "connection refused"), state: state)
        #expect(failures.first == "ExceptionValidator: Exception thrown while executing: connection refused")
    }

    @Test("a transport failure is said once, not once more by every validator that has no body to read")
    func transportFailureSaidOnce() {
        let definition = RequestDefinition(kind: .checkFileInfo, validators: [.responseCode(200), .jsonSchema("CsppCheckFileInfoSchema"),
                                                                               .jsonSchema("CsppCheckFileInfoSchema")])
        let failures = validator.failures(for: definition, response: ResponseSnapshot(transportError: "connection refused"), state: state)
        #expect(failures == ["ExceptionValidator: Exception thrown while executing: connection refused"])
    }
}
