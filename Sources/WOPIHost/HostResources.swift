import Foundation

/// The files the host ships beside its code: the demo documents (`Sources/WOPIHost/Resources`,
/// described in its README; the page templates are the `WOPIAuthorization` target's).
///
/// SwiftPM copies them into the target's resource bundle, which `Bundle.module` finds next to
/// the executable or in the build folder. A package that installs `wopi` elsewhere (a `.deb`)
/// installs the bundle beside it; every read of a resource goes through this one place.
enum HostResources {
    /// The folder `name` of the resource bundle (`SampleDocuments`).
    static func folder(_ name: String) throws -> URL {
        try ResourceBundle.folder(name, in: .module, of: "WOPIHost")
    }
}

/// Reading a folder from a product's resource bundle, for every product that ships one.
package enum ResourceBundle {
    /// The folder `name` of `bundle`, the resource bundle of the product `product`.
    package static func folder(_ name: String, in bundle: Bundle, of product: String) throws -> URL {
        guard let url = bundle.resourceURL?.appendingPathComponent(name, isDirectory: true),
              FileManager.default.fileExists(atPath: url.path) else { throw Missing(product: product, name: name) }
        return url
    }

    /// A resource the bundle should hold and does not: a packaging fault, named so it can be fixed.
    package struct Missing: Error, CustomStringConvertible {
        package var product: String
        package var name: String
        package var description: String { "the \(product) resource bundle has no '\(name)'; install the bundle beside the executable" }
    }
}
