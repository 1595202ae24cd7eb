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

    /// Where the client's rules come from, named in every finding of its rule.
    public var sources: String {
        switch self {
        case .officeWeb: "Microsoft's CheckFileInfo page and host page docs (online/hostpage.rst, online/postmessage.rst)"
        case .collabora: "Collabora Online's wsd/reference.md and wsd/wopi/CheckFileInfo.cpp"
        }
    }

    /// The CheckFileInfo properties the client needs, with the reason a person reads when one is missing.
    ///
    /// Office for the web: the required properties of every CheckFileInfo, `PostMessageOrigin` (it
    /// addresses every message to the host page at that origin), `HostViewUrl` and `HostEditUrl`
    /// (its View and Edit commands navigate there). Collabora Online: the file and user it shows.
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
             ("Size", "the file's size"), ("UserId", "the user Collabora Online shows")]
        }
    }

    /// The CheckFileInfo properties the client reads but works without: a missing one is a warning,
    /// never a failure, and never stops a scenario.
    ///
    /// Collabora Online keeps `LastModifiedTime` as an opaque string and sends it back byte for byte as
    /// `X-COOL-WOPI-Timestamp` (any format will do; without it, it cannot tell a change made elsewhere),
    /// and reads `PostMessageOrigin` as optional (without it, no PostMessage to the host page).
    public var optionalProperties: [(name: String, reason: String)] {
        switch self {
        case .officeWeb: []
        case .collabora:
            [("LastModifiedTime", "Collabora Online sends it back unchanged as X-COOL-WOPI-Timestamp to detect a change made elsewhere"),
             ("PostMessageOrigin", "Collabora Online sends its PostMessage to the host page at that origin")]
        }
    }

    /// The `rule` check `wopi check-host --client` runs: every property in ``requiredProperties``
    /// present and of its type (strings, `Size` a whole number, `PostMessageOrigin` an origin, the host
    /// URLs absolute http(s) URLs) or the check fails; a property of ``optionalProperties`` missing or
    /// malformed is a warning. Each finding names the client's ``sources``.
    public func requiredPropertiesCheck(checkFileInfo body: Data) -> ReadinessCheck {
        let name = "checkfileinfo.\(rawValue)-properties"
        let findings = checkFileInfoFindings(body)
        let source = " (\(displayName): \(sources))"
        if !findings.failures.isEmpty {
            let warnings = findings.warnings.isEmpty ? "" : "; also: " + findings.warnings.joined(separator: "; ")
            return ReadinessCheck(suite: MobileRules.suite, name: name, outcome: .failed, detail: findings.failures.joined(separator: "; ") + warnings + source)
        }
        if !findings.warnings.isEmpty {
            return ReadinessCheck(suite: MobileRules.suite, name: name, outcome: .warning, detail: findings.warnings.joined(separator: "; ") + source)
        }
        return ReadinessCheck(suite: MobileRules.suite, name: name, outcome: .passed,
                              detail: (requiredProperties + optionalProperties).map(\.name).joined(separator: ", ") + " as \(displayName) needs them" + source)
    }

    /// Every way `body` falls short of ``requiredProperties`` (failures) and ``optionalProperties``
    /// (warnings), one sentence each naming the property.
    func checkFileInfoFindings(_ body: Data) -> (failures: [String], warnings: [String]) {
        guard let object = JSONValue.object(from: body) else { return (["the CheckFileInfo body is not a JSON object"], []) }
        var failures: [String] = []
        var warnings: [String] = []
        let all = requiredProperties.map { ($0.name, $0.reason, true) } + optionalProperties.map { ($0.name, $0.reason, false) }
        for (property, reason, required) in all {
            func note(_ problem: String) { if required { failures.append(problem) } else { warnings.append(problem) } }
            guard let value = object[property], value != .null else {
                note(required ? "\(property) is missing; \(displayName) needs it: \(reason)" : "\(property) is missing; \(displayName) works without it, but \(reason)")
                continue
            }
            if property == "Size" {
                if value.integerValue.map({ $0 < 0 }) ?? true { note("Size is a \(value.typeName), not a non-negative whole number") }
                continue
            }
            guard let text = value.stringValue, !text.isEmpty else {
                note("\(property) is \(value.stringValue == nil ? "a \(value.typeName), not a string" : "empty")")
                continue
            }
            switch property {
            case "PostMessageOrigin" where WebClientTime.origin(of: text) != text:
                note("PostMessageOrigin '\(text.prefix(100))' is not an origin (scheme://host[:port], nothing after it)")
            case "HostViewUrl", "HostEditUrl":
                if WebClientTime.origin(of: text) == nil { note("\(property) '\(text.prefix(100))' is not an absolute http(s) URL") }
            default: break
            }
        }
        return (failures, warnings)
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

    /// Whether a `LastModifiedTime` moved on from `seen`: to another second when both are ISO 8601
    /// times, else (an opaque value, as Collabora Online keeps it) to another string.
    static func changed(_ text: String, from seen: String) -> Bool {
        guard let date = parse(text), let seenDate = parse(seen) else { return text != seen }
        return !sameSecond(date, seenDate)
    }

    /// `scheme://host[:port]` of an absolute http(s) URL (RFC 6454 §6.1), `nil` for anything else.
    static func origin(of text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else { return nil }
        return "\(scheme)://\(host.lowercased())\(url.port.map { ":\($0)" } ?? "")"
    }
}
