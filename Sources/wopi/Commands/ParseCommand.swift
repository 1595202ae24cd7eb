import ArgumentParser
import Foundation
import OfficeURLScheme

/// `wopi parse`: explains an Office invoke URI, passback or app-to-app sign-in URL as JSON.
struct ParseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Decode an Office URI, passback or app-to-app sign-in URL into one JSON object.",
        discussion: """
            Reads the raw form (ms-word:ofe|u|…) and the fully percent-encoded form Foundation \
            makes (ms-word:ofe%7Cu%7C…). The object's "kind" is invoke, passback, signInRequest or \
            signInResponse; values are decoded. Fields, where present:
              invoke          app, scheme, mode, url, saveLocation, passback, context, service, user,
                              fileName, source, extra [{descriptor, value}], warnings
              passback        scheme, mode, url, uploadPending, context, extra
              signInRequest   scheme, clientId, responseType, scope, culture, build, platform,
                              officeApp, action, returnScheme, extra [{name, value}]
              signInResponse  scheme, code, tokenEndpoint, sessionContext, action, error,
                              errorDescription, errorUri, extra

            Example:
              wopi parse 'clouddrive:ofe|u|https://contoso/Q4/budget.docx|z|no|c|folderviewQ4'

            Input that is none of these exits with status 2 and one line on stderr naming the problem.
            """
    )

    @Argument(help: ArgumentHelp("The URI or URL to decode. Quote it: '|' and '&' mean something to the shell.", valueName: "string"))
    var string: String

    func run() throws {
        let message: OfficeURLMessage
        do { message = try OfficeURLMessage(string: string) } catch { throw ValidationError(error.description) }
        // The decoding of what the user handed in, sign-in codes included: the command's product, not an echo.
        Console.unmasked(try Self.json(for: message))
    }

    /// The JSON object for a parsed URL; keys in a fixed order, slashes unescaped.
    static func json(for message: OfficeURLMessage) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data: Data
        switch message {
        case .invoke(let invoke):
            data = try encoder.encode(InvokeJSON(
                kind: "invoke", app: invoke.app.rawValue, scheme: invoke.app.scheme, mode: invoke.command.modeName,
                url: invoke.documentURL, saveLocation: invoke.saveLocation, passback: invoke.passbackScheme,
                context: invoke.context, service: invoke.service, user: invoke.user, fileName: invoke.fileName,
                source: invoke.source?.rawValue,
                extra: invoke.extraArguments.isEmpty ? nil : invoke.extraArguments.map { DescriptorJSON(descriptor: $0.descriptor, value: $0.value) },
                warnings: invoke.warnings.isEmpty ? nil : invoke.warnings.map(\.description)))
        case .passback(let back):
            data = try encoder.encode(PassbackJSON(
                kind: "passback", scheme: back.scheme, mode: back.command.modeName, url: back.documentURL,
                uploadPending: back.uploadPending, context: back.context,
                extra: back.extraArguments.isEmpty ? nil : back.extraArguments.map { DescriptorJSON(descriptor: $0.descriptor, value: $0.value) }))
        case .signInRequest(let request):
            data = try encoder.encode(SignInRequestJSON(
                kind: "signInRequest", scheme: request.scheme, clientId: request.clientID, responseType: request.responseType,
                scope: request.scope, culture: request.culture, build: request.build, platform: request.platform,
                officeApp: request.officeApp, action: request.action, returnScheme: request.returnScheme,
                extra: request.extraParameters.isEmpty ? nil : request.extraParameters.map { ParameterJSON(name: $0.name, value: $0.value) }))
        case .signInResponse(let response):
            data = try encoder.encode(SignInResponseJSON(
                kind: "signInResponse", scheme: response.scheme, code: response.code, tokenEndpoint: response.tokenEndpoint,
                sessionContext: response.sessionContext, action: response.action, error: response.error?.code,
                errorDescription: response.error?.description, errorUri: response.error?.uri,
                extra: response.extraParameters.isEmpty ? nil : response.extraParameters.map { ParameterJSON(name: $0.name, value: $0.value) }))
        }
        return String(decoding: data, as: UTF8.self)
    }

    private struct DescriptorJSON: Encodable { let descriptor: String; let value: String }
    private struct ParameterJSON: Encodable { let name: String; let value: String }

    private struct InvokeJSON: Encodable {
        let kind: String, app: String, scheme: String, mode: String, url: String
        let saveLocation: String?, passback: String?, context: String?, service: String?, user: String?
        let fileName: String?, source: String?, extra: [DescriptorJSON]?, warnings: [String]?
    }

    private struct PassbackJSON: Encodable {
        let kind: String, scheme: String, mode: String, url: String
        let uploadPending: Bool?, context: String?, extra: [DescriptorJSON]?
    }

    private struct SignInRequestJSON: Encodable {
        let kind: String, scheme: String, clientId: String, responseType: String
        let scope: String?, culture: String?, build: String?, platform: String?, officeApp: String?
        let action: String?, returnScheme: String?, extra: [ParameterJSON]?
    }

    private struct SignInResponseJSON: Encodable {
        let kind: String, scheme: String, code: String?, tokenEndpoint: String?, sessionContext: String?
        let action: String?, error: String?, errorDescription: String?, errorUri: String?, extra: [ParameterJSON]?
    }
}
