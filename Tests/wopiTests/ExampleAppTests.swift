import Foundation
import Testing

/// The example app's Info.plist, checked by the real `wopi doctor` as the README tells iOS developers to.
@Suite struct ExampleAppTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let infoPlist = repository.appendingPathComponent("Examples/CloudDrive/CloudDrive/Info.plist")

    @Test func doctorFindsNothingInTheExampleAppsInfoPlist() async throws {
        #expect(FileManager.default.fileExists(atPath: Self.infoPlist.path), "missing \(Self.infoPlist.path)")
        let result = try await WopiProcess.run(["doctor", Self.infoPlist.path, "--passback", "clouddrive", "--sign-in-scheme", "clouddrive"])
        #expect(result.exitCode == 0, "wopi doctor: \(result.stdout)\(result.stderr)")
        #expect(result.stdout == "\(Self.infoPlist.path): no problems found.\n")
        #expect(result.stderr.isEmpty)
    }

    @Test func doctorWouldCatchAnUnregisteredSchemeInIt() async throws {
        // The same plist with another sign-in scheme must fail, so the clean result above means something.
        let result = try await WopiProcess.run(["doctor", Self.infoPlist.path, "--passback", "clouddrive", "--sign-in-scheme", "contoso"])
        #expect(result.exitCode == 1)
        #expect(result.stdout.contains("'contoso' is not registered under CFBundleURLTypes"))
    }
}
