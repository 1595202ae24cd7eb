import Foundation
import OfficeURLScheme

#if !canImport(UIKit)
/// Stands in for UIKit's `UIApplication` where UIKit does not exist, so the documentation's
/// snippets compile as written: it answers `canOpenURL` from a set of "installed" schemes and
/// records what was opened.
@MainActor
final class UIApplication {
    static let shared = UIApplication()
    var installedSchemes: Set<String> = []
    private(set) var opened: [URL] = []

    func reset(installed: Set<String>) {
        installedSchemes = installed
        opened = []
    }

    func canOpenURL(_ url: URL) -> Bool {
        url.scheme.map { installedSchemes.contains($0.lowercased()) } ?? false
    }

    @discardableResult
    func open(_ url: URL) async -> Bool {
        opened.append(url)
        return canOpenURL(url)
    }
}

/// Mirrors the library's UIKit-only `UIApplicationURLOpener` over the stand-in `UIApplication`.
@MainActor
struct UIApplicationURLOpener: URLOpening {
    func canOpen(_ url: URL) -> Bool { UIApplication.shared.canOpenURL(url) }
    func open(_ url: URL) async -> Bool { await UIApplication.shared.open(url) }
}
#endif
