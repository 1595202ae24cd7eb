import Foundation
import WOPICore

/// The CheckFileInfo properties Office for iOS relies on, checked the way it checks them
/// (CheckFileInfo.rst "Required response properties", wopi_requirements.rst, issues/invalidcharacters.rst).
struct CheckFileInfoSummary: Sendable, Hashable {
    var baseFileName: String
    var ownerID: String
    var size: Int64
    var userID: String
    var version: String
    var userCanWrite: Bool
    var readOnly: Bool
    var supportsLocks: Bool
    var supportsGetLock: Bool
    var supportsUpdate: Bool
    var supportsRename = false
    var userCanRename = false
    var userCanNotWriteRelative = false
    var supportsContainers = false
    var supportsDeleteFile = false
    /// The licensing properties Office for iOS compares with the parent container's (wopi_requirements.rst).
    var isEduUser = false
    var licenseCheckForEditIsEnabled = false

    /// Required string properties (CheckFileInfo.rst).
    static let requiredStrings = ["BaseFileName", "OwnerId", "UserId", "Version"]
    /// Booleans Office for iOS requires (wopi_requirements.rst: equal to the container's).
    static let requiredBooleans = ["IsEduUser", "LicenseCheckForEditIsEnabled"]
    /// Optional Booleans that must be Booleans when present (flags default to false).
    static let optionalBooleans = [
        "UserCanWrite", "ReadOnly", "SupportsLocks", "SupportsGetLock", "SupportsUpdate", "SupportsExtendedLockLength",
        "UserCanRename", "UserCanNotWriteRelative", "SupportsRename", "SupportsDeleteFile", "SupportsContainers",
        "SupportsEcosystem", "SupportsUserInfo", "IsAnonymousUser",
    ]
    /// Properties whose values Office refuses when they hold one of ``WOPIName/refusedCharacters``.
    static let namedProperties = ["BaseFileName", "UserId", "OwnerId"]

    /// How much of CheckFileInfo a scenario holds the host to.
    enum Scope: Sendable {
        /// Everything Office for iOS checks when it opens a file: the required and licensing
        /// properties, refused characters, the user. Open-edit-save and browse play that story.
        case everything
        /// Only what the scenario reads to do its work (BaseFileName, Size, Version, the flags, and
        /// UserId when present), so one missing property does not stop scenarios that never read it;
        /// the mobile rules and open-edit-save report the rest.
        case whatTheScenarioReads
    }

    /// Reads and checks a CheckFileInfo body.
    ///
    /// - Parameters:
    ///   - expectedUserID: The invoke URI's `|e|`; `UserId` must equal it when given.
    ///   - scope: How much to hold the host to.
    /// - Returns: The summary, or a reason Office would refuse the answer.
    static func check(_ body: Data, expectedUserID: String?, scope: Scope = .everything) -> Result<CheckFileInfoSummary, CheckProblem> {
        guard let object = JSONValue.object(from: body) else { return .failure(CheckProblem("the body is not a JSON object")) }
        let everything = scope == .everything
        for name in requiredStrings where everything || name == "BaseFileName" || name == "Version" || object[name] != nil {
            guard let value = object[name] else { return .failure(CheckProblem("the required property \(name) is missing")) }
            guard value.stringValue != nil else { return .failure(CheckProblem("\(name) is a \(value.typeName), not a string")) }
        }
        guard let sizeValue = object["Size"] else { return .failure(CheckProblem("the required property Size is missing")) }
        guard let size = sizeValue.integerValue, size >= 0 else {
            return .failure(CheckProblem("Size is a \(sizeValue.typeName) (\(sizeValue)), not a non-negative whole number"))
        }
        for name in requiredBooleans where everything {
            guard let value = object[name] else { return .failure(CheckProblem("\(name) is missing; Office for iOS requires it")) }
            guard value.boolValue != nil else { return .failure(CheckProblem("\(name) is a \(value.typeName), not a Boolean")) }
        }
        for name in optionalBooleans {
            if let value = object[name], value != .null, value.boolValue == nil {
                return .failure(CheckProblem("\(name) is a \(value.typeName), not a Boolean"))
            }
        }
        for name in namedProperties where everything || name == "BaseFileName" {
            let value = object[name]?.stringValue ?? ""
            if everything, let bad = value.first(where: { WOPIName.refusedCharacters.contains($0) }) {
                return .failure(CheckProblem("\(name) '\(value.prefix(100))' contains '\(bad)', which Office for iOS refuses"))
            }
            if value.isEmpty { return .failure(CheckProblem("\(name) is empty")) }
        }
        let userID = object["UserId"]?.stringValue ?? ""
        if let expectedUserID, everything || object["UserId"] != nil, userID != expectedUserID {
            return .failure(CheckProblem("UserId '\(userID.prefix(100))' is not the user the invoke URI names (|e| '\(expectedUserID.prefix(100))')"))
        }
        let version = object["Version"]?.stringValue ?? ""
        if version.isEmpty { return .failure(CheckProblem("Version is empty")) }
        func flag(_ name: String) -> Bool { object[name]?.boolValue ?? false }
        return .success(CheckFileInfoSummary(
            baseFileName: object["BaseFileName"]?.stringValue ?? "", ownerID: object["OwnerId"]?.stringValue ?? "",
            size: size, userID: userID, version: version,
            userCanWrite: flag("UserCanWrite"), readOnly: flag("ReadOnly"), supportsLocks: flag("SupportsLocks"),
            supportsGetLock: flag("SupportsGetLock"), supportsUpdate: flag("SupportsUpdate"),
            supportsRename: flag("SupportsRename"), userCanRename: flag("UserCanRename"),
            userCanNotWriteRelative: flag("UserCanNotWriteRelative"), supportsContainers: flag("SupportsContainers"),
            supportsDeleteFile: flag("SupportsDeleteFile"), isEduUser: flag("IsEduUser"),
            licenseCheckForEditIsEnabled: flag("LicenseCheckForEditIsEnabled")))
    }

    /// Why this file cannot be edited, or `nil` when every flag editing needs is set.
    var editingBlocker: String? {
        if !userCanWrite { return "UserCanWrite is not true" }
        if readOnly { return "ReadOnly is true" }
        if !supportsLocks { return "SupportsLocks is not true" }
        if !supportsUpdate { return "SupportsUpdate is not true" }
        return nil
    }
}

/// A one-line reason a host's answer is not what Office accepts.
struct CheckProblem: Error, Sendable, Hashable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
