import Foundation
import WOPIValidator

/// Locations of the real validator data shipped in the workspace (`../shared/wopi-validator`).
enum Fixtures {
    /// `../shared/wopi-validator` beside the package (found from this file, or from the working directory),
    /// or `$WOPI_VALIDATOR_DIR` when set (scratch packages that symlink the sources need it).
    static let validatorDirectory: URL = {
        if let override = ProcessInfo.processInfo.environment["WOPI_VALIDATOR_DIR"] {
            return URL(fileURLWithPath: override)
        }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // WOPIValidatorTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
        let candidates = [
            packageRoot.deletingLastPathComponent().appendingPathComponent("shared/wopi-validator"),
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("../shared/wopi-validator"),
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("TestCases.xml").path) } ?? candidates[0]
    }()

    static let testCasesURL = validatorDirectory.appendingPathComponent("TestCases.xml")

    /// The real definitions, parsed once per process.
    static let definitions: ValidatorDefinitions = {
        do {
            return try ValidatorDefinitions.load(testCasesAt: testCasesURL)
        } catch {
            fatalError("cannot load \(testCasesURL.path) (set WOPI_VALIDATOR_DIR to the wopi-validator folder): \(error)")
        }
    }()

    static func schema(_ id: String) -> JSONSchema {
        guard let schema = definitions.schemas[id] else { fatalError("schema \(id) missing") }
        return schema
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
