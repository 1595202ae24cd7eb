import Foundation
import OfficeURLScheme

/// The checks Office for iOS makes on an invoke URI from a WOPI host's app (from_app.rst):
/// Word, Excel or PowerPoint; `ofv` or `ofe`; `|u|` a WOPISrc; `|d|`, `|e|`, `|n|` and `|a|` present;
/// the file name's extension opened by the app the URI launches.
public enum InvokeURICheck {
    /// The apps Office for iOS opens WOPI files in (from_app.rst, "URL schemes for invoking Office iOS").
    public static let wopiApps: Set<OfficeApp> = [.word, .excel, .powerpoint]

    /// Returns why Office would not open the file from `invoke`, or `nil` when it would.
    public static func problem(with invoke: OfficeInvokeURI) -> String? {
        guard wopiApps.contains(invoke.app) else {
            return "Office for iOS opens WOPI files only in Word, Excel and PowerPoint, not \(invoke.app.displayName)"
        }
        guard invoke.command == .view || invoke.command == .edit else {
            return "the mode must be ofv (view) or ofe (edit) for a WOPI file, not \(invoke.command.rawValue)"
        }
        guard let url = URL(string: invoke.documentURL), let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return "|u| '\(invoke.documentURL.prefix(200))' is not a URL"
        }
        if components.queryItems?.contains(where: { $0.name.lowercased() == "access_token" }) == true {
            return "|u| must be the WOPISrc alone; it carries an access_token, which Office obtains itself"
        }
        if components.path.isEmpty || components.path == "/" {
            return "|u| '\(invoke.documentURL.prefix(200))' has no path, so it cannot be a file's WOPISrc"
        }
        let missing = [("d", invoke.service), ("e", invoke.user), ("n", invoke.fileName)].filter { $0.1?.isEmpty ?? true }.map { "|\($0.0)|" }
            + (invoke.source == nil ? ["|a|"] : [])
        if !missing.isEmpty {
            return "the invoke URI lacks \(missing.joined(separator: ", ")), which from_app.rst requires"
        }
        if let name = invoke.fileName, OfficeApp(fileExtension: name) != invoke.app {
            return "|n| '\(name)' is not a file \(invoke.app.displayName) opens"
        }
        return nil
    }
}
