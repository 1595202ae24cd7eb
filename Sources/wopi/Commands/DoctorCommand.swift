import ArgumentParser
import Foundation
import OfficeURLScheme

/// `wopi doctor`: checks an iOS app's Info.plist for launching Office and being returned to.
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check an iOS app's Info.plist for what Office integration needs.",
        discussion: """
            Reads an XML or binary Info.plist and lists each problem with its fix:
              - Office schemes missing from LSApplicationQueriesSchemes (ms-word, ms-excel, \
            ms-powerpoint, onenote and the ms-*-wopi-support-1605 check schemes), without which \
            canOpenURL answers false;
              - more than 50 LSApplicationQueriesSchemes entries (iOS ignores the rest);
              - the passback and sign-in schemes not registered under CFBundleURLTypes.

            Exit status: 0 when there are no findings, 1 when there are, 2 when the file cannot \
            be read or a scheme is invalid.

            Example:
              wopi doctor MyApp/Info.plist --passback clouddrive --sign-in-scheme contoso
            """
    )

    @Argument(help: ArgumentHelp("The Info.plist to check (XML or binary).", valueName: "path"))
    var path: String

    @Option(help: "The passback scheme your app sends as |p|; must be under CFBundleURLTypes.")
    var passback: String?

    @Option(name: .customLong("sign-in-scheme"), help: "The scheme Office opens for app-to-app sign-in; must be under CFBundleURLTypes.")
    var signInScheme: String?

    func run() throws {
        let findings: [InfoPlistFinding]
        do {
            let check = try InfoPlistCheck(passbackScheme: passback, signInScheme: signInScheme)
            findings = try check.check(contentsOf: URL(fileURLWithPath: path))
        } catch let error as OfficeURLError {
            throw ValidationError(error.description)
        } catch let error as InfoPlistCheckError {
            throw ValidationError(error.description)
        }
        guard !findings.isEmpty else {
            Console.line("\(path): no problems found.")
            return
        }
        Console.line("\(path): \(findings.count) problem\(findings.count == 1 ? "" : "s") found.")
        for finding in findings {
            Console.line("- \(finding.problem)")
            Console.line("  fix: \(finding.fix)")
        }
        throw ExitCode(1)
    }
}
