import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1
import WOPICore

/// The Files endpoint, `/wopi/files/<id>` (docs/rest/src/files/).
struct FilesController<Context: RequestContext>: Sendable {
    let backend: WOPIBackend

    func addRoutes(to group: RouterGroup<Context>) {
        group.get("files/:id", use: checkFileInfo)
        group.get("files/:id/contents", use: getFile)
        group.post("files/:id/contents", use: putFile)
        group.post("files/:id", use: override)
        group.get("files/:id/ancestry", use: enumerateAncestors)
        group.get("files/:id/ecosystem_pointer", use: getEcosystem)
        group.post("files/:id/activities", use: addActivities) // AddActivities.rst's own path
    }

    /// The file a request names, its caller and their role: one token check and one store read.
    func resolve(_ request: Request, _ context: Context) async throws -> AuthorizedFile {
        guard let id = ResourceID(context.parameters.get("id") ?? "") else { throw WOPIError.notFound("no such file id") }
        return try await backend.authorizeFile(request, id)
    }

    /// Refuses `operation` unless the caller's role on the file allows it (`AccessRules`).
    func permit(_ operation: String, _ access: AuthorizedFile) throws {
        try backend.permit(operation, role: access.role, containerRole: access.containerRole)
    }

    // MARK: GET

    @Sendable func checkFileInfo(_ request: Request, context: Context) async throws -> Response {
        let access = try await resolve(request, context)
        let (file, user, token) = (access.file, access.user, access.token)
        let permissions = AccessRules.filePermissions(role: access.role, containerRole: access.containerRole)
        var response = CheckFileInfoResponse(
            baseFileName: file.name, ownerId: file.ownerID.rawValue, size: file.size, userId: user.id.rawValue,
            version: file.versionString, fileExtension: file.fileExtension, lastModifiedTime: file.modifiedAt.wopiTimestamp,
            SHA256: file.sha256, fileUrl: "\(backend.wopiSrc(.file(file.id)))/contents?access_token=\(token)",
            userFriendlyName: user.displayName, userInfo: user.userInfo,
            isEduUser: ContainerInfo.isEduUser, licenseCheckForEditIsEnabled: ContainerInfo.licenseCheckForEditIsEnabled,
            userCanWrite: permissions.userCanWrite, userCanRename: permissions.userCanRename,
            userCanNotWriteRelative: permissions.userCanNotWriteRelative, readOnly: permissions.readOnly,
            supportedShareUrlTypes: AccessRules.shareURLTypes(for: access.role),
            breadcrumbBrandName: backend.configuration.brandName, breadcrumbFolderName: access.containerName)
        if backend.configuration.webClients != nil {
            response.addBrowserEditorFields(file: file, role: access.role, backend: backend)
            response.templateSource = try await backend.templateSource(of: file, for: user.id, notAfter: access.claims.expiresAt)
        }
        return try WOPIJSON.response(response)
    }

    @Sendable func getFile(_ request: Request, context: Context) async throws -> Response {
        let file = try await resolve(request, context).file
        if let limit = try request.headers.single(.wopiMaxExpectedSize) {
            guard let maximum = Int64(limit), maximum >= 0 else { throw WOPIError.badRequest("X-WOPI-MaxExpectedSize is not a number") }
            guard file.size <= maximum else {
                throw WOPIError(.preconditionFailed, "file is \(file.size) bytes, more than X-WOPI-MaxExpectedSize \(maximum)")
            }
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        headers[.wopiItemVersion] = file.versionString
        return Response(status: .ok, headers: headers, body: try await backend.responseBody(of: file, logger: context.logger))
    }

    @Sendable func enumerateAncestors(_ request: Request, context: Context) async throws -> Response {
        let access = try await resolve(request, context)
        let (file, claims) = (access.file, access.claims)
        let path = try await backend.path(to: file.containerID, for: access.user)
        return try WOPIJSON.response(["AncestorsWithRootFirst": path.map { NamedURL(name: $0.name, url: backend.url(.container($0.id), for: claims)) }])
    }

    @Sendable func getEcosystem(_ request: Request, context: Context) async throws -> Response {
        let claims = try await resolve(request, context).claims
        return try WOPIJSON.response(["Url": backend.url(.ecosystem, for: claims)])
    }

    // MARK: PutFile

    @Sendable func putFile(_ request: Request, context: Context) async throws -> Response {
        let access = try await resolve(request, context)
        let (file, user) = (access.file, access.user)
        guard try request.headers.single(.wopiOverride) == "PUT" else { throw WOPIError.badRequest("PutFile needs X-WOPI-Override: PUT") }
        try permit("PutFile", access)
        let lock = try lockHeader(request, required: false)
        let now = backend.configuration.now()
        // Refuse before reading the body: a write without the lock must not cost an upload.
        if case .conflict(let current, let reason) = LockRules.evaluate(.putFile(lock, currentSize: file.size), current: file.lock, now: now) {
            backend.lockRefused(file.id, operation: "PutFile", currentLock: current)
            throw WOPIError.lockConflict(currentLock: current, reason: reason)
        }
        // Collabora Online's guard against overwriting a change made elsewhere (SaveTimestampRule).
        let seen = try request.headers.single(.coolTimestamp) ?? request.headers.single(.loolTimestamp)
        // Checked here so a stale save costs no upload, and again where the save is recorded.
        if SaveTimestampRule.evaluate(header: seen, storedModifiedTime: file.modifiedAt) == .documentChanged {
            return try Self.documentChanged()
        }
        let kinds = SaveKinds.from(isModifiedByUser: try request.headers.single(.coolIsModifiedByUser) ?? request.headers.single(.loolIsModifiedByUser),
                                   isAutosave: try request.headers.single(.coolIsAutosave) ?? request.headers.single(.loolIsAutosave),
                                   isExitSave: try request.headers.single(.coolIsExitSave) ?? request.headers.single(.loolIsExitSave))
        let maximum = backend.configuration.maximumFileSize
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > maximum {
            throw WOPIError(.contentTooLarge, "body of \(length) bytes exceeds the maximum file size of \(maximum) bytes")
        }
        let blob = try await storeBody(request.body)
        do {
            // The lock is checked again in the same transaction that records the write: it may have changed during the upload.
            // The replaced body is kept as a version; only bodies dropped from the history are retired.
            let change = try await mapLockErrors(file.id, "PutFile") {
                try await backend.store.saveContent(file.id, with: blob, lock: lock, savedBy: user.id, saveKinds: kinds, seenModifiedTime: seen,
                                                    keepVersions: backend.configuration.keepVersions, now: backend.configuration.now())
            }
            change.droppedBlobs.forEach(backend.retire)
            backend.configuration.monitor.metrics?.recordPutFileBytes(blob.size)
            backend.audit(.fileSaved, file: file.id, details: ["old_version": change.previous.versionString, "new_version": change.file.versionString,
                                                                "size": String(blob.size)])
            let updated = change.file
            var headers = HTTPFields()
            headers[.wopiItemVersion] = updated.versionString
            // Collabora Online compares this with the next save's X-COOL-WOPI-Timestamp (wsd/reference.md).
            return try WOPIJSON.response(["LastModifiedTime": updated.modifiedAt.wopiTimestamp], headers: headers)
        } catch WOPIStoreError.changedInStorage {
            try? await backend.blobs.delete(blob.key)
            return try Self.documentChanged()
        } catch {
            try? await backend.blobs.delete(blob.key)
            throw error
        }
    }

    /// Collabora Online's answer to a save based on an outdated modification time: 409, `{"COOLStatusCode":1010}`,
    /// with the same code under `LOOLStatusCode`, the name releases before the rename to COOL read (wsd/reference.md).
    static func documentChanged() throws -> Response {
        let code = SaveTimestampRule.documentChangedStatusCode
        return try WOPIJSON.response(["COOLStatusCode": code, "LOOLStatusCode": code], status: .conflict)
    }

    /// Streams a request body into the blob store, mapping size overflows to 413.
    func storeBody(_ body: RequestBody) async throws -> StoredBlob {
        let maximum = backend.configuration.maximumFileSize
        do {
            return try await backend.blobs.write(body, maximumSize: maximum)
        } catch BlobStoreError.tooLarge {
            throw WOPIError(.contentTooLarge, "body exceeds the maximum file size of \(maximum) bytes")
        } catch let error as HTTPParserError {
            throw WOPIError.badRequest("malformed request body: \(error)")
        }
    }

    // MARK: POST overrides

    @Sendable func override(_ request: Request, context: Context) async throws -> Response {
        let access = try await resolve(request, context)
        let (file, user, claims) = (access.file, access.user, access.claims)
        guard let operation = try request.headers.single(.wopiOverride) else { throw WOPIError.badRequest("missing X-WOPI-Override") }
        let hasOldLock = try request.headers.single(.wopiOldLock) != nil
        do {
            try permit(WOPIOperation(method: "POST", path: "/wopi/files/\(file.id)", override: operation, hasOldLock: hasOldLock).name, access)
        } catch {
            // A lock request the current lock refuses anyway gets that refusal, 409 with the lock, which a viewer
            // may read with GetLock too: Office probes with RefreshLock and a made-up lock even to view a file.
            // It is decided without the store, so nothing can change for a viewer.
            if let lockRequest = try? self.lockRequest(operation, request),
               case .conflict(let current, let reason) = LockRules.evaluate(lockRequest, current: file.lock, now: backend.configuration.now()) {
                throw WOPIError.lockConflict(currentLock: current, reason: reason)
            }
            throw error
        }
        if let lockRequest = try lockRequest(operation, request) { return try await changeLock(file, lockRequest) }
        switch operation {
        case "GET_LOCK":
            let current = file.activeLock(at: backend.configuration.now())?.value ?? ""
            var headers = HTTPFields()
            headers[.wopiLock] = current
            headers[.wopiItemVersion] = file.versionString
            return Response(status: .ok, headers: headers)
        case "PUT_RELATIVE": return try await putRelativeFile(file, claims, request)
        case "RENAME_FILE": return try await renameFile(file, request)
        case "DELETE":
            // To the owner's trash: gone for WOPI (404 from now on), restorable with `wopi trash restore`.
            _ = try await mapLockErrors(file.id, "DeleteFile") { try await backend.store.trashFile(file.id, lock: nil, now: backend.configuration.now()) }
            backend.audit(.fileDeleted, file: file.id, details: ["version": file.versionString, "via": "wopi"])
            return Response(status: .ok)
        case "PUT_USER_INFO":
            var body = request
            let buffer = try await body.collectBody(upTo: 64 * 1024)
            guard buffer.readableBytes <= 1024 * 64, let info = buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes) else {
                throw WOPIError.badRequest("UserInfo must be UTF-8 text of at most 64 KiB")
            }
            try await backend.store.setUserInfo(info, for: user.id)
            return Response(status: .ok)
        case "GET_SHARE_URL":
            return try shareURL(request, claims: claims, role: access.role, item: file.id, isContainer: false)
        case "ADD_ACTIVITIES":
            return try await addActivities(file, user, request)
        default:
            throw WOPIError.notImplemented("unknown X-WOPI-Override '\(operation.prefix(64))'")
        }
    }

    private func changeLock(_ file: FileRecord, _ lockRequest: LockRules.Request) async throws -> Response {
        let (decision, updated) = try await backend.store.updateLock(file, request: lockRequest, now: backend.configuration.now())
        switch (decision, lockRequest) {
        case (.granted, .lock(let lock)), (.granted, .unlockAndRelock(_, let lock)):
            backend.audit(.lockTaken, file: file.id, details: ["lock": lock.value])
        case (.granted, .unlock(let lock)):
            backend.audit(.lockReleased, file: file.id, details: ["lock": lock.value])
        case (.conflict(let current, _), _):
            let operation = switch lockRequest {
            case .lock: "Lock"
            case .refresh: "RefreshLock"
            case .unlock: "Unlock"
            case .unlockAndRelock: "UnlockAndRelock"
            case .putFile: "PutFile"
            case .modify: "Modify"
            }
            backend.lockRefused(file.id, operation: operation, currentLock: current)
        default: break
        }
        switch decision {
        case .granted:
            var headers = HTTPFields()
            headers[.wopiItemVersion] = updated.versionString
            // Collabora Online compares this with the next save's X-COOL-WOPI-Timestamp (wsd/reference.md).
            return try WOPIJSON.response(["LastModifiedTime": updated.modifiedAt.wopiTimestamp], headers: headers)
        case .conflict(let current, let reason):
            throw WOPIError.lockConflict(currentLock: current, reason: reason)
        }
    }

    /// The lock request an override asks for (Lock, UnlockAndRelock when `X-WOPI-OldLock` is present, RefreshLock,
    /// Unlock), `nil` when it is not a lock operation; 400 for a missing or invalid lock header.
    private func lockRequest(_ operation: String, _ request: Request) throws -> LockRules.Request? {
        switch operation {
        case "LOCK":
            let new = try lockHeader(request)
            guard let oldValue = try request.headers.single(.wopiOldLock) else { return .lock(new) }
            guard let old = WOPILock(oldValue) else { throw WOPIError.badRequest("X-WOPI-OldLock must be 1 to 1024 ASCII characters") }
            return .unlockAndRelock(old: old, new: new)
        case "REFRESH_LOCK": return .refresh(try lockHeader(request))
        case "UNLOCK": return .unlock(try lockHeader(request))
        default: return nil
        }
    }

    /// `X-WOPI-Lock`, validated: 400 when missing (if required) or not a valid WOPI lock.
    /// An empty value counts as absent: .NET clients send a null header that way.
    private func lockHeader(_ request: Request, required: Bool = true) throws -> WOPILock? {
        guard let value = try request.headers.single(.wopiLock), !value.isEmpty else {
            if required { throw WOPIError.badRequest("missing X-WOPI-Lock") }
            return nil
        }
        guard let lock = WOPILock(value) else { throw WOPIError.badRequest("X-WOPI-Lock must be 1 to 1024 ASCII characters") }
        return lock
    }

    private func lockHeader(_ request: Request) throws -> WOPILock {
        try lockHeader(request, required: true)!
    }

    // MARK: PutRelativeFile

    private func putRelativeFile(_ file: FileRecord, _ claims: AccessTokenClaims, _ request: Request) async throws -> Response {
        let target = try RequestedTarget(request, operation: "PutRelativeFile")
        let (name, overwrite) = try await fileName(for: target, overwrite: request, in: file.containerID,
                                                   stemForExtension: WOPIBackend.split(file.name).stem)
        let created = try await createFile(named: name, in: file.containerID, body: request.body, replacing: overwrite,
                                           retryWithNewName: target.isSuggested)
        var response = NewFileResponse(name: created.name, url: backend.url(.file(created.id), for: claims))
        if backend.configuration.webClients != nil {
            response.hostViewUrl = backend.hostPageURL(created.id, action: .view)
            response.hostEditUrl = backend.hostPageURL(created.id, action: .edit)
        }
        return try WOPIJSON.response(response)
    }

    /// The name a new file gets in `containerID`, and whether it replaces an existing file.
    ///
    /// Suggested mode never fails: the name is completed (an extension alone takes `stemForExtension`) and
    /// sanitized; the file takes the first free variant of it when it is created. Specific mode is checked before any body is read: 400 for an illegal
    /// name, 409 with `X-WOPI-ValidRelativeTarget` when it is taken and `X-WOPI-OverwriteRelativeTarget`
    /// is not `true`, 409 with the current lock when the file to overwrite is locked.
    func fileName(for target: RequestedTarget, overwrite request: Request, in containerID: ResourceID,
                  stemForExtension: String) async throws -> (name: String, overwrite: Bool) {
        switch target {
        case .suggested(var proposed):
            proposed = proposed.trimmingCharacters(in: .whitespaces)
            if proposed.hasPrefix(".") { proposed = stemForExtension + proposed }
            // The free variant of the name is found as the file is created (``WOPIBackend/createFile(namedLike:in:blob:)``).
            return (NameRules.sanitizedFileName(proposed), false)
        case .exact(let name):
            if let problem = NameRules.fileNameProblem(name) {
                var headers = HTTPFields()
                headers[.wopiInvalidFileNameError] = problem.description
                headers[.wopiValidRelativeTarget] = UTF7.encode(try await backend.unusedFileName(like: NameRules.sanitizedFileName(name),
                                                                                                 in: containerID))
                throw WOPIError(.badRequest, problem.description, headers: headers)
            }
            let overwrite = try request.headers.single(.wopiOverwriteRelativeTarget)?.lowercased() == "true"
            if let existing = try await backend.store.file(named: name, in: containerID) {
                guard overwrite else {
                    var headers = HTTPFields()
                    headers[.wopiValidRelativeTarget] = UTF7.encode(try await backend.unusedFileName(like: name, in: containerID))
                    throw WOPIError(.conflict, "a file named '\(name)' already exists", headers: headers)
                }
                if let held = existing.activeLock(at: backend.configuration.now()) {
                    throw WOPIError.lockConflict(currentLock: held.value, reason: "the target file is locked")
                }
            }
            return (name, overwrite)
        }
    }

    /// Stores a body and records it as a new file; in suggested mode a name taken meanwhile gets a new suffix.
    func createFile(named name: String, in containerID: ResourceID, body: RequestBody, replacing: Bool,
                    retryWithNewName: Bool) async throws -> FileRecord {
        let blob = try await storeBody(body)
        do {
            if retryWithNewName { return try await backend.createFile(namedLike: name, in: containerID, blob: blob) }
            let (created, replaced) = try await backend.store.createFile(named: name, in: containerID, blob: blob,
                                                                        replacing: replacing, now: backend.configuration.now())
            if let replaced { backend.retire(replaced) }
            return created
        } catch {
            try? await backend.blobs.delete(blob.key)
            throw (error as? WOPIStoreError).map(WOPIError.init) ?? error
        }
    }

    // MARK: RenameFile

    private func renameFile(_ file: FileRecord, _ request: Request) async throws -> Response {
        guard let header = try request.headers.single(.wopiRequestedName) else { throw WOPIError.badRequest("missing X-WOPI-RequestedName") }
        let lock = try lockHeader(request, required: false)
        let stem = try NameRules.decodeHeader(header)
        let ext = WOPIBackend.split(file.name).ext
        if let problem = NameRules.problem(withStem: stem, ext: ext) {
            var headers = HTTPFields()
            headers[.wopiInvalidFileNameError] = problem.description
            throw WOPIError(.badRequest, problem.description, headers: headers)
        }
        // RenameFile.rst: when the name is taken, the host should pick a similar free one.
        var target = stem + ext
        if let existing = try await backend.store.file(named: target, in: file.containerID), existing.id != file.id {
            target = try await backend.unusedFileName(like: target, in: file.containerID)
        }
        let renamed = try await mapLockErrors(file.id, "RenameFile") {
            try await backend.store.renameFile(file.id, to: target, lock: lock, now: backend.configuration.now())
        }
        backend.audit(.fileRenamed, file: file.id, details: ["old_name": file.name, "new_name": renamed.name])
        return try WOPIJSON.response(["Name": WOPIBackend.split(renamed.name).stem])
    }

    /// GetShareUrl for files and containers: a signed, expiring link to the item's share page, `ReadOnly` or
    /// `ReadWrite` (a signed-in user who opens it may add the item to their "Shared with me" as an editor).
    /// The link expires with the access token that asked for it, at the latest: a short-lived token
    /// must not mint a longer-lived capability; and nobody mints a link granting more than their own role.
    func shareURL(_ request: Request, claims: AccessTokenClaims, role: AccessRole, item id: ResourceID, isContainer: Bool) throws -> Response {
        guard let type = try request.headers.single(.wopiUrlType).flatMap(ShareURLType.init(rawValue:)) else {
            throw WOPIError.notImplemented("unsupported X-WOPI-UrlType; supported: ReadOnly, ReadWrite")
        }
        guard AccessRules.shareURLTypes(for: role).contains(type.rawValue) else {
            throw WOPIError.notFound("the \(role) of this item may not make a \(type.rawValue) link")
        }
        let link = backend.shareLink(user: claims.userID, item: id, isContainer: isContainer, readWrite: type == .readWrite, notAfter: claims.expiresAt)
        backend.audit(.shareLinkCreated, file: id, details: ["kind": isContainer ? "container" : "file", "type": type.rawValue])
        return try WOPIJSON.response(["ShareUrl": link])
    }

    /// Like ``mapStoreErrors(_:)``, counting and auditing a lock refusal.
    private func mapLockErrors<T>(_ file: ResourceID, _ operation: String, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as WOPIStoreError {
            if case .lockConflict(let current, _) = error { backend.lockRefused(file, operation: operation, currentLock: current) }
            throw WOPIError(error)
        }
    }
}

/// Runs a store call and maps ``WOPIStoreError`` to its protocol status.
package func mapStoreErrors<T>(_ body: () async throws -> T) async throws -> T {
    do { return try await body() } catch let error as WOPIStoreError { throw WOPIError(error) }
}
