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
    var supportsAddActivities = true // issue 13: AddActivities records comments and mentions
    /// The link types this caller may ask for: `ReadWrite` only for those who may edit.
    var supportedShareUrlTypes: [String]

    // Breadcrumbs
    var breadcrumbBrandName: String
    var breadcrumbFolderName: String
}

/// The share URL kinds this host hands out (GetShareUrl.rst, `X-WOPI-UrlType`).
///
/// A `ReadOnly` link shows the item to anyone who has it; a `ReadWrite` link lets a signed-in user
/// who opens it add the item to their "Shared with me" as an editor (``ShareController``).
enum ShareURLType: String, CaseIterable {
    case readOnly = "ReadOnly"
    case readWrite = "ReadWrite"
}

/// A `{Name, Url}` pair: a child container, an ancestor, or a container pointer.
struct NamedURL: Encodable {
    var name: String
    var url: String
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
struct ContainerInfo: Encodable {
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
    init(_ container: ContainerRecord, role: AccessRole = .owner, isSharedWithMe: Bool = false) {
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
struct ContainerPointerResponse: Encodable {
    var containerPointer: NamedURL
    var containerInfo: ContainerInfo
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
}

extension Date {
    /// ISO 8601 in UTC, as WOPI's `LastModifiedTime` expects.
    var wopiTimestamp: String { formatted(.iso8601) }
}
