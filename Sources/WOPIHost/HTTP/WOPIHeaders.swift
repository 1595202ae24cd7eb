import HTTPTypes
import Hummingbird

/// The WOPI header names this host reads and writes (docs/rest/src/common_headers.rst and each operation's page).
extension HTTPField.Name {
    static let wopiOverride = Self("X-WOPI-Override")!
    static let wopiLock = Self("X-WOPI-Lock")!
    static let wopiOldLock = Self("X-WOPI-OldLock")!
    static let wopiLockFailureReason = Self("X-WOPI-LockFailureReason")!
    static let wopiItemVersion = Self("X-WOPI-ItemVersion")!
    static let wopiMaxExpectedSize = Self("X-WOPI-MaxExpectedSize")!
    static let wopiSuggestedTarget = Self("X-WOPI-SuggestedTarget")!
    static let wopiRelativeTarget = Self("X-WOPI-RelativeTarget")!
    static let wopiOverwriteRelativeTarget = Self("X-WOPI-OverwriteRelativeTarget")!
    static let wopiValidRelativeTarget = Self("X-WOPI-ValidRelativeTarget")!
    static let wopiRequestedName = Self("X-WOPI-RequestedName")!
    static let wopiInvalidFileNameError = Self("X-WOPI-InvalidFileNameError")!
    static let wopiInvalidContainerNameError = Self("X-WOPI-InvalidContainerNameError")!
    static let wopiUrlType = Self("X-WOPI-UrlType")!
    static let wopiFileExtensionFilterList = Self("X-WOPI-FileExtensionFilterList")!
    static let wopiServerError = Self("X-WOPI-ServerError")!
    static let wopiSize = Self("X-WOPI-Size")!
    /// Collabora Online's PutFile headers (wsd/reference.md), with their older `X-LOOL-` spellings.
    static let coolTimestamp = Self("X-COOL-WOPI-Timestamp")!
    static let loolTimestamp = Self("X-LOOL-WOPI-Timestamp")!
    static let coolIsModifiedByUser = Self("X-COOL-WOPI-IsModifiedByUser")!
    static let loolIsModifiedByUser = Self("X-LOOL-WOPI-IsModifiedByUser")!
    static let coolIsAutosave = Self("X-COOL-WOPI-IsAutosave")!
    static let loolIsAutosave = Self("X-LOOL-WOPI-IsAutosave")!
    static let coolIsExitSave = Self("X-COOL-WOPI-IsExitSave")!
    static let loolIsExitSave = Self("X-LOOL-WOPI-IsExitSave")!
}

extension HTTPFields {
    /// The value of a header that must appear at most once; a doubled header is a malformed request.
    package func single(_ name: HTTPField.Name) throws(WOPIError) -> String? {
        let values = self[values: name]
        guard values.count <= 1 else { throw .badRequest("header \(name) appears more than once") }
        return values.first
    }
}
