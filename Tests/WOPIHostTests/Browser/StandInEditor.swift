import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import TestSupport
import WOPIHost

/// A stand-in browser editor on its own 127.0.0.1 port (so its own origin), built from Microsoft's
/// host page and PostMessage pages as an editor sees them:
/// - `POST /edit`: the host page's form arrives here; it records the form and the query, calls
///   CheckFileInfo with the token as an editor does, and answers a page that sends
///   `App_LoadingStatus` to `PostMessageOrigin`, reports every message the host sends back
///   (`POST /report/<MessageId>`), and, once the host is ready, embeds a page from a foreign
///   origin (`http://localhost:<port>/foreign`) that sends `UI_Close` to the host page, and asks
///   to save as ODT (Collabora's `UI_SaveAs`), reporting the `Action_SaveAs` file name it gets.
/// - Told `send-close` by the host page's own window, it sends `UI_Close` itself.
final class StandInEditor: @unchecked Sendable {
    let port: Int
    private let lock = NSLock()
    private var forms: [(query: [String: String], fields: [String: String], postMessageOrigin: String?)] = []
    private var reports: [String] = []

    /// `http://127.0.0.1:<port>`.
    var origin: String { "http://127.0.0.1:\(port)" }

    /// The discovery document of this editor: Word files by extension, with placeholders and a favicon.
    var discovery: String {
        """
        <wopi-discovery><net-zone name="external-http"><app name="Word" favIconUrl="\(origin)/icon.ico">\
        <action name="edit" ext="docx" urlsrc="\(origin)/edit?&lt;ui=UI_LLCC&amp;&gt;&lt;wopisrc=WOPI_SOURCE&amp;&gt;&lt;IsLicensedUser=BUSINESS_USER&amp;&gt;"/>\
        <action name="view" ext="docx" urlsrc="\(origin)/edit?view=1&amp;&lt;ui=UI_LLCC&amp;&gt;"/>\
        </app></net-zone></wopi-discovery>
        """
    }

    /// The forms posted so far.
    var postedForms: [(query: [String: String], fields: [String: String], postMessageOrigin: String?)] { lock.withLock { forms } }
    /// The message ids reported so far, in order.
    var reported: [String] { lock.withLock { reports } }

    private init(port: Int) { self.port = port }

    /// Runs `body` with a stand-in editor and a browser-test host that has it as its browser editor `standin`.
    static func withHost<T: Sendable>(_ body: (StandInEditor, BrowserHost) async throws -> T) async throws -> T {
        try await run { editor in
            let spec = try WebClientSpec(name: "standin", discoveryURL: "\(editor.origin)/hosting/discovery")
            let discovery = Data(editor.discovery.utf8)
            let clients = try await WebClients([spec]) { _ in discovery }
            return try await BrowserHost.run(webClients: clients) { host in try await body(editor, host) }
        }
    }

    /// Starts the editor, runs `body`, stops it.
    static func run<T: Sendable>(_ body: (StandInEditor) async throws -> T) async throws -> T {
        let editor = StandInEditor(port: try LocalPort.free())
        let router = Router()
        router.post("edit") { request, _ in try await editor.edit(request) }
        router.post("report/:id") { _, context in
            let id = context.parameters.get("id") ?? ""
            editor.lock.withLock { editor.reports.append(id.removingPercentEncoding ?? id) }
            return Response(status: .noContent)
        }
        router.get("foreign") { _, _ in
            Self.html("""
                <!doctype html><title>foreign</title><script>
                top.postMessage(JSON.stringify({ MessageId: 'UI_Close', SendTime: Date.now(), Values: {} }), '*');
                fetch('/report/foreign-sent', { method: 'POST' });
                </script>
                """)
        }
        var logger = Logger(label: "stand-in-editor")
        logger.logLevel = .critical
        let (running, continuation) = AsyncStream.makeStream(of: Void.self)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: editor.port)),
                              onServerRunning: { _ in continuation.finish() }, logger: logger)
        let server = Task {
            defer { continuation.finish() }
            try await app.runService(gracefulShutdownSignals: [])
        }
        for await _ in running {}
        let result: Result<T, any Error>
        do { result = .success(try await body(editor)) } catch { result = .failure(error) }
        server.cancel()
        _ = await server.result
        return try result.get()
    }

    private func edit(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 20)
        let fields = Self.formFields(String(buffer: body))
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
        // As an editor does: CheckFileInfo with the posted token, for PostMessageOrigin.
        var origin: String?
        if let source = query["wopisrc"], let token = fields["access_token"],
           let encoded = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "\(source)?access_token=\(encoded)"), timeout: .seconds(30))
            let info = try await response.body.collect(upTo: 1 << 20)
            let object = try? JSONSerialization.jsonObject(with: Data(info.readableBytesView)) as? [String: Any]
            origin = object?["PostMessageOrigin"] as? String
        }
        lock.withLock { forms.append((query, fields, origin)) }
        let host = origin ?? ""
        return Self.html("""
            <!doctype html><title>editor</title><body><p>stand-in editor</p><script>
            var host = \(Self.jsString(host));
            function report(id) { fetch('/report/' + encodeURIComponent(id), { method: 'POST' }); }
            window.addEventListener('message', function (event) {
              if (event.origin !== host) { return; }
              if (event.data === 'send-close') {
                parent.postMessage(JSON.stringify({ MessageId: 'UI_Close', SendTime: Date.now(), Values: {} }), host);
                return;
              }
              var message = JSON.parse(event.data);
              report(message.MessageId === 'Action_SaveAs' ? 'Action_SaveAs:' + message.Values.Filename : message.MessageId);
              if (message.MessageId === 'Host_PostmessageReady') {
                parent.postMessage(JSON.stringify({ MessageId: 'UI_SaveAs', SendTime: Date.now(), Values: { format: 'odt' } }), host);
                var frame = document.createElement('iframe');
                frame.src = 'http://localhost:\(port)/foreign';
                document.body.appendChild(frame);
              }
            });
            parent.postMessage(JSON.stringify({ MessageId: 'App_LoadingStatus', SendTime: Date.now(),
                                                Values: { DocumentLoadedTime: Date.now() } }), host);
            </script></body>
            """)
    }

    private static func html(_ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    private static func jsString(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text])) ?? Data("[\"\"]".utf8)
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }

    /// `application/x-www-form-urlencoded` fields.
    static func formFields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }
}
