import Foundation

/// Something that can tell whether a URL can be opened and open it: `UIApplication` in an app
/// (see `UIApplicationURLOpener`), a fake in tests.
///
/// `canOpen(_:)` answers only for schemes listed in the app's `LSApplicationQueriesSchemes`
/// (see ``InfoPlistCheck``).
@MainActor
public protocol URLOpening {
    /// Whether an installed app handles `url`'s scheme (`UIApplication.canOpenURL(_:)`).
    func canOpen(_ url: URL) -> Bool
    /// Opens `url`, returning whether the system did (`UIApplication.open(_:options:)`).
    func open(_ url: URL) async -> Bool
}
