import Foundation
import Testing

/// What every page must pass in the browser: no script errors, fits the phone width, labelled
/// form fields and a language; and a screenshot of it in `artifacts/screenshots/`.
struct PageChecks: Sendable {
    let driver: WebDriverClient

    /// The package's `artifacts/screenshots/` folder (git-ignored; CI keeps it).
    static let screenshotFolder: URL = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent("artifacts/screenshots", isDirectory: true)
    }()

    /// Checks the page now shown and saves its screenshot as `<name>.png`.
    func check(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        // Script errors and CSP refusals show up in the console; a page's own status (401, 404) is a network entry, not an error of the page.
        let problems = try await driver.browserLog().filter { entry in
            entry.level == "SEVERE" && entry.source != "network" || entry.message.contains("Uncaught")
                || entry.message.contains("Content Security Policy")
        }
        #expect(problems.isEmpty, "JavaScript errors on \(name): \(problems)", sourceLocation: sourceLocation)
        let report = try await driver.execute("""
            var root = document.documentElement;
            var unlabelled = Array.prototype.filter.call(document.querySelectorAll('input:not([type=hidden]), select, textarea'),
              function (field) { return field.labels.length === 0 && !field.getAttribute('aria-label'); }).map(function (f) { return f.name || f.id; });
            return { overflow: root.scrollWidth - window.innerWidth, width: window.innerWidth, lang: root.lang, unlabelled: unlabelled,
                     title: document.title };
            """) as? [String: Any] ?? [:]
        #expect((report["overflow"] as? Int ?? 1) <= 0, "\(name) is wider than the \(report["width"] ?? "?") px viewport", sourceLocation: sourceLocation)
        #expect(!(report["lang"] as? String ?? "").isEmpty, "\(name) has no lang attribute", sourceLocation: sourceLocation)
        #expect((report["unlabelled"] as? [String] ?? ["?"]).isEmpty, "\(name) has fields without a label: \(report["unlabelled"] ?? "")",
                sourceLocation: sourceLocation)
        #expect(!(report["title"] as? String ?? "").isEmpty, "\(name) has no title", sourceLocation: sourceLocation)
        try FileManager.default.createDirectory(at: Self.screenshotFolder, withIntermediateDirectories: true)
        try await driver.screenshot().write(to: Self.screenshotFolder.appendingPathComponent("\(name).png"))
    }
}
