import Foundation
import OfficeSimulator
import OfficeURLScheme
import Testing
import WOPIHTTPClient

/// Each mobile rule of `wopi check-host` passes a good answer and names what is wrong with a bad one.
@Suite("Mobile readiness rules")
struct MobileRulesTests {
    static var good: [String: Any] { [
        "BaseFileName": "Plan.docx", "OwnerId": "u1", "UserId": "u1", "Version": "v1", "Size": 3, "IsEduUser": false,
        "LicenseCheckForEditIsEnabled": false, "SupportsContainers": true, "SupportsDeleteFile": true, "UserCanWrite": true,
    ] }

    static func body(_ changes: [String: Any?] = [:]) throws -> Data {
        var object = good
        for (key, value) in changes { object[key] = value }
        return try JSONSerialization.data(withJSONObject: object)
    }

    @Test("a well-formed CheckFileInfo passes every CheckFileInfo rule")
    func goodAnswer() throws {
        let body = try Self.body()
        for check in [MobileRules.requiredProperties(checkFileInfo: body), MobileRules.propertyTypes(checkFileInfo: body),
                      MobileRules.licensingProperties(checkFileInfo: body), MobileRules.refusedCharacters(checkFileInfo: body),
                      MobileRules.containersAndDelete(checkFileInfo: body)] {
            #expect(check.outcome == .passed, "\(check.name): \(check.detail)")
            #expect(check.suite == "rule")
        }
    }

    @Test("each rule names what is wrong")
    func badAnswers() throws {
        #expect(MobileRules.requiredProperties(checkFileInfo: try Self.body(["Version": nil])).detail == "Version is missing")
        #expect(MobileRules.requiredProperties(checkFileInfo: try Self.body(["Size": "3"])).detail.contains("Size is a string"))
        let types = MobileRules.propertyTypes(checkFileInfo: try Self.body(["UserCanWrite": 1]))
        #expect(types.outcome == .failed && types.detail == "UserCanWrite is a number (1), not a Boolean")
        #expect(MobileRules.licensingProperties(checkFileInfo: try Self.body(["LicenseCheckForEditIsEnabled": nil])).outcome == .failed)
        let refused = MobileRules.refusedCharacters(checkFileInfo: try Self.body(["BaseFileName": "Q4#plan.docx"]))
        #expect(refused.outcome == .failed && refused.detail.contains("'#'"))
        let delete = MobileRules.containersAndDelete(checkFileInfo: try Self.body(["SupportsDeleteFile": false]))
        #expect(delete.detail == "SupportsContainers is true but SupportsDeleteFile is not; Office for iOS needs both")
        #expect(MobileRules.containersAndDelete(checkFileInfo: try Self.body(["SupportsContainers": nil])).outcome == .failed)
        #expect(MobileRules.requiredProperties(checkFileInfo: Data("[]".utf8)).detail == "the CheckFileInfo body is not a JSON object")
    }

    @Test("a rule names every problem it finds, not only the first")
    func everyProblem() throws {
        let required = MobileRules.requiredProperties(checkFileInfo: try Self.body(["OwnerId": nil, "Version": nil, "Size": "3"]))
        #expect(required.outcome == .failed)
        #expect(required.detail == "OwnerId is missing; Version is missing; Size is a string, not a non-negative whole number")
        let types = MobileRules.propertyTypes(checkFileInfo: try Self.body(["UserCanWrite": 1, "IsEduUser": "no"]))
        #expect(types.detail == "IsEduUser is a string (\"no\"), not a Boolean; UserCanWrite is a number (1), not a Boolean")
        let refused = MobileRules.refusedCharacters(checkFileInfo: try Self.body(["UserId": "a:b", "OwnerId": "c|d"]))
        #expect(refused.detail.contains("UserId 'a:b' contains ':'") && refused.detail.contains("OwnerId 'c|d' contains '|'"), "\(refused.detail)")
    }

    @Test("null properties and a LastModifiedTime that is not ISO 8601 UTC are warnings naming the doc page")
    func warnings() throws {
        let good = try Self.body(["LastModifiedTime": "2026-11-25T13:54:07.000Z"])
        #expect(MobileRules.noNullValues(checkFileInfo: good).outcome == .passed)
        #expect(MobileRules.lastModifiedTime(checkFileInfo: good).outcome == .passed)
        #expect(MobileRules.lastModifiedTime(checkFileInfo: try Self.body()).outcome == .passed, "absent is fine")
        #expect(MobileRules.lastModifiedTime(checkFileInfo: try Self.body(["LastModifiedTime": "2026-11-25T13:54:07Z"])).outcome == .passed)

        let nulls = MobileRules.noNullValues(checkFileInfo: try Self.body(["BreadcrumbBrandName": NSNull(), "UserFriendlyName": NSNull()]))
        #expect(nulls.outcome == .warning && nulls.name == "checkfileinfo.no-null-values")
        #expect(nulls.detail.hasPrefix("BreadcrumbBrandName, UserFriendlyName are null") && nulls.detail.contains(MobileRules.checkFileInfoDocs))
        for bad in ["2026-11-25 13:54:07.000", "2026-11-25T13:54:07+01:00", "2026-11-25T13:54:07", "25/11/2026", "2026-11-25T13:54:07.Z"] {
            let check = MobileRules.lastModifiedTime(checkFileInfo: try Self.body(["LastModifiedTime": bad]))
            #expect(check.outcome == .warning && check.detail.contains(bad) && check.detail.contains(MobileRules.checkFileInfoDocs), "\(bad): \(check.detail)")
        }
        #expect(MobileRules.lastModifiedTime(checkFileInfo: try Self.body(["LastModifiedTime": 1_764_078_847])).outcome == .warning)
    }

    @Test("licensing must be equal on the file and its folder")
    func licensingEqual() throws {
        let folder = try JSONSerialization.data(withJSONObject: ["Name": "Docs", "IsEduUser": false, "LicenseCheckForEditIsEnabled": false])
        #expect(MobileRules.licensingEqual(checkFileInfo: try Self.body(), checkContainerInfo: folder).outcome == .passed)
        let edu = try JSONSerialization.data(withJSONObject: ["Name": "Docs", "IsEduUser": true, "LicenseCheckForEditIsEnabled": false])
        let check = MobileRules.licensingEqual(checkFileInfo: try Self.body(), checkContainerInfo: edu)
        #expect(check.outcome == .failed && check.detail == "IsEduUser is false on the file but true on its folder")
    }

    @Test("the bootstrapper challenge: 401 with exactly one Bearer header in the documented format")
    func bootstrapperHeader() {
        let good = SimulatorResponse(status: 401, headers: [SimulatorHeader(
            "WWW-Authenticate", "Bearer authorization_uri=\"https://c.example/authorize\",tokenIssuance_uri=\"https://c.example/token\"")])
        let (check, challenge) = MobileRules.bootstrapperHeader(good)
        #expect(check.outcome == .passed && challenge?.tokenIssuanceURI == "https://c.example/token")
        #expect(MobileRules.bootstrapperHeader(SimulatorResponse(status: 200)).0.detail == "an unauthenticated call answered HTTP 200, not 401")
        let twice = SimulatorResponse(status: 401, headers: good.headers + good.headers)
        #expect(MobileRules.bootstrapperHeader(twice).0.detail == "expected exactly one WWW-Authenticate: Bearer header, found 2")
        let garbled = SimulatorResponse(status: 401, headers: [SimulatorHeader("WWW-Authenticate", "Bearer realm=x")])
        #expect(MobileRules.bootstrapperHeader(garbled).0.outcome == .failed)
    }

    @Test("HTTPS for everything not on loopback")
    func https() {
        #expect(MobileRules.https([("WOPISrc", "http://127.0.0.1:8080/wopi/files/1"), ("bootstrapper", "http://localhost/wopibootstrapper"),
                                   ("token", "https://c.example/token")]).outcome == .passed)
        let check = MobileRules.https([("WOPISrc", "https://c.example/wopi/files/1"), ("tokenIssuance_uri", "http://c.example/token")])
        #expect(check.outcome == .failed && check.detail.hasPrefix("tokenIssuance_uri http://c.example/token is not https"))
        #expect(MobileRules.isLoopback("[::1]") && MobileRules.isLoopback("127.0.0.2") && !MobileRules.isLoopback("10.0.0.1"))
    }

    @Test("GetLock on an unlocked file: 200 with an empty X-WOPI-Lock passes; 404 or no header fails naming GetLock.rst; a locked file is not judged")
    func getLockOnUnlockedFile() {
        func answer(_ status: Int, _ lock: String?) -> SimulatorResponse {
            SimulatorResponse(status: status, headers: lock.map { [SimulatorHeader("X-WOPI-Lock", $0)] } ?? [], body: status == 404 ? Data("no lock".utf8) : Data())
        }
        let passed = MobileRules.getLockOnUnlockedFile(answer(200, ""))
        #expect(passed.outcome == .passed && passed.suite == "rule" && passed.name == "getlock.unlocked-file", "\(passed)")
        let notFound = MobileRules.getLockOnUnlockedFile(answer(404, nil))
        #expect(notFound.outcome == .failed, "\(notFound)")
        #expect(notFound.detail.hasPrefix("GetLock answered HTTP 404 on the file, which no client had locked; it must answer 200 with an empty X-WOPI-Lock"),
                "\(notFound.detail)")
        #expect(notFound.detail.contains("GetLock.rst") && notFound.detail.contains("body: no lock"), "\(notFound.detail)")
        let headerless = MobileRules.getLockOnUnlockedFile(answer(200, nil))
        #expect(headerless.outcome == .failed && headerless.detail.hasPrefix("GetLock answered 200 without X-WOPI-Lock"), "\(headerless.detail)")
        #expect(MobileRules.getLockOnUnlockedFile(answer(200, "someone-else")).outcome == .skipped)
    }
}
