import Foundation

/// An App Store product to offer when an Office app is not installed.
///
/// Present it with `SKStoreProductViewController` using ``id`` as
/// `SKStoreProductParameterITunesItemIdentifier` (seed 000, "Prompt the user to install Office"),
/// or open ``storeURL`` where StoreKit is unavailable.
public struct AppStoreProduct: Sendable, Hashable, Codable, Identifiable {
    /// The device family a product is built for.
    public enum Device: String, Sendable, Hashable, Codable, CaseIterable {
        /// One product for iPhone and iPad.
        case universal
        /// The iPhone build (OneNote has a separate one).
        case iPhone
        /// The iPad build (OneNote has a separate one).
        case iPad
    }

    /// The iTunes item identifier, for example `586447913` for Word; also its `Identifiable` identity.
    public let id: Int
    /// The device family the product is for.
    public let device: Device

    /// Creates a product description.
    public init(id: Int, device: Device) {
        self.id = id
        self.device = device
    }

    /// The product's public App Store page, `https://apps.apple.com/app/id<id>`.
    public var storeURL: URL {
        var components = URLComponents()
        components.scheme = "https"
        components.host = "apps.apple.com"
        components.path = "/app/id\(id)"
        // The components above are constant ASCII, so this always yields a URL.
        return components.url ?? URL(fileURLWithPath: "/")
    }
}
