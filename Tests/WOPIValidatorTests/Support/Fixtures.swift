import Foundation
import DefinitionsTestSupport
import WOPIValidator

/// Microsoft's validator definitions, as ``TestDefinitions`` provides them: found as `wopi validator` finds them
/// ($WOPI_VALIDATOR_DIR, then the XDG data folder `wopi validator fetch` installs into), else fetched once into
/// that folder. Where they can be neither found nor fetched, each test that needs them fails with one line that
/// says how to get them, and every other test still runs.
enum Fixtures {
    /// The definitions parsed once per process, or the one-line reason they are unavailable.
    private static let loaded = Task { () -> Result<ValidatorDefinitions, DefinitionsUnavailable> in
        let location: DefinitionsLocation
        do { location = try await TestDefinitions.location() } catch { return .failure(DefinitionsUnavailable(description: "\(error)")) }
        do {
            return .success(try ValidatorDefinitions.load(testCasesAt: location.testCasesURL))
        } catch {
            return .failure(DefinitionsUnavailable(description: "\(location.testCasesURL.path): \(error)"))
        }
    }

    /// TestCases.xml; throws the one-line reason when there is none.
    static func testCasesURL() async throws -> URL {
        do { return try await TestDefinitions.testCasesURL() } catch { throw DefinitionsUnavailable(description: "\(error)") }
    }

    /// The real definitions; throws the one-line reason when they are unavailable.
    static func definitions() async throws -> ValidatorDefinitions {
        try await loaded.value.get()
    }

    /// The schemas of definitions already where `wopi validator` looks (none are fetched for this), else none:
    /// for tests that do not need them.
    static let schemasIfPresent: [String: JSONSchema] = {
        guard let location = try? DefinitionsLocation.find(environment: ProcessInfo.processInfo.environment) else { return [:] }
        return (try? ValidatorDefinitions.load(testCasesAt: location.testCasesURL).schemas) ?? [:]
    }()

    /// Why the definitions cannot be used: one line naming `wopi validator fetch`.
    struct DefinitionsUnavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// A minimal XML document with one prereq case and one group around `requests`.
    static func xml(requests: String, validators: String = "") -> Data {
        Data("""
            <?xml version="1.0" encoding="utf-8"?>
            <WopiValidation>
              <Resources><File Id="Doc" Name="Doc.docx" FilePath="Resources\\Doc.docx" /></Resources>
              <PrereqCases>
                <TestCase Name="Pre" Category="WopiCore"><Description>p</Description><Requests><CheckFileInfo /></Requests></TestCase>
              </PrereqCases>
              <TestGroup Name="G">
                <PrereqTests><PrereqTest>Pre</PrereqTest></PrereqTests>
                <TestCases>
                  <TestCase Name="T" Category="WopiCore"><Description>t</Description><Requests>\(requests)</Requests></TestCase>
                </TestCases>
              </TestGroup>
            </WopiValidation>
            """.utf8)
    }
}
