import Foundation
import OfficeURLScheme
import Testing

@Suite struct InfoPlistCheckTests {
    static let allOfficeSchemes = ["ms-word", "ms-word-wopi-support-1605", "ms-excel", "ms-excel-wopi-support-1605",
                                   "ms-powerpoint", "ms-powerpoint-wopi-support-1605", "onenote"]

    static func plist(queried: [String], registered: [String]) -> [String: Any] {
        ["CFBundleIdentifier": "com.contoso.drive",
         "LSApplicationQueriesSchemes": queried,
         "CFBundleURLTypes": [["CFBundleURLName": "com.contoso", "CFBundleURLSchemes": registered]]]
    }

    static func write(_ plist: [String: Any], format: PropertyListSerialization.PropertyListFormat) throws -> URL {
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: format, options: 0)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("Info-\(UUID().uuidString).plist")
        try data.write(to: url)
        return url
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func cleanPlistHasNoFindings(format: PropertyListSerialization.PropertyListFormat) throws {
        let url = try Self.write(Self.plist(queried: Self.allOfficeSchemes, registered: ["clouddrive", "contoso"]), format: format)
        defer { try? FileManager.default.removeItem(at: url) }
        let check = try InfoPlistCheck(passbackScheme: "clouddrive", signInScheme: "contoso")
        #expect(try check.check(contentsOf: url).isEmpty)
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func reportsEachProblemWithAFix(format: PropertyListSerialization.PropertyListFormat) throws {
        let queried = ["ms-word", "ms-excel"] + (0..<50).map { "other\($0)" }
        let url = try Self.write(Self.plist(queried: queried, registered: ["clouddrive"]), format: format)
        defer { try? FileManager.default.removeItem(at: url) }
        let findings = try InfoPlistCheck(passbackScheme: "clouddrive", signInScheme: "contoso").check(contentsOf: url)
        let missing = findings.filter { $0.kind == .missingQueriedScheme }.map(\.subject)
        #expect(Set(missing) == ["ms-word-wopi-support-1605", "ms-excel-wopi-support-1605", "ms-powerpoint",
                                 "ms-powerpoint-wopi-support-1605", "onenote"])
        #expect(findings.contains { $0.kind == .tooManyQueriedSchemes && $0.problem.contains("52") })
        #expect(findings.filter { $0.kind == .unregisteredURLScheme }.map(\.subject) == ["contoso"])
        #expect(findings.allSatisfy { !$0.fix.isEmpty })
        #expect(findings.first { $0.subject == "onenote" }?.fix.contains("<string>onenote</string>") == true)
    }

    @Test func emptyPlistAndBadInput() throws {
        let findings = try InfoPlistCheck(passbackScheme: "cd", signInScheme: nil).check([:])
        #expect(findings.count == Self.allOfficeSchemes.count + 1)
        #expect(throws: InfoPlistCheckError.notAPropertyList) { try InfoPlistCheck(passbackScheme: nil, signInScheme: nil).check(data: Data("<?xml version=\"1.0\"?><plist><dict><key>".utf8)) }
        let array = try PropertyListSerialization.data(fromPropertyList: ["a"], format: .xml, options: 0)
        #expect(throws: InfoPlistCheckError.notADictionary) { try InfoPlistCheck(passbackScheme: nil, signInScheme: nil).check(data: array) }
        #expect(throws: OfficeURLError.invalidScheme("bad scheme")) { try InfoPlistCheck(passbackScheme: "bad scheme", signInScheme: nil) }
        let malformed = try InfoPlistCheck(passbackScheme: nil, signInScheme: nil).check(["LSApplicationQueriesSchemes": "ms-word"])
        #expect(malformed.contains { $0.kind == .malformedKey })
    }
}
