import ArgumentParser
import Foundation
import OfficeURLScheme

/// `wopi link`: builds the URI that opens a document in Office for iOS (PROTOCOL.md §1).
struct LinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Build the Office URI that opens a document in Word, Excel, PowerPoint or OneNote.",
        discussion: """
            Prints the URI in the specification's form, with raw '|' delimiters, exactly as an iOS \
            app should build it before turning it into a URL (use --percent-encoded for the form \
            Foundation's URL(string:) makes, which UIApplication.open receives).

            Open a document for editing and come back to your app:
              wopi link --app word --mode edit --url https://contoso/Q4/budget.docx --passback clouddrive --context folderviewQ4
              ms-word:ofe|u|https://contoso/Q4/budget.docx|p|clouddrive|c|folderviewQ4

            Open a file on a WOPI host:
              wopi link --app word --mode edit --wopi-src https://contoso/wopi/file/12312 --service Contoso --user a3243d --name document1.docx --source app
              ms-word:ofe|u|https://contoso/wopi/file/12312|d|Contoso|e|a3243d|n|document1.docx|a|App

            Length limits (256 characters, Excel 216) are printed as warnings on stderr; the exit \
            status stays 0. Invalid input exits with status 2 and one line on stderr.
            """
    )

    @Option(help: ArgumentHelp(
        "The Office app: word, excel, powerpoint, onenote, visio, access, project, publisher, spd or infopath.",
        discussion: "Defaults to the app for the extension of --name, else of the document URL."))
    var app: String?

    @Option(help: "What Office does: view, edit or new-from-template (also ofv, ofe, nft).")
    var mode: String = "edit"

    @Option(help: "The direct link to the document, or the template for new-from-template (|u|).")
    var url: String?

    @Option(name: .customLong("wopi-src"), help: "The WOPISrc of a file on a WOPI host (|u|); use instead of --url.")
    var wopiSrc: String?

    @Option(name: .customLong("save-location"), help: "Where new-from-template saves the document, on the template's host (|s|).")
    var saveLocation: String?

    @Option(help: "The WOPI service identifier (|d|).")
    var service: String?

    @Option(help: "The WOPI user identifier (|e|).")
    var user: String?

    @Option(help: "The file name with extension (|n|); must not contain \\ / : * ? \" < > | # { } ^ [ ] ` %.")
    var name: String?

    @Option(help: "Who launches Office (|a|): app or web.")
    var source: String?

    @Option(help: "Your app's URL scheme, without the colon; Office returns to it (|p|).")
    var passback: String?

    @Option(help: "Text Office hands back to your app unchanged (|c|).")
    var context: String?

    @Option(name: .customLong("extra"), help: ArgumentHelp(
        "An extra descriptor/argument pair as DESCRIPTOR=VALUE; repeat for more, kept in order.",
        valueName: "descriptor=value"))
    var extras: [String] = []

    @Flag(name: .customLong("percent-encoded"), help: "Print the fully percent-encoded form UIApplication.open receives.")
    var percentEncoded = false

    func run() throws {
        let invoke = try makeInvokeURI()
        for warning in invoke.warnings {
            Console.line("warning: \(warning)", to: .standardError)
        }
        Console.unmasked(percentEncoded ? invoke.percentEncodedString : invoke.string)
    }

    func makeInvokeURI() throws -> OfficeInvokeURI {
        guard let command = OfficeCommand(name: mode) else {
            throw ValidationError("--mode '\(mode)' is not view, edit or new-from-template")
        }
        let documentURL: String
        switch (url, wopiSrc) {
        case (let url?, nil): documentURL = url
        case (nil, let src?): documentURL = src
        case (nil, nil): throw ValidationError("give the document with --url or --wopi-src")
        case (_?, _?): throw ValidationError("give either --url or --wopi-src, not both")
        }
        let officeApp: OfficeApp
        if let app {
            guard let parsed = OfficeApp(rawValue: app.lowercased()) ?? OfficeApp(scheme: app) else {
                throw ValidationError("--app '\(app)' is not one of \(OfficeApp.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            officeApp = parsed
        } else if let inferred = name.flatMap(OfficeApp.init(fileExtension:)) ?? OfficeApp(fileExtension: documentURL) {
            officeApp = inferred
        } else {
            throw ValidationError("--app is missing and no app opens the extension of --name or the document URL")
        }
        var invocationSource: InvocationSource?
        if let source {
            guard let parsed = InvocationSource(name: source) else {
                throw ValidationError("--source '\(source)' is neither app nor web")
            }
            invocationSource = parsed
        }
        var extraArguments: [OfficeURIArgument] = []
        for extra in extras {
            guard let eq = extra.firstIndex(of: "=") else {
                throw ValidationError("--extra '\(extra)' is not DESCRIPTOR=VALUE")
            }
            do {
                extraArguments.append(try OfficeURIArgument(descriptor: String(extra[..<eq]), value: String(extra[extra.index(after: eq)...])))
            } catch {
                throw ValidationError(error.description)
            }
        }
        do {
            return try OfficeInvokeURI(
                app: officeApp, command: command, documentURL: documentURL, saveLocation: saveLocation,
                service: service, user: user, fileName: name, source: invocationSource,
                passbackScheme: passback, context: context, extraArguments: extraArguments)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
