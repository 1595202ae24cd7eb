#if canImport(SwiftUI) && canImport(UIKit) && canImport(StoreKit)
import StoreKit
import SwiftUI
import UIKit

// A thin SwiftUI layer over the Foundation-only core: every decision is made by
// OfficeAppDetector, OfficeLaunchResult and OfficeURLMessage, which the package's tests cover.

/// A button that opens a document in Office with ``OfficeAppDetector`` and, when the app is
/// missing or too old, presents its App Store page in a sheet.
@available(iOS 15.0, macCatalyst 15.0, *)
@MainActor
public struct OpenInOfficeButton<Label: View>: View {
    private let invoke: OfficeInvokeURI
    private let onResult: @MainActor (OfficeLaunchResult) -> Void
    private let label: Label
    @State private var storeProduct: AppStoreProduct?

    /// Creates a button that opens `invoke` and reports the ``OfficeLaunchResult``.
    public init(_ invoke: OfficeInvokeURI, onResult: @escaping @MainActor (OfficeLaunchResult) -> Void = { _ in },
                @ViewBuilder label: () -> Label) {
        self.invoke = invoke
        self.onResult = onResult
        self.label = label()
    }

    /// The button, with the App Store sheet attached.
    public var body: some View {
        Button {
            Task {
                let device: AppStoreProduct.Device = UIDevice.current.userInterfaceIdiom == .pad ? .iPad : .iPhone
                let result = await OfficeAppDetector(opener: UIApplicationURLOpener()).open(invoke, device: device)
                storeProduct = result.storeProduct
                onResult(result)
            }
        } label: { label }
            .sheet(item: $storeProduct) { AppStoreSheet(product: $0) }
    }
}

/// The App Store page of an ``AppStoreProduct``, `SKStoreProductViewController` as a SwiftUI view.
@available(iOS 15.0, macCatalyst 15.0, *)
@MainActor
public struct AppStoreSheet: UIViewControllerRepresentable {
    /// The product shown.
    public let product: AppStoreProduct

    /// Creates the sheet for `product`.
    public init(product: AppStoreProduct) {
        self.product = product
    }

    /// Creates the store view controller and starts loading the product.
    public func makeUIViewController(context: Context) -> SKStoreProductViewController {
        let store = SKStoreProductViewController()
        store.loadProduct(withParameters: [SKStoreProductParameterITunesItemIdentifier: NSNumber(value: product.id)], completionBlock: nil)
        return store
    }

    /// Nothing to update: the product does not change while shown.
    public func updateUIViewController(_ controller: SKStoreProductViewController, context: Context) {}
}

@available(iOS 15.0, macCatalyst 15.0, *)
@MainActor
extension View {
    /// Calls `handler` with every Office URL the app is opened with (a passback, a sign-in
    /// request), recognised by ``OfficeURLMessage/init(url:)``; other URLs are ignored.
    ///
    /// ```swift
    /// ContentView().onOfficeURL { message in
    ///     if case .passback(let back) = message { model.returned(from: back) }
    /// }
    /// ```
    public func onOfficeURL(perform handler: @escaping @MainActor (OfficeURLMessage) -> Void) -> some View {
        onOpenURL { url in
            if let message = try? OfficeURLMessage(url: url) { handler(message) }
        }
    }
}
#endif
