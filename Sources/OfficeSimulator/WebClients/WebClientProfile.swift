import Foundation
import WOPIHTTPClient

/// A browser editor the simulator can play: Office for the web or Collabora Online, each with
/// the CheckFileInfo properties it needs and the save sequence it is documented to follow.
///
/// - Office for the web: Microsoft's WOPI docs, "Building a host page" (online/hostpage.rst),
///   "Using PostMessage" (online/postmessage.rst) and CheckFileInfo.rst.
/// - Collabora Online: `wsd/reference.md` ("CheckFileInfo response properties", "PutFile headers",
///   "X-COOL-WOPI-Timestamp").
public enum WebClientProfile: String, Sendable, Hashable, CaseIterable, Codable {
    /// Office for the web (Word, Excel and PowerPoint in a browser).
    case officeWeb = "office-web"
    /// Collabora Online.
    case collabora

    /// The client's name, for messages.
    public var displayName: String {
        switch self {
        case .officeWeb: "Office for the web"
        case .collabora: "Collabora Online"
        }
    }

    /// What the profile plays, in one line, for `--help`.
    public var summary: String {
        switch self {
        case .officeWeb: "CheckFileInfo with the host page's fields, Lock, GetFile, RefreshLock, PutFile, CheckFileInfo, Unlock"
        case .collabora: "CheckFileInfo, Lock when SupportsLocks, autosaves with X-COOL-WOPI-Timestamp, a conflict (1010), exit save, Unlock"
        }
    }

    /// The CheckFileInfo properties the client needs, with the reason a person reads when one is missing.
    ///
    /// Office for the web: the required properties of every CheckFileInfo, `PostMessageOrigin` (it
    /// addresses every message to the host page at that origin), `HostViewUrl` and `HostEditUrl`
    /// (its View and Edit commands navigate there). Collabora Online: the file and user it shows,
    /// `LastModifiedTime` (it sends it back as `X-COOL-WOPI-Timestamp` to detect a change made
    /// elsewhere) and `PostMessageOrigin` (its PostMessage to the host page).
    public var requiredProperties: [(name: String, reason: String)] {
        switch self {
        case .officeWeb:
            [("BaseFileName", "a required property"), ("OwnerId", "a required property"), ("Size", "a required property"),
             ("UserId", "a required property"), ("Version", "a required property"),
             ("PostMessageOrigin", "Office for the web sends its PostMessage to that origin (online/postmessage.rst)"),
             ("HostViewUrl", "Office for the web's View command opens it (CheckFileInfo.rst)"),
             ("HostEditUrl", "Office for the web's Edit command opens it (CheckFileInfo.rst)")]
        case .collabora:
            [("BaseFileName", "the name Collabora Online shows"), ("OwnerId", "Collabora Online compares it with UserId"),
             ("Size", "the file's size"), ("UserId", "the user Collabora Online shows"),
             ("LastModifiedTime", "Collabora Online sends it back as X-COOL-WOPI-Timestamp (wsd/reference.md)"),
             ("PostMessageOrigin", "Collabora Online sends its PostMessage to that origin (wsd/reference.md)")]
        }
    }

    /// The `rule` check `wopi check-host --client` runs: every property in ``requiredProperties``
    /// present and of its type (strings, `Size` a whole number, `LastModifiedTime` ISO 8601 UTC,
    /// `PostMessageOrigin` an origin, the host URLs absolute http(s) URLs).
    public func requiredPropertiesCheck(checkFileInfo body: Data) -> ReadinessCheck {
        let name = "checkfileinfo.\(rawValue)-properties"
        let problems = checkFileInfoProblems(body)
        guard problems.isEmpty else { return ReadinessCheck(suite: MobileRules.suite, name: name, outcome: .failed, detail: problems.joined(separator: "; ")) }
        return ReadinessCheck(suite: MobileRules.suite, name: name, outcome: .passed,
                              detail: requiredProperties.map(\.name).joined(separator: ", ") + " as \(displayName) needs them")
    }

    /// Every way `body` falls short of ``requiredProperties``, one sentence each naming the property.
    func checkFileInfoProblems(_ body: Data) -> [String] {
        guard let object = JSONValue.object(from: body) else { return ["the CheckFileInfo body is not a JSON object"] }
        var problems: [String] = []
        for (property, reason) in requiredProperties {
            guard let value = object[property], value != .null else {
                problems.append("\(property) is missing; \(displayName) needs it: \(reason)")
                continue
            }
            if property == "Size" {
                if value.integerValue.map({ $0 < 0 }) ?? true { problems.append("Size is a \(value.typeName), not a non-negative whole number") }
                continue
            }
            guard let text = value.stringValue, !text.isEmpty else {
                problems.append("\(property) is \(value.stringValue == nil ? "a \(value.typeName), not a string" : "empty")")
                continue
            }
            switch property {
            case "LastModifiedTime" where WebClientTime.parse(text) == nil:
                problems.append("LastModifiedTime '\(text.prefix(60))' is not an ISO 8601 time")
            case "PostMessageOrigin" where WebClientTime.origin(of: text) != text:
                problems.append("PostMessageOrigin '\(text.prefix(100))' is not an origin (scheme://host[:port], nothing after it)")
            case "HostViewUrl", "HostEditUrl":
                if WebClientTime.origin(of: text) == nil { problems.append("\(property) '\(text.prefix(100))' is not an absolute http(s) URL") }
            default: break
            }
        }
        return problems
    }
}

/// The small parsers the browser-editor profiles share.
enum WebClientTime {
    /// An ISO 8601 time, with or without fractional seconds.
    static func parse(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Whether two times fall in the same second, the precision hosts keep `LastModifiedTime` in.
    static func sameSecond(_ a: Date, _ b: Date) -> Bool {
        a.timeIntervalSince1970.rounded(.down) == b.timeIntervalSince1970.rounded(.down)
    }

    /// `scheme://host[:port]` of an absolute http(s) URL (RFC 6454 §6.1), `nil` for anything else.
    static func origin(of text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else { return nil }
        return "\(scheme)://\(host.lowercased())\(url.port.map { ":\($0)" } ?? "")"
    }
}
