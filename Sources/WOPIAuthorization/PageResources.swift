import Foundation
import WOPIHost

/// The page templates this product ships beside its code (`Sources/WOPIAuthorization/Resources/Templates`).
///
/// SwiftPM copies them into the target's resource bundle, which `Bundle.module` finds next to
/// the executable or in the build folder; a package that installs `wopi` elsewhere installs the
/// bundle beside it.
enum PageResources {
    /// The folder `name` of the resource bundle (`Templates`).
    static func folder(_ name: String) throws -> URL {
        try ResourceBundle.folder(name, in: .module, of: "WOPIAuthorization")
    }
}
