import Foundation

/// Checks an app's Info.plist for what launching Office and being returned to needs
/// (from_app.rst; Apple's `LSApplicationQueriesSchemes` and `CFBundleURLTypes` keys):
///
/// - every Office scheme, including the `-wopi-support-1605` check schemes, listed under
///   `LSApplicationQueriesSchemes`, since `canOpenURL` answers `false` for unlisted schemes;
/// - at most 50 entries there, because iOS ignores the rest;
/// - the passback scheme (`|p|`) and the sign-in scheme registered under
///   `CFBundleURLTypes`/`CFBundleURLSchemes`, or Office cannot open your app.
///
/// ```swift
/// let findings = try InfoPlistCheck(passbackScheme: "clouddrive", signInScheme: "contoso")
///     .check(contentsOf: plistURL)
/// ```
public struct InfoPlistCheck: Sendable, Hashable {
    /// The most `LSApplicationQueriesSchemes` entries iOS honours.
    public static let maximumQueriedSchemes = 50

    /// The schemes that must be queryable: those of the iOS Office apps and their WOPI check schemes.
    public let requiredQueriedSchemes: [String]
    /// Your passback scheme, if you use one.
    public let passbackScheme: String?
    /// Your app-to-app sign-in scheme, if you use one.
    public let signInScheme: String?

    /// Creates a check.
    ///
    /// - Parameters:
    ///   - apps: The Office apps you launch; defaults to Word, Excel, PowerPoint and OneNote.
    ///   - passbackScheme: The scheme you pass as `|p|`.
    ///   - signInScheme: The scheme your bootstrapper lists in `UrlSchemes` for iOS.
    /// - Throws: ``OfficeURLError/invalidScheme(_:)`` when a scheme breaks RFC 3986 §3.1.
    public init(apps: [OfficeApp] = OfficeApp.allCases.filter(\.isAvailableOnIOS), passbackScheme: String?, signInScheme: String?) throws(OfficeURLError) {
        for scheme in [passbackScheme, signInScheme].compactMap({ $0 }) where !ArgumentEncoding.isValidScheme(scheme) {
            throw .invalidScheme(scheme)
        }
        requiredQueriedSchemes = apps.flatMap { [$0.scheme] + ($0.wopiSupportCheckScheme.map { [$0] } ?? []) }
        self.passbackScheme = passbackScheme
        self.signInScheme = signInScheme
    }

    /// Reads an XML or binary property list file and checks it.
    ///
    /// - Throws: ``InfoPlistCheckError`` when the file cannot be read or is not a dictionary plist.
    public func check(contentsOf url: URL) throws(InfoPlistCheckError) -> [InfoPlistFinding] {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw .unreadable(url.path) }
        return try check(data: data)
    }

    /// Checks property list data, XML or binary.
    ///
    /// - Throws: ``InfoPlistCheckError/notAPropertyList`` or ``InfoPlistCheckError/notADictionary``.
    public func check(data: Data) throws(InfoPlistCheckError) -> [InfoPlistFinding] {
        let object: Any
        do { object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) } catch {
            throw .notAPropertyList
        }
        guard let plist = object as? [String: Any] else { throw .notADictionary }
        return check(plist)
    }

    /// Checks a property list already read into a dictionary.
    public func check(_ plist: [String: Any]) -> [InfoPlistFinding] {
        var findings: [InfoPlistFinding] = []
        let key = "LSApplicationQueriesSchemes"
        var queried: [String] = []
        if let raw = plist[key] {
            if let list = raw as? [String] {
                queried = list
            } else {
                findings.append(InfoPlistFinding(
                    kind: .malformedKey, subject: key, problem: "\(key) is not an array of strings.",
                    fix: "make \(key) an array of scheme strings."))
            }
        }
        let queriedLowered = Set(queried.map { $0.lowercased() })
        for scheme in requiredQueriedSchemes where !queriedLowered.contains(scheme) {
            findings.append(InfoPlistFinding(
                kind: .missingQueriedScheme, subject: scheme,
                problem: "'\(scheme)' is not listed in \(key), so canOpenURL always answers false for it.",
                fix: "add <string>\(scheme)</string> to the \(key) array."))
        }
        if queried.count > Self.maximumQueriedSchemes {
            findings.append(InfoPlistFinding(
                kind: .tooManyQueriedSchemes, subject: key,
                problem: "\(key) has \(queried.count) entries; iOS honours only the first \(Self.maximumQueriedSchemes).",
                fix: "remove \(queried.count - Self.maximumQueriedSchemes) entries, keeping the Office schemes within the first \(Self.maximumQueriedSchemes)."))
        }
        let registered = Set(registeredURLSchemes(in: plist).map { $0.lowercased() })
        for (role, scheme) in [("passback", passbackScheme), ("sign-in", signInScheme)] {
            guard let scheme, !registered.contains(scheme.lowercased()) else { continue }
            findings.append(InfoPlistFinding(
                kind: .unregisteredURLScheme, subject: scheme,
                problem: "the \(role) scheme '\(scheme)' is not registered under CFBundleURLTypes, so Office cannot open your app with it.",
                fix: "add a CFBundleURLTypes entry whose CFBundleURLSchemes array contains <string>\(scheme)</string>."))
        }
        return findings
    }

    /// Every scheme under `CFBundleURLTypes[*].CFBundleURLSchemes`.
    public func registeredURLSchemes(in plist: [String: Any]) -> [String] {
        guard let types = plist["CFBundleURLTypes"] as? [Any] else { return [] }
        return types.compactMap { ($0 as? [String: Any])?["CFBundleURLSchemes"] as? [String] }.flatMap { $0 }
    }
}

/// Why ``InfoPlistCheck`` could not read a property list.
public enum InfoPlistCheckError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file does not exist or cannot be read.
    case unreadable(String)
    /// The data is neither an XML nor a binary property list.
    case notAPropertyList
    /// The property list's root is not a dictionary.
    case notADictionary

    /// One line naming the problem.
    public var description: String {
        switch self {
        case .unreadable(let path): "cannot read '\(path)'"
        case .notAPropertyList: "the file is not an XML or binary property list"
        case .notADictionary: "the property list's root is not a dictionary, as an Info.plist's is"
        }
    }
}
