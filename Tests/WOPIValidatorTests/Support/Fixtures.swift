import Foundation
import WOPIValidator

/// Microsoft's validator definitions, found as `wopi validator` finds them ($WOPI_VALIDATOR_DIR, then the XDG
/// data folder `wopi validator fetch` installs into). They are not part of the repository: without them, each
/// test that needs them fails with one line that says how to get them, and every other test still runs.
enum Fixtures {
    /// The definitions folder, or why there is none.
    static let location: Result<DefinitionsLocation, DefinitionsLocation.NotFound> = Result { () throws(DefinitionsLocation.NotFound) in
        try DefinitionsLocation.find(environment: ProcessInfo.processInfo.environment)
    }

    /// The definitions parsed once per process, or the one-line reason they are unavailable.
    private static let loaded: Result<ValidatorDefinitions, DefinitionsUnavailable> = Result { () throws(DefinitionsUnavailable) in
        let location: DefinitionsLocation
        do { location = try Fixtures.location.get() } catch { throw DefinitionsUnavailable(description: "\(error)") }
        do {
            return try ValidatorDefinitions.load(testCasesAt: location.testCasesURL)
        } catch {
            throw DefinitionsUnavailable(description: "\(location.testCasesURL.path): \(error)")
        }
    }

    /// TestCases.xml; throws the one-line reason when there is none.
    static func testCasesURL() throws -> URL {
        do { return try location.get().testCasesURL } catch { throw DefinitionsUnavailable(description: "\(error)") }
    }

    /// The real definitions; throws the one-line reason when they are unavailable.
    static func definitions() throws -> ValidatorDefinitions {
        try loaded.get()
    }

    /// The schemas when the definitions are there, else none (for tests that do not need them).
    static var schemasIfPresent: [String: JSONSchema] {
        (try? loaded.get().schemas) ?? [:]
    }

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
