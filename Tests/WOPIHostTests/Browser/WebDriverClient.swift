import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A minimal W3C WebDriver client (https://www.w3.org/TR/webdriver2/) over HTTP, for driving
/// headless Chromium through chromedriver on 127.0.0.1.
struct WebDriverClient: Sendable {
    /// chromedriver's address, `http://127.0.0.1:<port>`.
    let base: String
    let http: HTTPClient
    let sessionID: String

    /// The W3C element reference key.
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    /// Opens a browser session with `capabilities` (the `alwaysMatch` object).
    static func startSession(base: String, http: HTTPClient, capabilities: [String: Any]) async throws -> WebDriverClient {
        let value = try await command(base: base, http: http, .POST, "/session", ["capabilities": ["alwaysMatch": capabilities]])
        guard let object = value as? [String: Any], let id = object["sessionId"] as? String else {
            throw WebDriverError.unexpected("no sessionId in \(String(describing: value))")
        }
        return WebDriverClient(base: base, http: http, sessionID: id)
    }

    /// Ends the session (closes the browser).
    func quit() async {
        _ = try? await Self.command(base: base, http: http, .DELETE, "/session/\(sessionID)", nil)
    }

    // MARK: Navigation and elements

    func navigate(_ url: String) async throws {
        _ = try await send(.POST, "/url", ["url": url])
    }

    func currentURL() async throws -> String {
        try await send(.GET, "/url", nil) as? String ?? ""
    }

    func title() async throws -> String {
        try await send(.GET, "/title", nil) as? String ?? ""
    }

    /// The first element matching a CSS selector; throws `no such element` when there is none.
    func element(_ css: String) async throws -> String {
        let value = try await send(.POST, "/element", ["using": "css selector", "value": css])
        guard let object = value as? [String: Any], let id = object[Self.elementKey] as? String else {
            throw WebDriverError.unexpected("no element reference for \(css)")
        }
        return id
    }

    /// Every element matching a CSS selector.
    func elements(_ css: String) async throws -> [String] {
        let value = try await send(.POST, "/elements", ["using": "css selector", "value": css])
        return (value as? [[String: Any]] ?? []).compactMap { $0[Self.elementKey] as? String }
    }

    func click(_ element: String) async throws {
        _ = try await send(.POST, "/element/\(element)/click", [String: Any]())
    }

    func clear(_ element: String) async throws {
        _ = try await send(.POST, "/element/\(element)/clear", [String: Any]())
    }

    /// Types `text` into an element (for a file input: the path of the file to choose).
    func type(_ text: String, into element: String) async throws {
        _ = try await send(.POST, "/element/\(element)/value", ["text": text])
    }

    func text(_ element: String) async throws -> String {
        try await send(.GET, "/element/\(element)/text", nil) as? String ?? ""
    }

    func attribute(_ name: String, of element: String) async throws -> String? {
        try await send(.GET, "/element/\(element)/attribute/\(name)", nil) as? String
    }

    /// Runs a synchronous script in the page and returns its result.
    func execute(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        try await send(.POST, "/execute/sync", ["script": script, "args": arguments])
    }

    /// Runs an asynchronous script; it ends by calling `arguments[arguments.length - 1](result)`.
    func executeAsync(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        try await send(.POST, "/execute/async", ["script": script, "args": arguments])
    }

    /// The value of the current page's cookie `name`, `HttpOnly` ones included (WebDriver §14.2); `nil` when unset.
    func cookie(_ name: String) async throws -> String? {
        let all = try await send(.GET, "/cookie", nil) as? [[String: Any]] ?? []
        return all.first { $0["name"] as? String == name }?["value"] as? String
    }

    /// Sets a cookie for the current page's host, as a saved copy put back would be (WebDriver §14.3).
    func addCookie(_ name: String, value: String, path: String = "/", httpOnly: Bool = true) async throws {
        _ = try await send(.POST, "/cookie", ["cookie": ["name": name, "value": value, "path": path, "httpOnly": httpOnly]])
    }

    /// A PNG of the viewport.
    func screenshot() async throws -> Data {
        guard let base64 = try await send(.GET, "/screenshot", nil) as? String, let data = Data(base64Encoded: base64) else {
            throw WebDriverError.unexpected("screenshot is not base64")
        }
        return data
    }

    /// The browser console entries since the last call (chromedriver's `goog:loggingPrefs` log).
    func browserLog() async throws -> [BrowserLogEntry] {
        let value = try await send(.POST, "/se/log", ["type": "browser"])
        return (value as? [[String: Any]] ?? []).map {
            BrowserLogEntry(level: $0["level"] as? String ?? "", source: $0["source"] as? String ?? "", message: $0["message"] as? String ?? "")
        }
    }

    // MARK: Wire

    private func send(_ method: HTTPMethod, _ path: String, _ body: [String: Any]?) async throws -> Any? {
        try await Self.command(base: base, http: http, method, "/session/\(sessionID)\(path)", body)
    }

    static func command(base: String, http: HTTPClient, _ method: HTTPMethod, _ path: String, _ body: [String: Any]?) async throws -> Any? {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await http.execute(request, timeout: .seconds(120))
        let bytes = try await response.body.collect(upTo: 64 * 1024 * 1024)
        let json = try JSONSerialization.jsonObject(with: Data(bytes.readableBytesView), options: [.fragmentsAllowed]) as? [String: Any]
        let value = json?["value"]
        if response.status.code >= 400 {
            let object = value as? [String: Any]
            throw WebDriverError.command("\(method) \(path): \(object?["error"] as? String ?? "HTTP \(response.status.code)"): "
                                         + "\((object?["message"] as? String ?? "").prefix(400))")
        }
        return value is NSNull ? nil : value
    }
}

/// One console entry of the browser.
struct BrowserLogEntry: Sendable, CustomStringConvertible {
    var level: String
    var source: String
    var message: String
    var description: String { "[\(level) \(source)] \(message)" }
}

/// A WebDriver command failed.
enum WebDriverError: Error, CustomStringConvertible {
    case command(String)
    case unexpected(String)

    var description: String {
        switch self {
        case .command(let text): "WebDriver command failed: \(text)"
        case .unexpected(let text): "unexpected WebDriver answer: \(text)"
        }
    }
}
