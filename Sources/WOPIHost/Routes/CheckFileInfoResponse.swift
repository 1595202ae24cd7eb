import Foundation
import WOPICore

/// The CheckFileInfo body (docs/rest/src/files/CheckFileInfo.rst).
///
/// Capability flags are true only where every operation they cover is implemented here.
/// `IsEduUser` and `LicenseCheckForEditIsEnabled` come from ``WOPIBackend`` so they always equal
/// the parent container's values, as Office for iOS requires (docs/native/src/wopi_requirements.rst).
struct CheckFileInfoResponse: Encodable {
    // Required
    var baseFileName: String
    var ownerId: String
    var size: Int64
    var userId: String
    var version: String

    // File
    var fileExtension: String
    var lastModifiedTime: String
    var SHA256: String
    var fileNameMaxLength = 250
    /// A direct download URL for the current content (GetFile with the caller's own token).
    var fileUrl: String

    // User
    var userFriendlyName: String
    var userInfo: String?
    var isAnonymousUser = false
    var isEduUser: Bool
    var licenseCheckForEditIsEnabled: Bool
    var userCanWrite: Bool
    var userCanRename: Bool
    var userCanNotWriteRelative: Bool
    var readOnly: Bool

    // Capabilities
    var supportsLocks = true
    var supportsGetLock = true
    var supportsExtendedLockLength = true
    var supportsUpdate = true
    var supportsRename = true
    var supportsDeleteFile = true
    var supportsContainers = true
    var supportsEcosystem = true
    var supportsUserInfo = true
    var supportsAddActivities = true // AddActivities records comments and mentions
    /// The link types this caller may ask for: `ReadWrite` only for those who may edit.
    var supportedShareUrlTypes: [String]

    // Breadcrumbs
    var breadcrumbBrandName: String
    var breadcrumbFolderName: String

    // Browser editors: set only when the host has some (`CheckFileInfoResponse+BrowserEditors.swift`).
    var postMessageOrigin: String? = nil
    var hostViewUrl: String? = nil
    var hostEditUrl: String? = nil
    var fileSharingUrl: String? = nil
    var downloadUrl: String? = nil
    var enableOwnerTermination: Bool? = nil
    var userExtraInfo: [String: String]? = nil
    var templateSource: String? = nil
}

/// The share URL kinds this host hands out (GetShareUrl.rst, `X-WOPI-UrlType`).
///
/// A `ReadOnly` link shows the item to anyone who has it; a `ReadWrite` link lets a signed-in user
/// who opens it add the item to their "Shared with me" as an editor (the share pages of `WOPIAuthorization`).
enum ShareURLType: String, CaseIterable {
    case readOnly = "ReadOnly"
    case readWrite = "ReadWrite"
}

/// A `{Name, Url}` pair: a child container, an ancestor, or a container pointer.
package struct NamedURL: Encodable {
    var name: String
    var url: String

    /// The pair of `name` and `url`.
    package init(name: String, url: String) {
        self.name = name
        self.url = url
    }
}

/// An entry of EnumerateChildren's `ChildFiles` (docs/rest/src/_fragments/child_file.rst).
struct ChildFile: Encodable {
    var name: String
    var url: String
    var size: Int64
    var version: String
    var lastModifiedTime: String
}

/// The CheckContainerInfo body (docs/rest/src/containers/CheckContainerInfo.rst).
package struct ContainerInfo: Encodable {
    /// This host has no education or business licensing; both values are the same for every
    /// container and file, which keeps CheckFileInfo equal to its parent container as iOS requires.
    static let isEduUser = false
    static let licenseCheckForEditIsEnabled = false

    var name: String
    var isAnonymousUser = false
    var isEduUser = ContainerInfo.isEduUser
    var licenseCheckForEditIsEnabled = ContainerInfo.licenseCheckForEditIsEnabled
    var userCanCreateChildContainer: Bool
    var userCanCreateChildFile: Bool
    var userCanDelete: Bool
    var userCanRename: Bool
    var supportedShareUrlTypes: [String]

    /// The info of `container` for a caller with `role` (`AccessRules`). A user's root cannot be deleted
    /// (every file must keep a home), but it can be renamed; "Shared with me" can be neither, nor shared.
    package init(_ container: ContainerRecord, role: AccessRole = .owner, isSharedWithMe: Bool = false) {
        name = container.name
        let canChange = role >= .editor && !isSharedWithMe
        userCanCreateChildContainer = canChange
        userCanCreateChildFile = canChange
        userCanRename = canChange
        userCanDelete = role == .owner && container.parentID != nil && !isSharedWithMe
        supportedShareUrlTypes = isSharedWithMe ? [] : AccessRules.shareURLTypes(for: role)
    }
}

/// CreateChildContainer's and GetRootContainer's answer.
package struct ContainerPointerResponse: Encodable {
    var containerPointer: NamedURL
    var containerInfo: ContainerInfo

    /// The answer pointing at `containerPointer`, described by `containerInfo`.
    package init(containerPointer: NamedURL, containerInfo: ContainerInfo) {
        self.containerPointer = containerPointer
        self.containerInfo = containerInfo
    }
}

/// EnumerateChildren's answer.
struct ChildrenResponse: Encodable {
    var childContainers: [NamedURL]
    var childFiles: [ChildFile]
}

/// The answer to PutRelativeFile and CreateChildFile.
struct NewFileResponse: Encodable {
    var name: String
    var url: String
    /// The new file's host pages, when the host has browser editors (PutRelativeFile.rst).
    var hostViewUrl: String? = nil
    var hostEditUrl: String? = nil
}

extension Date {
    /// ISO 8601 in UTC to the second (`2026-11-23T21:40:00Z`), as WOPI's `LastModifiedTime` expects.
    ///
    /// The same text as `formatted(.iso8601)`, built by hand: the format style cost
    /// microseconds per call, once per file in a listing.
    var wopiTimestamp: String {
        let seconds = timeIntervalSince1970.rounded(.down)
        // Years 1900…9999 only: older dates (calendar reforms) and larger ones take the format style.
        guard seconds.isFinite, seconds >= -2_208_988_800, seconds < 253_402_300_800 else { return formatted(.iso8601) }
        // Days since 1970-01-01 to a civil date (Howard Hinnant's days_from_civil, inverted).
        let total = Int64(seconds)
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondOfDay = total - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        var bytes = [UInt8](repeating: 0, count: 20)
        func put(_ value: Int64, _ at: Int, _ width: Int) {
            var value = value
            for index in stride(from: at + width - 1, through: at, by: -1) {
                bytes[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(year, 0, 4); bytes[4] = UInt8(ascii: "-"); put(month, 5, 2); bytes[7] = UInt8(ascii: "-"); put(day, 8, 2)
        bytes[10] = UInt8(ascii: "T"); put(secondOfDay / 3600, 11, 2); bytes[13] = UInt8(ascii: ":")
        put(secondOfDay / 60 % 60, 14, 2); bytes[16] = UInt8(ascii: ":"); put(secondOfDay % 60, 17, 2); bytes[19] = UInt8(ascii: "Z")
        return String(decoding: bytes, as: UTF8.self)
    }
}
