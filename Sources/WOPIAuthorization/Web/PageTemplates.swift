import Foundation
import Mustache

/// The Mustache templates of every page (`Resources/Templates`), loaded once.
///
/// `{{value}}` escapes for HTML (swift-mustache's default content type), so no value a page shows
/// can add markup; the templates never use the unescaped `{{{…}}}` form. Pages extend one frame,
/// `layout.mustache`, with `{{<layout}}{{$content}}…{{/content}}{{/layout}}`.
///
/// Each template's lines are joined when it is loaded, dropping the line break and the indentation
/// after it, so the markup can be laid out for reading while pages stay as compact as before. A tag
/// therefore stays on one line, and a space between two words or tags is written inside a line.
struct PageTemplates: Sendable {
    private let library: MustacheLibrary

    /// The templates in `folder`, each registered under its file name without `.mustache`.
    init(folder: URL) throws {
        var library = MustacheLibrary()
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".mustache") }
        for file in names {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            try library.register(Self.joiningLines(text), named: String(file.dropLast(".mustache".count)))
        }
        self.library = library
    }

    /// The host's own templates, from its resource bundle.
    static let bundled: Result<PageTemplates, any Error> = Result { try PageTemplates(folder: PageResources.folder("Templates")) }

    /// `text` with every line break and the indentation that follows it removed.
    static func joiningLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.drop { $0 == " " || $0 == "\t" } }
            .joined()
    }

    /// Renders `template` with `view`.
    ///
    /// - Throws: ``Missing`` when there is no such template (a packaging fault).
    func render(_ template: String, _ view: Any) throws -> String {
        guard let html = library.render(view, withTemplate: template) else { throw Missing(template: template) }
        return html
    }

    /// A template the host asked for and its bundle does not hold.
    struct Missing: Error, CustomStringConvertible {
        var template: String
        var description: String { "no page template named '\(template)' in the WOPIAuthorization resource bundle" }
    }
}
