import Foundation
import OfficeURLScheme
import WOPICore
import WOPIHTTPClient

/// The rules Office for iOS holds a WOPI host to beyond Microsoft's validator (/// wopi_requirements.rst, CheckFileInfo.rst, issues/invalidcharacters.rst, bootstrapper.rst), each a
/// pure function of what the host answered, so `wopi check-host` can name the exact rule a host breaks.
public enum MobileRules {
    /// The suite name of every rule.
    public static let suite = "rule"

    /// CheckFileInfo's required properties and their types: BaseFileName, OwnerId, UserId and Version
    /// strings, Size a whole number (CheckFileInfo.rst "Required response properties").
    public static func requiredProperties(checkFileInfo body: Data) -> ReadinessCheck {
        let name = "checkfileinfo.required-properties"
        guard let object = JSONValue.object(from: body) else { return failed(name, "the CheckFileInfo body is not a JSON object") }
        var problems: [String] = []
        for property in CheckFileInfoSummary.requiredStrings {
            guard let value = object[property] else { problems.append("\(property) is missing"); continue }
            guard let text = value.stringValue else { problems.append("\(property) is a \(value.typeName), not a string"); continue }
            if text.isEmpty { problems.append("\(property) is empty") }
        }
        var sizeText = ""
        if let size = object["Size"] {
            if let bytes = size.integerValue, bytes >= 0 { sizeText = "\(bytes)" } else {
                problems.append("Size is a \(size.typeName), not a non-negative whole number")
            }
        } else {
            problems.append("Size is missing")
        }
        guard problems.isEmpty else { return failed(name, problems.joined(separator: "; ")) }
        return passed(name, "BaseFileName, OwnerId, UserId, Version are strings; Size is \(sizeText)")
    }

    /// Every Boolean property Office for iOS reads is a JSON Boolean when present (`"no"` or `0` is not).
    public static func propertyTypes(checkFileInfo body: Data) -> ReadinessCheck {
        let name = "checkfileinfo.property-types"
        guard let object = JSONValue.object(from: body) else { return failed(name, "the CheckFileInfo body is not a JSON object") }
        let problems = (CheckFileInfoSummary.requiredBooleans + CheckFileInfoSummary.optionalBooleans).compactMap { property -> String? in
            guard let value = object[property], value != .null, value.boolValue == nil else { return nil }
            return "\(property) is a \(value.typeName) (\(value.rendered)), not a Boolean"
        }
        guard problems.isEmpty else { return failed(name, problems.joined(separator: "; ")) }
        return passed(name, "every flag Office for iOS reads is a Boolean")
    }

    /// IsEduUser and LicenseCheckForEditIsEnabled are present: Office for iOS requires both (wopi_requirements.rst).
    public static func licensingProperties(checkFileInfo body: Data) -> ReadinessCheck {
        let name = "checkfileinfo.licensing-properties"
        guard let object = JSONValue.object(from: body) else { return failed(name, "the CheckFileInfo body is not a JSON object") }
        let problems = CheckFileInfoSummary.requiredBooleans.filter { object[$0]?.boolValue == nil }
            .map { "\($0) is missing or not a Boolean; Office for iOS requires it" }
        guard problems.isEmpty else { return failed(name, problems.joined(separator: "; ")) }
        return passed(name, "IsEduUser and LicenseCheckForEditIsEnabled are set")
    }

    /// BaseFileName, UserId and OwnerId hold none of the characters Office for iOS refuses.
    public static func refusedCharacters(checkFileInfo body: Data) -> ReadinessCheck {
        let name = "checkfileinfo.refused-characters"
        guard let object = JSONValue.object(from: body) else { return failed(name, "the CheckFileInfo body is not a JSON object") }
        let problems = CheckFileInfoSummary.namedProperties.compactMap { property -> String? in
            let value = object[property]?.stringValue ?? ""
            guard let bad = value.first(where: { WOPIName.refusedCharacters.contains($0) }) else { return nil }
            return "\(property) '\(value.prefix(100))' contains '\(bad)', which Office for iOS refuses"
        }
        guard problems.isEmpty else { return failed(name, problems.joined(separator: "; ")) }
        return passed(name, "no refused character in BaseFileName, UserId or OwnerId")
    }

    /// Microsoft's CheckFileInfo page, which the warnings name.
    public static let checkFileInfoDocs = "https://learn.microsoft.com/en-us/microsoft-365/cloud-storage-partner-program/rest/files/checkfileinfo/checkfileinfo-response"

    /// No property is `null`: the docs ask hosts to leave out what they do not set, and clients
    /// read a `null` as a wrong type. A warning, not a failure.
    public static func noNullValues(checkFileInfo body: Data) -> ReadinessCheck {
        let name = "checkfileinfo.no-null-values"
        guard let object = JSONValue.object(from: body) else { return failed(name, "the CheckFileInfo body is not a JSON object") }
        let nulls = object.filter { $0.value == .null }.map(\.key).sorted()
        guard nulls.isEmpty else {
            return warning(name, "\(nulls.joined(separator: ", ")) \(nulls.count == 1 ? "is" : "are") null; leave out a property rather than send null (\(checkFileInfoDocs))")
        }
        return passed(name, "no property is null")
    }

    /// LastModifiedTime, when given, is an ISO 8601 UTC time such as `2026-11-25T13:54:07.000Z`, as
    /// the docs require. A warning, not a failure.
    public static func lastModifiedTime(checkFileInfo body: Data) -> ReadinessCheck {
        let name = "checkfileinfo.last-modified-time"
        guard let object = JSONValue.object(from: body) else { return failed(name, "the CheckFileInfo body is not a JSON object") }
        guard let value = object["LastModifiedTime"], value != .null else { return passed(name, "LastModifiedTime is not given") }
        guard let text = value.stringValue, isISO8601UTC(text) else {
            return warning(name, "LastModifiedTime \(value.rendered) is not an ISO 8601 UTC time such as 2026-11-25T13:54:07.000Z (\(checkFileInfoDocs))")
        }
        return passed(name, "LastModifiedTime \(text) is ISO 8601 UTC")
    }

    /// `YYYY-MM-DDThh:mm:ss[.fraction]Z`: ISO 8601's extended format in UTC, what the docs show.
    static func isISO8601UTC(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        let pattern = Array("dddd-dd-ddTdd:dd:dd".unicodeScalars)
        guard scalars.count >= pattern.count + 1, scalars.last == "Z" else { return false }
        for (scalar, expected) in zip(scalars, pattern) {
            let matches = expected == "d" ? ("0"..."9").contains(scalar) : scalar == expected
            if !matches { return false }
        }
        let rest = scalars[pattern.count..<(scalars.count - 1)]
        if rest.isEmpty { return true }
        return rest.first == "." && rest.count > 1 && rest.dropFirst().allSatisfy { ("0"..."9").contains($0) }
    }

    /// The name of ``getLockOnUnlockedFile(_:)``'s check.
    public static let getLockRuleName = "getlock.unlocked-file"

    /// GetLock on a file nobody has locked answers 200 with an empty `X-WOPI-Lock` (GetLock.rst);
    /// Office for iOS calls it before it opens a file for editing. A file some client holds a lock
    /// on cannot be judged, so the check is then skipped.
    public static func getLockOnUnlockedFile(_ response: SimulatorResponse) -> ReadinessCheck {
        let name = getLockRuleName
        let docs = "(GetLock.rst: 200 with X-WOPI-Lock empty when the file is not locked)"
        guard response.status == 200 else {
            return failed(name, "GetLock answered HTTP \(response.status) on the file, which no client had locked; it must answer 200 with an empty X-WOPI-Lock, "
                + "else Office for iOS does not open the file for editing \(docs) (host answered \(HostAnswer(response)))")
        }
        guard let lock = response.header("X-WOPI-Lock") else {
            return failed(name, "GetLock answered 200 without X-WOPI-Lock; it must send the header, empty when the file is not locked \(docs)")
        }
        guard lock.isEmpty else {
            return ReadinessCheck(suite: suite, name: name, outcome: .skipped,
                                  detail: "the file is locked now ('\(lock.prefix(100))'), so GetLock's answer on an unlocked file cannot be judged")
        }
        return passed(name, "GetLock on the unlocked file answers 200 with an empty X-WOPI-Lock")
    }

    /// SupportsContainers and SupportsDeleteFile: Office for iOS browses folders and deletes files
    /// (wopi_requirements.rst lists the container operations and DeleteFile as required).
    public static func containersAndDelete(checkFileInfo body: Data) -> ReadinessCheck {
        let name = "checkfileinfo.containers-and-delete"
        guard let object = JSONValue.object(from: body) else { return failed(name, "the CheckFileInfo body is not a JSON object") }
        let containers = object["SupportsContainers"]?.boolValue ?? false
        let delete = object["SupportsDeleteFile"]?.boolValue ?? false
        switch (containers, delete) {
        case (true, true): return passed(name, "SupportsContainers and SupportsDeleteFile are true")
        case (false, _): return failed(name, "SupportsContainers is not true; Office for iOS needs the container operations")
        case (true, false): return failed(name, "SupportsContainers is true but SupportsDeleteFile is not; Office for iOS needs both")
        }
    }

    /// The licensing properties are equal on the file and its folder (wopi_requirements.rst).
    public static func licensingEqual(checkFileInfo file: Data, checkContainerInfo folder: Data) -> ReadinessCheck {
        let name = "licensing.file-equals-folder"
        guard let fileObject = JSONValue.object(from: file), let folderObject = JSONValue.object(from: folder) else {
            return failed(name, "CheckFileInfo or CheckContainerInfo is not a JSON object")
        }
        for property in CheckFileInfoSummary.requiredBooleans {
            let onFile = fileObject[property]?.boolValue
            let onFolder = folderObject[property]?.boolValue
            guard let onFolder else { return failed(name, "the folder's CheckContainerInfo has no Boolean \(property)") }
            if onFile != onFolder {
                return failed(name, "\(property) is \(onFile.map(String.init) ?? "missing") on the file but \(onFolder) on its folder")
            }
        }
        return passed(name, "IsEduUser and LicenseCheckForEditIsEnabled are equal on the file and its folder")
    }

    /// The bootstrapper's unauthenticated answer: 401 with exactly one `WWW-Authenticate: Bearer …`
    /// in the exact format of bootstrapper.rst. Returns the check and the parsed challenge.
    public static func bootstrapperHeader(_ response: SimulatorResponse) -> (ReadinessCheck, BootstrapperChallenge?) {
        let name = "bootstrapper.challenge-format"
        guard response.status == 401 else { return (failed(name, "an unauthenticated call answered HTTP \(response.status), not 401"), nil) }
        let bearer = response.headers(named: "WWW-Authenticate").filter { $0.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("bearer") }
        guard bearer.count == 1, let value = bearer.first else {
            return (failed(name, "expected exactly one WWW-Authenticate: Bearer header, found \(bearer.count)"), nil)
        }
        do {
            let challenge = try BootstrapperChallenge(headerValue: value)
            return (passed(name, "401 with authorization_uri, tokenIssuance_uri\(challenge.providerID != nil ? ", providerId" : "")\(challenge.urlSchemes != nil ? ", UrlSchemes" : "")"), challenge)
        } catch {
            return (failed(name, "WWW-Authenticate '\(value.prefix(200))': \(error)"), nil)
        }
    }

    /// HTTPS for every URL Office is given that is not on loopback (127.0.0.0/8, ::1, localhost).
    public static func https(_ urls: [(role: String, url: String)]) -> ReadinessCheck {
        let name = "transport.https"
        for (role, text) in urls {
            guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), let host = components.host else {
                return failed(name, "\(role) '\(text.prefix(200))' is not an absolute URL")
            }
            if scheme != "https" && !isLoopback(host) {
                return failed(name, "\(role) \(text.prefix(200)) is not https; Office for iOS only talks HTTPS to hosts that are not on loopback")
            }
        }
        return passed(name, "every URL is https or on loopback: " + urls.map(\.role).joined(separator: ", "))
    }

    /// Whether `host` is a loopback name or address.
    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }

    static func passed(_ name: String, _ detail: String) -> ReadinessCheck {
        ReadinessCheck(suite: suite, name: name, outcome: .passed, detail: detail)
    }

    static func warning(_ name: String, _ detail: String) -> ReadinessCheck {
        ReadinessCheck(suite: suite, name: name, outcome: .warning, detail: detail)
    }

    static func failed(_ name: String, _ detail: String) -> ReadinessCheck {
        ReadinessCheck(suite: suite, name: name, outcome: .failed, detail: detail)
    }
}

extension JSONValue {
    /// A short rendering of the value, for messages.
    var rendered: String {
        switch self {
        case .null: "null"
        case .bool(let value): String(value)
        case .integer(let value): String(value)
        case .number(let value): String(value)
        case .string(let value): "\"\(value.prefix(60))\""
        case .array: "[…]"
        case .object: "{…}"
        }
    }
}
