import AsyncHTTPClient
import Foundation
import TestSupport
import NIOHTTP1
#if canImport(Glibc)
import Glibc
#endif

/// Headless Chromium driven through chromedriver, both from Debian's packages (`chromium`,
/// `chromium-driver`), at a phone-sized window.
///
/// chromedriver listens on a free 127.0.0.1 port and is stopped by its PID; Chromium gets a
/// fresh temporary profile. When either program is missing, ``run(width:height:language:_:)``
/// throws ``BrowserSetupError/missing(_:)``, which fails the test with the install command.
enum HeadlessChromium {
    /// The phone-sized viewport of the tests: the narrowest iPhone width the pages must handle.
    static let phoneWidth = 320
    static let phoneHeight = 640

    /// Starts chromedriver and a browser session, runs `body`, then ends both and removes the profile.
    static func run<T: Sendable>(width: Int = phoneWidth, height: Int = phoneHeight, language: String = "en-US",
                                 _ body: (WebDriverClient) async throws -> T) async throws -> T {
        let chromium = try locate(["chromium", "chromium-browser"], package: "chromium")
        let chromedriver = try locate(["chromedriver"], package: "chromium-driver")
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-chromium-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: profile) }

        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        let result: Result<T, any Error>
        do {
            let (process, port) = try await startDriver(chromedriver, http: http)
            let pid = process.processIdentifier
            defer {
                // chromedriver started from a test process ignores SIGTERM; SIGKILL by its PID always ends it
                // (its browser goes with the session, which `run` ends first).
                kill(pid, SIGKILL)
                process.waitUntilExit()
            }
            result = .success(try await session(chromium: chromium, profile: profile, port: port, http: http, width: width, height: height,
                                                language: language, body))
        } catch {
            result = .failure(error)
        }
        try? await http.shutdown()
        return try result.get()
    }

    /// chromedriver, ready on a free port. The port is chosen before chromedriver binds it, so another test
    /// can take it in between; chromedriver then exits at start-up, and another port is tried (three in all).
    private static func startDriver(_ chromedriver: String, http: HTTPClient) async throws -> (ChildProcess, Int) {
        var attempt = 1
        while true {
            let port = try LocalPort.free()
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: chromedriver)
            process.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1", "--log-level=SEVERE"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            do {
                try await waitUntilReady(port: port, http: http, process: process)
                return (process, port)
            } catch {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                guard case BrowserSetupError.driverExited = error, attempt < 3 else { throw error }
                attempt += 1
            }
        }
    }

    private static func session<T: Sendable>(chromium: String, profile: URL, port: Int, http: HTTPClient, width: Int, height: Int,
                                             language: String, _ body: (WebDriverClient) async throws -> T) async throws -> T {
        let base = "http://127.0.0.1:\(port)"

        let capabilities: [String: Any] = [
            "browserName": "chrome",
            "goog:chromeOptions": [
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                         "--user-data-dir=\(profile.path)", "--lang=\(language)", "--hide-scrollbars"],
                "prefs": ["intl.accept_languages": language],
                "mobileEmulation": [
                    "deviceMetrics": ["width": width, "height": height, "pixelRatio": 2, "touch": true, "mobile": true],
                    "userAgent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
                        + "Version/17.5 Mobile/15E148 Safari/604.1",
                ],
            ] as [String: Any],
            "goog:loggingPrefs": ["browser": "ALL"],
        ]
        let driver = try await WebDriverClient.startSession(base: base, http: http, capabilities: capabilities)
        let result: Result<T, any Error>
        do { result = .success(try await body(driver)) } catch { result = .failure(error) }
        await driver.quit()
        return try result.get()
    }

    /// The full path of the first of `names` found on `PATH` (or in /usr/bin, /usr/lib/chromium).
    static func locate(_ names: [String], package: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/lib/chromium"]
        for name in names {
            for folder in folders where FileManager.default.isExecutableFile(atPath: folder + "/" + name) {
                return folder + "/" + name
            }
        }
        throw BrowserSetupError.missing(package)
    }

    /// Polls chromedriver's `/status` until it reports ready (start-up, not a timed assertion).
    private static func waitUntilReady(port: Int, http: HTTPClient, process: ChildProcess) async throws {
        let base = "http://127.0.0.1:\(port)"
        for _ in 0..<300 {
            guard process.isRunning else { throw BrowserSetupError.driverExited(process.terminationStatus) }
            if LocalPort.isListening(port, processID: process.processIdentifier),
               let value = try? await WebDriverClient.command(base: base, http: http, .GET, "/status", nil) as? [String: Any],
               value["ready"] as? Bool == true {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BrowserSetupError.driverNotReady
    }
}

/// Why the browser could not be started.
enum BrowserSetupError: Error, CustomStringConvertible {
    case missing(String)
    case driverExited(Int32)
    case driverNotReady

    var description: String {
        switch self {
        case .missing(let package):
            "\(package) is not installed; the browser tests need Debian's chromium and chromium-driver: "
                + "apt-get update && apt-get install -y chromium chromium-driver (.ci/run does this)"
        case .driverExited(let status): "chromedriver exited at start-up with status \(status)"
        case .driverNotReady: "chromedriver did not report ready on its port"
        }
    }
}
