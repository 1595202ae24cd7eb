#if canImport(UIKit) && canImport(StoreKit)
import StoreKit
import UIKit

/// ``URLOpening`` backed by `UIApplication.shared`. It receives ``OfficeInvokeURI/url``, the fully
/// percent-encoded form.
@available(iOS 15.0, macCatalyst 15.0, *)
@MainActor
public struct UIApplicationURLOpener: URLOpening {
    /// Creates an opener for the shared application.
    public init() {}

    /// `UIApplication.shared.canOpenURL(url)`.
    public func canOpen(_ url: URL) -> Bool {
        UIApplication.shared.canOpenURL(url)
    }

    /// `UIApplication.shared.open(url)`.
    public func open(_ url: URL) async -> Bool {
        await UIApplication.shared.open(url, options: [:])
    }

    /// Presents the App Store page of `product` over `presenter` with `SKStoreProductViewController`.
    public func presentStore(_ product: AppStoreProduct, from presenter: UIViewController) {
        let store = SKStoreProductViewController()
        store.loadProduct(withParameters: [SKStoreProductParameterITunesItemIdentifier: NSNumber(value: product.id)], completionBlock: nil)
        presenter.present(store, animated: true)
    }
}
#endif
