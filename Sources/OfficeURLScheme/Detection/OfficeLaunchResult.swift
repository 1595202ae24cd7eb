/// What happened when ``OfficeAppDetector/open(_:device:)`` tried to launch Office.
public enum OfficeLaunchResult: Sendable, Hashable {
    /// The system opened the Office app.
    case opened
    /// The app is not installed; offer this App Store product (`nil` for desktop-only apps).
    case notInstalled(OfficeApp, AppStoreProduct?)
    /// The app is installed but too old for WOPI documents (no `-wopi-support-1605` scheme);
    /// offer this product so the user can update.
    case needsUpdate(OfficeApp, AppStoreProduct?)
    /// The app is installed but the system did not open the URL.
    case failedToOpen(OfficeApp)

    /// The App Store product to present: the one to install or update, `nil` when there is none to offer.
    ///
    /// `OpenInOfficeButton` (SwiftUI) and your own UIKit code present it with `SKStoreProductViewController`.
    public var storeProduct: AppStoreProduct? {
        switch self {
        case .notInstalled(_, let product), .needsUpdate(_, let product): product
        case .opened, .failedToOpen: nil
        }
    }

    /// A localized sentence for the user, or `nil` after success.
    ///
    /// - Parameter language: `en`, `de` or `zh-Hans` (region subtags are ignored); English otherwise.
    public func userMessage(language: String) -> String? {
        switch self {
        case .opened: nil
        case .notInstalled(let app, _): LocalizedStrings.string(.installPrompt, language: language, app.displayName)
        case .needsUpdate(let app, _): LocalizedStrings.string(.updatePrompt, language: language, app.displayName)
        case .failedToOpen(let app): LocalizedStrings.string(.couldNotOpen, language: language, app.displayName)
        }
    }
}
