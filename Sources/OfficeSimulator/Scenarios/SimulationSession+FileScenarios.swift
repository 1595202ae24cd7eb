import Foundation
import OfficeURLScheme
import WOPICore
import WOPIHTTPClient

/// The scenarios that work on the invoked file: create, save-as, rename, conflict, upload-pending
/// (operational_flows.rst, and the REST pages each step names).
extension SimulationSession {
    /// The name and URL of a new file, as PutRelativeFile and CreateChildFile answer them:
    /// `{"Name": …, "Url": <WOPISrc>?access_token=…}`.
    func namedPointer(_ response: SimulatorResponse, _ step: SimulationStep.Name, _ operation: String) throws(SimulationFailure) -> (String, WOPIRequests) {
        guard let object = JSONValue.object(from: response.body) else {
            throw SimulationFailure(step: step, reason: "\(operation)'s answer is not a JSON object", response: response)
        }
        guard let name = object["Name"]?.stringValue, !name.isEmpty else {
            throw SimulationFailure(step: step, reason: "\(operation)'s answer has no Name string", response: response)
        }
        guard let url = object["Url"]?.stringValue, let wopi = WOPIRequests(pointer: url) else {
            throw SimulationFailure(step: step, reason: "\(operation)'s Url must be an http(s) WOPISrc carrying access_token", response: response)
        }
        if let bad = name.first(where: { WOPIName.refusedCharacters.contains($0) }) {
            throw SimulationFailure(step: step, reason: "Name '\(name.prefix(100))' contains '\(bad)', which Office for iOS refuses", response: response)
        }
        return (name, wopi)
    }

    /// `("Quarterly report", ".docx")`.
    static func split(_ fileName: String) -> (stem: String, ext: String) {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return (fileName, "") }
        return (String(fileName[..<dot]), String(fileName[dot...]))
    }

    /// The extension new documents get: the invoked file's, else the app's first.
    var newDocumentExtension: String {
        let ext = Self.split(invoke.fileName ?? "").ext
        return ext.isEmpty ? "." + (invoke.app.fileExtensions.first ?? "docx") : ext
    }

    // MARK: create

    /// EnumerateAncestors finds the file's folder, CreateChildFile makes a new document there, and
    /// Office opens, edits and saves it (CreateChildFile.rst: the new file is empty until PutFile).
    mutating func create(_ access: Access) async throws(SimulationFailure) -> SimulationResult {
        let info = try await checkFileInfo(access.wopi, step: .checkFileInfo, bootstrapUserID: access.bootstrapUserID)
        report(.checkFileInfo, "'\(info.baseFileName)', SupportsContainers \(info.supportsContainers)")
        guard info.supportsContainers else {
            return notApplicable("CheckFileInfo does not set SupportsContainers, so Office cannot find the file's folder to create a document in")
        }
        let response = try await send(access.wopi.enumerateAncestors, .enumerateAncestors)
        guard response.status == 200 else {
            throw SimulationFailure(step: .enumerateAncestors, reason: "EnumerateAncestors must answer 200 when SupportsContainers is true", response: response)
        }
        guard case .array(let ancestors)? = JSONValue.object(from: response.body)?["AncestorsWithRootFirst"],
              let parent = ancestors.last?.objectValue, let folderName = parent["Name"]?.stringValue,
              let folderURL = parent["Url"]?.stringValue, let folder = WOPIRequests(pointer: folderURL) else {
            throw SimulationFailure(step: .enumerateAncestors,
                                    reason: "AncestorsWithRootFirst must list the file's folders, each with Name and a Url carrying access_token", response: response)
        }
        report(.enumerateAncestors, "\(ancestors.count) folder\(ancestors.count == 1 ? "" : "s") above the file; its folder is '\(folderName)'")

        let suggested = "New document" + newDocumentExtension
        let created = try await send(folder.createChildFile(suggestedName: suggested), .createChildFile)
        guard created.status == 200 else {
            throw SimulationFailure(step: .createChildFile, reason: "CreateChildFile must answer 200", response: created)
        }
        let (name, newFile) = try namedPointer(created, .createChildFile, "CreateChildFile")
        report(.createChildFile, "asked for '\(suggested)' in '\(folderName)', got '\(name)'")

        let newAccess = Access(wopi: newFile, bootstrapUserID: access.bootstrapUserID, oauth: access.oauth)
        let (newInfo, lock, content) = try await open(newAccess)
        guard newInfo.baseFileName == name else {
            throw SimulationFailure(step: .openNewFile, reason: "the new file's BaseFileName '\(newInfo.baseFileName)' is not the Name CreateChildFile returned ('\(name)')")
        }
        report(.openNewFile, "'\(name)' opens for editing, \(newInfo.size) bytes")
        let newContent = options.replacementContent ?? ContentEdit.edited(content)
        let version = try await save(newFile, newContent, lock: lock, previous: newInfo, bootstrapUserID: access.bootstrapUserID)
        return SimulationResult(scenario: .create, steps: steps, versionBefore: newInfo.version, versionAfter: version,
                                savedContent: newContent, passback: nil)
    }

    // MARK: save-as

    /// PutRelativeFile with a suggested name and the edited content, then CheckFileInfo and GetFile
    /// on the new file's Url: its name and bytes must be what was saved.
    mutating func saveAs(_ access: Access) async throws(SimulationFailure) -> SimulationResult {
        let wopi = access.wopi
        let info = try await checkFileInfo(wopi, step: .checkFileInfo, bootstrapUserID: access.bootstrapUserID)
        report(.checkFileInfo, "'\(info.baseFileName)', \(info.size) bytes, Version \(info.version)")
        if info.userCanNotWriteRelative {
            return notApplicable("CheckFileInfo sets UserCanNotWriteRelative, so Office offers no Save As")
        }
        let content = try await getFile(wopi, info)
        let (stem, ext) = Self.split(info.baseFileName)
        let suggested = "\(stem) (saved as on iOS)\(ext)"
        let newContent = options.replacementContent ?? ContentEdit.edited(content)
        let response = try await send(wopi.putRelativeFile(suggestedName: suggested, content: newContent), .putRelativeFile)
        guard response.status == 200 else {
            throw SimulationFailure(step: .putRelativeFile, reason: "PutRelativeFile in suggested mode must answer 200", response: response)
        }
        let (name, newFile) = try namedPointer(response, .putRelativeFile, "PutRelativeFile")
        report(.putRelativeFile, "saved \(newContent.count) bytes, suggested '\(suggested)', got '\(name)'")

        let newInfo = try await checkFileInfo(newFile, step: .openNewFile, bootstrapUserID: access.bootstrapUserID)
        guard newInfo.baseFileName == name else {
            throw SimulationFailure(step: .openNewFile, reason: "the new file's BaseFileName '\(newInfo.baseFileName)' is not the Name PutRelativeFile returned ('\(name)')")
        }
        let got = try await send(newFile.getFile, .openNewFile)
        guard got.status == 200 else { throw SimulationFailure(step: .openNewFile, reason: "GetFile on the new file must answer 200", response: got) }
        guard got.body == newContent else {
            throw SimulationFailure(step: .openNewFile, reason: "the new file holds \(got.body.count) bytes, not the \(newContent.count) bytes Office saved", response: got)
        }
        report(.openNewFile, "'\(name)' opens with the \(newContent.count) bytes saved, Version \(newInfo.version)")
        return SimulationResult(scenario: .saveAs, steps: steps, versionBefore: info.version, versionAfter: newInfo.version,
                                savedContent: newContent, passback: nil)
    }

    // MARK: rename

    /// RenameFile while Office holds the lock; CheckFileInfo on the same WOPISrc shows the new name;
    /// then RenameFile back to the first name and Unlock, so the file is left as it was found.
    ///
    /// Whether the host offers renaming is read from CheckFileInfo before anything else is sent.
    mutating func rename(_ access: Access) async throws(SimulationFailure) -> SimulationResult {
        let wopi = access.wopi
        let first = try await checkFileInfo(wopi, step: .checkFileInfo, bootstrapUserID: access.bootstrapUserID)
        guard first.supportsRename, first.userCanRename else {
            report(.checkFileInfo, "'\(first.baseFileName)', SupportsRename \(first.supportsRename), UserCanRename \(first.userCanRename)")
            return notApplicable("CheckFileInfo does not set both SupportsRename and UserCanRename, so Office offers no Rename")
        }
        let (info, lock, _) = try await open(access, checked: first)
        let original = info.baseFileName
        let (stem, ext) = Self.split(original)
        let requested = "\(stem) renamed on iOS"
        let response = try await send(wopi.renameFile(to: requested, lock: lock), .renameFile)
        guard response.status == 200 else {
            throw SimulationFailure(step: .renameFile, reason: "RenameFile with the lock Office holds must answer 200", response: response)
        }
        guard let name = JSONValue.object(from: response.body)?["Name"]?.stringValue, !name.isEmpty else {
            pendingRename = (wopi, original, requested + ext, lock)
            throw SimulationFailure(step: .renameFile, reason: "RenameFile's answer must be a JSON object with the new Name (without extension)", response: response)
        }
        pendingRename = (wopi, original, name + ext, lock)
        report(.renameFile, "asked for '\(requested)', the host named it '\(name)'")
        let afterResponse = try await send(wopi.checkFileInfo, .checkFileInfoAfterRename)
        if afterResponse.status == 404 {
            throw SimulationFailure(step: .checkFileInfoAfterRename,
                                    reason: "the file's WOPISrc answers 404 since the rename: the host ties the file's id (or its token) to its name, "
                                        + "but Office keeps using the same WOPISrc after a rename (RenameFile.rst)", response: afterResponse)
        }
        let after = try checkedFileInfo(afterResponse, step: .checkFileInfoAfterRename, bootstrapUserID: access.bootstrapUserID)
        guard after.baseFileName == name + ext else {
            throw SimulationFailure(step: .checkFileInfoAfterRename,
                                    reason: "BaseFileName is '\(after.baseFileName)' after the rename; expected '\(name + ext)'")
        }
        report(.checkFileInfoAfterRename, "the same WOPISrc now shows '\(after.baseFileName)'")
        let back = try await send(wopi.renameFile(to: stem, lock: lock), .renameFileBack)
        guard back.status == 200 else {
            throw SimulationFailure(step: .renameFileBack, reason: "RenameFile back to '\(stem)' with the lock Office holds must answer 200", response: back)
        }
        pendingRename = nil
        report(.renameFileBack, "renamed back to '\(original)'")
        try await unlock(wopi, lock)
        return SimulationResult(scenario: .rename, steps: steps, versionBefore: info.version, versionAfter: after.version,
                                savedContent: nil, passback: nil)
    }

    // MARK: conflict

    /// Another device locks the file; Office's Lock and PutFile must get 409 with that lock, the
    /// content must not change, and Office shows the file as locked by another user.
    ///
    /// A file already locked by some other client is the real-world conflict: that lock plays the
    /// other device, and the simulator leaves it where it found it. On an unlocked file the
    /// simulator takes the other device's lock itself and releases it at the end.
    mutating func conflict(_ access: Access) async throws(SimulationFailure) -> SimulationResult {
        let wopi = access.wopi
        var other = "WOPIKit-simulator-other-device-" + UUID().uuidString
        let taken = try await send(wopi.lockOperation("LOCK", lock: other), .otherDeviceLock)
        let existing = taken.header("X-WOPI-Lock") ?? ""
        let foreign = taken.status == 409 && !existing.isEmpty
        if foreign {
            other = existing
            report(.otherDeviceLock, "the file is already locked by another client ('\(existing)'): that lock plays the other device and is left alone")
        } else {
            guard taken.status == 200 else {
                throw SimulationFailure(step: .otherDeviceLock,
                                        reason: taken.status == 404 ? Self.notFound("Lock")
                                            : "Lock must answer 200 on an unlocked file, or 409 with the current lock in X-WOPI-Lock on a locked one",
                                        response: taken)
            }
            heldLocks.append((wopi, other))
            report(.otherDeviceLock, "another device holds the lock '\(other)'")
        }

        let info = try await checkFileInfo(wopi, step: .checkFileInfo, bootstrapUserID: access.bootstrapUserID)
        report(.checkFileInfo, "'\(info.baseFileName)', \(info.size) bytes, Version \(info.version)")
        if info.supportsGetLock {
            let response = try await send(wopi.lockOperation("GET_LOCK"), .getLock)
            guard response.status == 200, response.header("X-WOPI-Lock") == other else {
                throw SimulationFailure(step: .getLock, reason: "GetLock must answer 200 with the other device's lock in X-WOPI-Lock", response: response)
            }
            report(.getLock, "locked by another device ('\(other)')")
        }
        let before = try await getFile(wopi, info)

        let mine = "WOPIKit-simulator-" + UUID().uuidString
        let lockAnswer = try await send(wopi.lockOperation("LOCK", lock: mine), .lockConflict)
        if lockAnswer.status == 200 { heldLocks.append((wopi, mine)) } // a faulty host gave Office the lock: release it afterwards
        try expectConflict(lockAnswer, holder: other, step: .lockConflict, operation: "Lock")
        report(.lockConflict, "409 with X-WOPI-Lock '\(other)': Office shows '\(info.baseFileName)' as locked by another user and opens it read-only")

        let putAnswer = try await send(wopi.putFile(ContentEdit.edited(before), lock: mine), .putFileConflict)
        try expectConflict(putAnswer, holder: other, step: .putFileConflict, operation: "PutFile")
        report(.putFileConflict, "409 with X-WOPI-Lock '\(other)': the write was refused")

        let after = try await checkFileInfo(wopi, step: .contentUntouched, bootstrapUserID: access.bootstrapUserID)
        let now = try await send(wopi.getFile, .contentUntouched)
        guard now.status == 200, now.body == before, after.version == info.version else {
            throw SimulationFailure(step: .contentUntouched,
                                    reason: "the refused write changed the file: Version \(info.version) → \(after.version), \(before.count) → \(now.body.count) bytes", response: now)
        }
        report(.contentUntouched, "Version \(after.version), the same \(before.count) bytes")

        if foreign {
            report(.otherDeviceUnlock, .skipped, "the lock '\(other)' is not the simulator's: left in place")
            return SimulationResult(scenario: .conflict, steps: steps, versionBefore: info.version, versionAfter: nil, savedContent: nil, passback: nil)
        }
        let released = try await send(wopi.lockOperation("UNLOCK", lock: other), .otherDeviceUnlock)
        guard released.status == 200 else {
            throw SimulationFailure(step: .otherDeviceUnlock, reason: "Unlock with the other device's lock must answer 200", response: released)
        }
        heldLocks.removeAll { $0.lock == other }
        report(.otherDeviceUnlock, "the other device released its lock")
        return SimulationResult(scenario: .conflict, steps: steps, versionBefore: info.version, versionAfter: nil, savedContent: nil, passback: nil)
    }

    /// A lock conflict as Lock.rst and PutFile.rst require it: 409 with the current lock in `X-WOPI-Lock`.
    func expectConflict(_ response: SimulatorResponse, holder: String, step: SimulationStep.Name, operation: String) throws(SimulationFailure) {
        guard response.status == 409 else {
            throw SimulationFailure(step: step, reason: "\(operation) with another lock than the one held must answer 409, so Office knows the file is locked", response: response)
        }
        guard response.header("X-WOPI-Lock") == holder else {
            throw SimulationFailure(step: step, reason: "the 409 must carry the current lock '\(holder)' in X-WOPI-Lock", response: response)
        }
    }

    // MARK: upload-pending

    /// PutFile whose connection drops halfway: the passback carries `|z|yes|`, the host must have
    /// kept nothing, the retried save succeeds and the final passback carries `|z|no|` (seed 000).
    mutating func uploadPending(_ access: Access) async throws(SimulationFailure) -> SimulationResult {
        let wopi = access.wopi
        let (info, lock, content) = try await open(access)
        let newContent = options.replacementContent ?? ContentEdit.edited(content)
        let half = newContent.count / 2
        let answer: SimulatorResponse?
        do {
            answer = try await simulator.transport.sendDroppingConnection(wopi.putFile(newContent, lock: lock), after: half)
        } catch {
            throw SimulationFailure(step: .interruptedPutFile, reason: "\(error)")
        }
        if let answer {
            throw SimulationFailure(step: .interruptedPutFile, reason: "the host answered before the body was complete; it must wait for all X-WOPI-Size/Content-Length bytes", response: answer)
        }
        report(.interruptedPutFile, "sent \(half) of \(newContent.count) bytes, then the connection dropped")
        _ = reportPassback(uploadPending: true, step: .pendingPassback)

        let after = try await checkFileInfo(wopi, step: .checkFileInfoAfterDrop, bootstrapUserID: access.bootstrapUserID)
        guard after.version == info.version, after.size == info.size else {
            throw SimulationFailure(step: .checkFileInfoAfterDrop,
                                    reason: "the host kept part of an upload that never finished: Version \(info.version) → \(after.version), Size \(info.size) → \(after.size)")
        }
        report(.checkFileInfoAfterDrop, "nothing kept: Version \(after.version), \(after.size) bytes")

        let version = try await save(wopi, newContent, lock: lock, previous: info, bootstrapUserID: access.bootstrapUserID)
        let passback = reportPassback(uploadPending: false)
        return SimulationResult(scenario: .uploadPending, steps: steps, versionBefore: info.version, versionAfter: version,
                                savedContent: newContent, passback: passback)
    }
}
