import Foundation

/// The page templates this product ships beside its code (`Sources/WOPIAuthorization/Resources/Templates`).
///
/// SwiftPM copies them into the target's resource bundle, which `Bundle.module` finds next to
/// the executable or in the build folder; a package that installs `wopi` elsewhere installs the
/// bundle beside it.
enum PageResources {
    /// The folder `name` of the resource bundle (`Templates`).
    static func folder(_ name: String) throws -> URL {
        guard let url = Bundle.module.resourceURL?.appendingPathComponent(name, isDirectory: true),
              FileManager.default.fileExists(atPath: url.path) else { throw Missing(name: name) }
        return url
    }

    /// A resource the bundle should hold and does not: a packaging fault, named so it can be fixed.
    struct Missing: Error, CustomStringConvertible {
        var name: String
        var description: String { "the WOPIAuthorization resource bundle has no '\(name)'; install the bundle beside the executable" }
    }
}
