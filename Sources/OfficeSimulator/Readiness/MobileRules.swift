import Foundation
import OfficeURLScheme
import WOPICore

/// The rules Office for iOS holds a WOPI host to beyond Microsoft's validator (issue 12;
/// wopi_requirements.rst, CheckFileInfo.rst, issues/invalidcharacters.rst, bootstrapper.rst), each a
/// pure function of what the host answered, so `wopi check-host` can name the exact rule a host breaks.
public enum MobileRules {
    /// The suite name of every rule.
    public static let suite = "rule"

    /// CheckFileInfo's required properties and their types: BaseFileName, OwnerId, UserId and Version
    /// strings, Size a whole number (CheckFileInfo.rst "Required response properties").
    public static func requiredProperties(checkFileInfo body: Data) -> ReadinessCheck {
        let name = "checkfileinfo.required-properties"
        guard let object = JSONValue.object(from: body) else { return failed(name, "the CheckFileInfo body is not a JSON object") }
        for property in CheckFileInfoSummary.requiredStrings {
            guard let value = object[property] else { return failed(name, "\(property) is missing") }
            guard let text = value.stringValue else { return failed(name, "\(property) is a \(value.typeName), not a string") }
            if text.isEmpty { return failed(name, "\(property) is empty") }
        }
        guard let size = object["Size"] else { return failed(name, "Size is missing") }
        guard let bytes = size.integerValue, bytes >= 0 else { return failed(name, "Size is a \(size.typeName), not a non-negative whole number") }
        return passed(name, "BaseFileName, OwnerId, UserId, Version are strings; Size is \(bytes)")
    }

    /// Every Boolean property Office for iOS reads is a JSON Boolean when present (`"no"` or `0` is not).
    public static func propertyTypes(checkFileInfo body: Data) -> ReadinessCheck {
        let name = "checkfileinfo.property-types"
        guard let object = JSONValue.object(from: body) else { return failed(name, "the CheckFileInfo body is not a JSON object") }
        for property in CheckFileInfoSummary.requiredBooleans + CheckFileInfoSummary.optionalBooleans {
            if let value = object[property], value != .null, value.boolValue == nil {
                return failed(name, "\(property) is a \(value.typeName) (\(value.rendered)), not a Boolean")
            }
        }
        return passed(name, "every flag Office for iOS reads is a Boolean")
    }

    /// IsEduUser and LicenseCheckForEditIsEnabled are present: Office for iOS requires both (wopi_requirements.rst).
    public static func licensingProperties(checkFileInfo body: Data) -> ReadinessCheck {
        let name = "checkfileinfo.licensing-properties"
        guard let object = JSONValue.object(from: body) else { return failed(name, "the CheckFileInfo body is not a JSON object") }
        for property in CheckFileInfoSummary.requiredBooleans where object[property]?.boolValue == nil {
            return failed(name, "\(property) is missing or not a Boolean; Office for iOS requires it")
        }
        return passed(name, "IsEduUser and LicenseCheckForEditIsEnabled are set")
    }

    /// BaseFileName, UserId and OwnerId hold none of the characters Office for iOS refuses.
    public static func refusedCharacters(checkFileInfo body: Data) -> ReadinessCheck {
        let name = "checkfileinfo.refused-characters"
        guard let object = JSONValue.object(from: body) else { return failed(name, "the CheckFileInfo body is not a JSON object") }
        for property in CheckFileInfoSummary.namedProperties {
            let value = object[property]?.stringValue ?? ""
            if let bad = value.first(where: { WOPIName.refusedCharacters.contains($0) }) {
                return failed(name, "\(property) '\(value.prefix(100))' contains '\(bad)', which Office for iOS refuses")
            }
        }
        return passed(name, "no refused character in BaseFileName, UserId or OwnerId")
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
