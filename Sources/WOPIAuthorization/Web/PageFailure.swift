import Foundation
import HTTPTypes
import Hummingbird
import Logging
import WOPIHost

/// What a page answers when the store behind it fails: a 503 page in the visitor's language and
/// one error line in the log, never a "not found" that would hide the failure.
enum PageFailure {
    /// `page()`, or the 503 page when it throws anything but a deliberate refusal (an
    /// `HTTPResponseError` below 500, such as a share link's 404).
    ///
    /// The log line names the path (a share link's token replaced) and the error, never cookies,
    /// form fields or tokens.
    static func guarding(_ request: Request, logger: Logger, language: PageLanguage, brand: String, basePath: String,
                         _ page: () async throws -> Response) async throws -> Response {
        do {
            return try await page()
        } catch let refusal as any HTTPResponseError where refusal.status.code < 500 {
            throw refusal
        } catch {
            logger.error("page unavailable: the store failed", metadata: [
                "path": "\(RequestLogMiddleware<WOPIRequestContext>.loggablePath(request.uri.path))",
                "error": "\(type(of: error)): \(error)",
            ])
            return try unavailable(language: language, brand: brand, basePath: basePath)
        }
    }

    /// The 503 page: the web front's frame without a session, the message and a link home.
    static func unavailable(language: PageLanguage, brand: String, basePath: String) throws -> Response {
        let strings = language.webFront
        let page = MessagePage(heading: brand, message: strings.unavailable, home: .init(href: basePath + "/", label: strings.myFiles))
        return try WebFrontLayout(language: language, brand: brand, basePath: basePath, signedIn: nil, pagePath: basePath + "/")
            .response("message", page, title: strings.unavailableTitle, status: .serviceUnavailable)
    }
}
