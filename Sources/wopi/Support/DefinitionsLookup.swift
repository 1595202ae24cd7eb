import ArgumentParser
import Foundation
import WOPIValidator

/// How `validate` and `check-host` find Microsoft's definitions: ``DefinitionsLocation``'s lookup, with this
/// process's environment and binary. Missing definitions are invalid input: exit 2 with one line that
/// names `wopi validator fetch`.
enum DefinitionsLookup {
    /// The folder and TestCases.xml to use.
    static func locate(testcases: String?) throws -> DefinitionsLocation {
        do {
            return try DefinitionsLocation.find(testCases: testcases, environment: ProcessInfo.processInfo.environment,
                                                executable: executableURL)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The parsed definitions.
    static func load(testcases: String?) throws -> ValidatorDefinitions {
        let location = try locate(testcases: testcases)
        do {
            return try ValidatorDefinitions.load(testCasesAt: location.testCasesURL)
        } catch {
            throw ValidationError("\(location.testCasesURL.path): \(error.description)")
        }
    }

    /// This binary, links resolved.
    static var executableURL: URL? {
        Bundle.main.executableURL ?? CommandLine.arguments.first.map { URL(fileURLWithPath: $0) }
    }
}
