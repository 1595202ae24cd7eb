import Foundation

/// Finds out whether an Office app is installed and supports WOPI, and launches it, on top of any
/// ``URLOpening`` (seed 000, "Verify that Office has been installed"; from_app.rst).
///
/// ```swift
/// let detector = OfficeAppDetector(opener: UIApplicationURLOpener())
/// switch await detector.open(invoke, device: .iPad) {
/// case .notInstalled(_, let product?): presentStore(product)
/// default: break
/// }
/// ```
@MainActor
public struct OfficeAppDetector<Opener: URLOpening> {
    /// What answers `canOpen` and `open`.
    public let opener: Opener

    /// Creates a detector.
    public init(opener: Opener) {
        self.opener = opener
    }

    /// Whether the app is installed: `canOpen("<scheme>:")`. Needs the scheme in `LSApplicationQueriesSchemes`.
    public func isInstalled(_ app: OfficeApp) -> Bool {
        guard let url = URL(string: "\(app.scheme):") else { return false }
        return opener.canOpen(url)
    }

    /// Whether the installed app supports WOPI documents: `canOpen("<scheme>-wopi-support-1605:")`.
    /// The check scheme is only queried, never opened (from_app.rst). `false` for apps without one.
    public func supportsWOPI(_ app: OfficeApp) -> Bool {
        guard let scheme = app.wopiSupportCheckScheme, let url = URL(string: "\(scheme):") else { return false }
        return opener.canOpen(url)
    }

    /// The App Store product to offer when `app` is missing, for the user's device.
    public func storeProduct(for app: OfficeApp, device: AppStoreProduct.Device) -> AppStoreProduct? {
        app.appStoreProduct(for: device)
    }

    /// Launches Office with `invoke.url` (the fully percent-encoded form), after checking the app
    /// is installed and, for WOPI URIs (those with `|d|`, `|e|` or `|n|`), that it supports WOPI.
    public func open(_ invoke: OfficeInvokeURI, device: AppStoreProduct.Device = .universal) async -> OfficeLaunchResult {
        let app = invoke.app
        guard isInstalled(app) else { return .notInstalled(app, storeProduct(for: app, device: device)) }
        let isWOPI = invoke.service != nil || invoke.user != nil || invoke.fileName != nil
        if isWOPI, app.wopiSupportCheckScheme != nil, !supportsWOPI(app) {
            return .needsUpdate(app, storeProduct(for: app, device: device))
        }
        return await opener.open(invoke.url) ? .opened : .failedToOpen(app)
    }
}
