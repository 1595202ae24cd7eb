import Foundation

/// axe-core (Deque's accessibility engine) run inside the page the browser shows, through the
/// WebDriver client: the script is injected with `execute/sync` (WebDriver's scripts are not
/// subject to the page's content security policy) and `axe.run` reports the violations.
///
/// The script comes from PyPI's `axe-playwright-python`, which `.ci/run` installs into
/// `.build/venv-axe` and names in `WOPI_AXE_JS`. Without it the tests fail with the install
/// command, never skip.
enum AxeCore {
    /// One rule a page breaks, with where.
    struct Violation: Sendable, CustomStringConvertible {
        var id: String
        var impact: String
        var help: String
        /// CSS selectors of the offending elements.
        var targets: [String]

        var description: String { "\(id) (\(impact)): \(help) at \(targets.joined(separator: ", "))" }
    }

    /// axe.min.js was not found.
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    /// The text of axe.min.js: `WOPI_AXE_JS`, else the package's virtual environment under `.build`.
    static func script() throws -> String {
        try String(contentsOf: try locate(), encoding: .utf8)
    }

    static func locate() throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["WOPI_AXE_JS"], !path.isEmpty {
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw Missing(description: "WOPI_AXE_JS is '\(path)', which is not a readable file")
            }
            return URL(fileURLWithPath: path)
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let lib = root.appendingPathComponent(".build/venv-axe/lib")
        for python in (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? [] {
            let candidate = lib.appendingPathComponent("\(python)/site-packages/axe_playwright_python/axe.min.js")
            if FileManager.default.isReadableFile(atPath: candidate.path) { return candidate }
        }
        throw Missing(description: """
            axe-core is not installed: the accessibility tests run PyPI's axe-playwright-python's axe.min.js in the browser. \
            Install it with `python3 -m venv .build/venv-axe && .build/venv-axe/bin/pip install --no-deps axe-playwright-python` \
            (.ci/run does this), or set WOPI_AXE_JS to an axe.min.js
            """)
    }

    /// The violations of every axe rule (WCAG 2.x A and AA, and best practices) on the page `driver` shows.
    static func violations(_ driver: WebDriverClient, script: String) async throws -> [Violation] {
        if try await driver.execute("return typeof window.axe;") as? String != "object" {
            _ = try await driver.execute(script)
        }
        // Frames are left out: the only one is a browser editor's, another origin's page, which axe cannot enter.
        let answer = try await driver.executeAsync("""
            var done = arguments[arguments.length - 1];
            axe.run(document, { resultTypes: ['violations'], iframes: false }).then(function (result) {
              done(JSON.stringify(result.violations.map(function (v) {
                return { id: v.id, impact: v.impact || '', help: v.help,
                         targets: v.nodes.map(function (n) { return n.target.join(' '); }) };
              })));
            }, function (error) { done('axe failed: ' + error); });
            """) as? String ?? "axe gave no answer"
        guard let list = try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [[String: Any]] else {
            throw WebDriverError.unexpected(answer)
        }
        return list.map {
            Violation(id: $0["id"] as? String ?? "", impact: $0["impact"] as? String ?? "", help: $0["help"] as? String ?? "",
                      targets: $0["targets"] as? [String] ?? [])
        }
    }
}
