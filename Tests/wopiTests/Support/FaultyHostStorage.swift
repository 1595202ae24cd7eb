import Foundation

/// The files, folders and locks of ``FaultyWOPIHost``, and its WOPI operations as the REST docs
/// describe them — except where a planted ``HostFault`` says otherwise.
actor FaultyHostStorage {
    /// One request, as the routes hand it over.
    struct Call: Sendable {
        var method: String
        /// `files` or `containers`.
        var kind: String
        var id: String
        /// `contents`, `ancestry`, `children`, `ecosystem_pointer`, or `nil` for the resource itself.
        var operation: String?
        /// By canonical (lower-case) name.
        var headers: [String: String]
        var body: Data

        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// One answer.
    struct Reply: Sendable {
        var status: Int
        var headers: [(String, String)] = []
        var body = Data()
    }

    struct File {
        var name: String
        var folder: String
        var bytes: Data
        var revision = 1
        var lock: String?
        var modified = Date()
        /// PutFiles started since the lock was taken, for ``HostFault/putFileStaleTimestamp``.
        var uploadsUnderLock = 0
        /// Made by PutRelativeFile, for ``FaultyWOPIHost/Options/holdsDownloadsOfCreatedFiles``.
        var created = false
    }

    struct Folder {
        var name: String
        var parent: String?
    }

    let faults: Set<HostFault>
    let options: FaultyWOPIHost.Options
    private(set) var files: [String: File]
    /// The names of the files DeleteFile removed, in order.
    private(set) var deleted: [String] = []
    private var folders: [String: Folder] = ["root": Folder(name: "Stand-in root", parent: nil), "docs": Folder(name: "Documents", parent: "root")]
    private var nextID = 1
    private var base = URL(fileURLWithPath: "/")
    private var held: [CheckedContinuation<Void, Never>] = []
    private var releasing = false

    init(faults: Set<HostFault>, options: FaultyWOPIHost.Options) {
        self.faults = faults
        self.options = options
        files = ["F1": File(name: FaultyWOPIHost.fileName, folder: "docs", bytes: Data(repeating: 0x50, count: 32 * 1024))]
        if options.contains(.validatorTestFile) {
            files["F2"] = File(name: FaultyWOPIHost.validatorTestFileName, folder: "docs", bytes: Data())
        }
    }

    func setBase(_ url: URL) { base = url }

    /// Every file's name, sorted.
    var names: [String] { files.values.map(\.name).sorted() }

    /// How many GetFile requests wait in ``holdIfCreated(_:)``.
    var heldCount: Int { held.count }

    /// Waits until ``releaseHeld()`` when `id` was made by PutRelativeFile and the options ask for it.
    func holdIfCreated(_ id: String) async {
        guard options.contains(.holdsDownloadsOfCreatedFiles), !releasing, files[id]?.created == true else { return }
        await withCheckedContinuation { held.append($0) }
    }

    /// Lets every held GetFile go, and any later one pass.
    func releaseHeld() {
        releasing = true
        for continuation in held { continuation.resume() }
        held = []
    }

    /// The file now named `name`, if any.
    func file(named name: String) -> File? { files.values.first { $0.name == name } }

    /// Another client's lock on a file, taken behind the tests' back.
    func lockAsAnotherClient(_ id: String, _ lock: String) { files[id]?.lock = lock }

    // MARK: Dispatch

    func refuseToken(_ call: Call) -> Reply {
        if faults.contains(.invalidTokenAnswers500), call.kind == "files", call.operation == nil, call.method == "GET" {
            return Reply(status: 500, body: Data("token lookup failed".utf8))
        }
        return Reply(status: 401)
    }

    func handle(_ call: Call) -> Reply {
        if faults.contains(.noContainers), call.kind == "containers" || call.operation == "ancestry" { return Reply(status: 501) }
        switch (call.kind, call.method, call.operation) {
        case ("files", "GET", nil): return checkFileInfo(call.id)
        case ("files", "GET", "contents"): return getFile(call)
        case ("files", "POST", "contents"): return putFile(call)
        case ("files", "GET", "ancestry"): return ancestry(ofFile: call.id)
        case ("files", "POST", nil): return fileOperation(call)
        case ("containers", "GET", nil): return checkContainerInfo(call.id)
        case ("containers", "GET", "children"): return children(call)
        case ("containers", "GET", "ancestry"): return ancestry(ofFolder: call.id)
        case ("containers", "GET", "ecosystem_pointer"):
            guard folders[call.id] != nil else { return Reply(status: 404) }
            return json(["Url": "\(base.absoluteString)/wopi/ecosystem?access_token=\(FaultyWOPIHost.token)"])
        case ("containers", "POST", nil): return folderOperation(call)
        default: return Reply(status: 501)
        }
    }

    private func fileOperation(_ call: Call) -> Reply {
        let lock = call.header("X-WOPI-Lock")
        switch call.header("X-WOPI-Override") ?? "" {
        case "LOCK" where call.header("X-WOPI-OldLock") != nil: return unlockAndRelock(call.id, old: call.header("X-WOPI-OldLock") ?? "", new: lock ?? "")
        case "LOCK": return self.lock(call.id, lock ?? "")
        case "GET_LOCK": return getLock(call.id)
        case "REFRESH_LOCK": return refreshLock(call.id, lock ?? "")
        case "UNLOCK": return unlock(call.id, lock ?? "")
        case "PUT_RELATIVE" where !faults.contains(.putRelativeNotImplemented): return putRelativeFile(call)
        case "RENAME_FILE" where !faults.contains(.renameNotImplemented) && !faults.contains(.renameNotOffered): return renameFile(call.id, stem: Self.utf7Decoded(call.header("X-WOPI-RequestedName") ?? ""), lock: lock)
        case "DELETE": return deleteFile(call.id)
        default: return Reply(status: 501)
        }
    }

    private func folderOperation(_ call: Call) -> Reply {
        switch call.header("X-WOPI-Override") ?? "" {
        case "CREATE_CHILD_FILE": return createChildFile(call)
        case "CREATE_CHILD_CONTAINER": return createChildContainer(call)
        case "DELETE_CONTAINER":
            guard folders[call.id] != nil, call.id != "root", call.id != "docs" else { return Reply(status: call.id == "root" ? 409 : 404) }
            folders[call.id] = nil
            files = files.filter { $0.value.folder != call.id }
            return Reply(status: 200)
        default: return Reply(status: 501)
        }
    }

    // MARK: CheckFileInfo and contents

    private func checkFileInfo(_ id: String) -> Reply {
        guard let file = files[id] else { return Reply(status: 404) }
        var info: [String: Any] = [
            "BaseFileName": file.name, "OwnerId": FaultyWOPIHost.userID, "UserId": FaultyWOPIHost.userID, "Size": file.bytes.count,
            "Version": version(file), "LastModifiedTime": lastModifiedTime(file), "IsEduUser": false, "LicenseCheckForEditIsEnabled": false,
            "UserCanWrite": true, "SupportsLocks": true, "SupportsGetLock": true, "SupportsUpdate": true, "SupportsRename": true,
            "UserCanRename": true, "SupportsDeleteFile": true, "SupportsContainers": true, "UserCanNotWriteRelative": false,
            "UserFriendlyName": "Corpus user", "BreadcrumbBrandName": "Stand-in Drive",
            // What browser editors need: the host page's origin and its URLs.
            "PostMessageOrigin": origin, "HostViewUrl": "\(base.absoluteString)/open/\(id)?action=view",
            "HostEditUrl": "\(base.absoluteString)/open/\(id)?action=edit",
        ]
        for fault in faults {
            switch fault {
            case .missingOwnerId: info["OwnerId"] = nil
            case .missingIsEduUser: info["IsEduUser"] = nil
            case .isEduUserAsString: info["IsEduUser"] = "no"
            case .colonInUserId: info["UserId"] = "corpus:user"
            case .wrongSize: info["Size"] = file.bytes.count + 1
            case .missingPostMessageOrigin, .collaboraWithoutPostMessageOrigin: info["PostMessageOrigin"] = nil
            case .supportsUpdateFalse: info["SupportsUpdate"] = false
            case .userCanWriteFalse: info["UserCanWrite"] = false
            case .nullProperty: info["BreadcrumbBrandName"] = NSNull()
            case .noContainers: info["SupportsContainers"] = nil
            case .putRelativeNotImplemented: info["UserCanNotWriteRelative"] = true
            case .renameNotOffered: info["SupportsRename"] = false
            default: break
            }
        }
        return json(info)
    }

    private func getFile(_ call: Call) -> Reply {
        guard let file = files[call.id] else { return Reply(status: 404) }
        if let limit = call.header("X-WOPI-MaxExpectedSize").flatMap(Int.init), file.bytes.count > limit { return Reply(status: 412) }
        let body = faults.contains(.getFileBodyShorterThanSize) ? file.bytes.dropLast() : file.bytes
        return Reply(status: 200, headers: itemVersion(file) + [("Content-Type", "application/octet-stream")], body: Data(body))
    }

    private func putFile(_ call: Call) -> Reply {
        guard var file = files[call.id] else { return Reply(status: 404) }
        let lock = call.header("X-WOPI-Lock").flatMap { $0.isEmpty ? nil : $0 }
        if let current = file.lock {
            guard lock == current || faults.contains(.putWithWrongLockAnswers200) else { return mismatch(current: current, sent: lock) }
            if faults.contains(.putFileStaleTimestamp), file.uploadsUnderLock > 1 {
                return Reply(status: 409, headers: [("X-WOPI-Lock", current)], body: Data("the file changed since it was locked (stale timestamp)".utf8))
            }
        } else if !file.bytes.isEmpty, !faults.contains(.putWithoutLockOnNonEmptyFile) {
            return mismatch(current: nil, sent: lock)
        }
        if faults.contains(.putFileRefusedWithExternalLock) {
            return Reply(status: 409, headers: [("X-WOPI-Lock", "External")], body: Data("file is locked by an external app".utf8))
        }
        // Collabora Online's guard: a save based on another LastModifiedTime than the file's, compared
        // as the opaque string the host gave, is refused with 1010.
        if let seen = call.header("X-COOL-WOPI-Timestamp") ?? call.header("X-LOOL-WOPI-Timestamp"), !faults.contains(.collaboraTimestampIgnored),
           seen != lastModifiedTime(file) {
            return Reply(status: 409, headers: [("Content-Type", "application/json")], body: Data(#"{"COOLStatusCode":1010}"#.utf8))
        }
        file.bytes = call.body
        if !faults.contains(.putFileKeepsVersion) {
            file.revision += 1
            file.modified = Date()
        }
        files[call.id] = file
        guard !faults.contains(.putFileWithoutLastModifiedTime) else { return Reply(status: 200, headers: itemVersion(file)) }
        var reply = json(["LastModifiedTime": lastModifiedTime(file)])
        reply.headers += itemVersion(file)
        return reply
    }

    /// The origin of the stand-in's own pages, for PostMessageOrigin.
    private var origin: String {
        "\(base.scheme ?? "http")://\(base.host ?? "127.0.0.1")\(base.port.map { ":\($0)" } ?? "")"
    }

    /// The file's LastModifiedTime as this host writes it: ISO 8601 UTC, or with a planted fault the
    /// `2026-11-25 13:54:07.000` of cs3org/wopiserver.
    private func lastModifiedTime(_ file: File) -> String {
        guard faults.contains(.lastModifiedTimeNotUTC) || faults.contains(.collaboraOpaqueTimestamp) else { return Self.iso8601(file.modified) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        return formatter.string(from: file.modified)
    }

    /// A PutFile's head has arrived. ``HostFault/keepsTruncatedUpload`` empties the file and writes
    /// the body into it as it comes; ``HostFault/putFileStaleTimestamp`` notes that the file was touched.
    func uploadStarted(_ id: String) {
        guard var file = files[id] else { return }
        if faults.contains(.keepsTruncatedUpload) {
            file.bytes = Data()
            file.revision += 1
        }
        if faults.contains(.putFileStaleTimestamp), file.lock != nil { file.uploadsUnderLock += 1 }
        files[id] = file
    }

    /// Part of a PutFile's body, for ``HostFault/keepsTruncatedUpload``.
    func uploadChunk(_ id: String, _ bytes: Data) {
        guard faults.contains(.keepsTruncatedUpload) else { return }
        files[id]?.bytes.append(bytes)
    }

    // MARK: Locks

    private func lock(_ id: String, _ lock: String) -> Reply {
        guard var file = files[id] else { return Reply(status: 404) }
        guard !lock.isEmpty else { return Reply(status: 400) }
        if let current = file.lock, !matches(current, lock) { return mismatch(current: current, sent: lock) }
        if file.lock == nil { file.uploadsUnderLock = 0 }
        file.lock = stored(lock)
        files[id] = file
        return Reply(status: 200, headers: itemVersion(file))
    }

    private func unlockAndRelock(_ id: String, old: String, new: String) -> Reply {
        guard var file = files[id] else { return Reply(status: 404) }
        guard let current = file.lock, matches(current, old) else { return mismatch(current: file.lock, sent: old) }
        file.lock = stored(new)
        files[id] = file
        return Reply(status: 200, headers: itemVersion(file))
    }

    private func getLock(_ id: String) -> Reply {
        guard let file = files[id] else { return Reply(status: 404) }
        if faults.contains(.getLock404WhenUnlocked), file.lock == nil { return Reply(status: 404, body: Data("no lock".utf8)) }
        if faults.contains(.getLockEmptyWhenLocked) { return Reply(status: 200, headers: [("X-WOPI-Lock", "")]) }
        return Reply(status: 200, headers: [("X-WOPI-Lock", file.lock ?? "")])
    }

    private func refreshLock(_ id: String, _ lock: String) -> Reply {
        guard let file = files[id] else { return Reply(status: 404) }
        if faults.contains(.refreshAnyLockAnswers200) { return Reply(status: 200, headers: itemVersion(file)) }
        guard let current = file.lock, matches(current, lock) else { return mismatch(current: file.lock, sent: lock) }
        return Reply(status: 200, headers: itemVersion(file))
    }

    private func unlock(_ id: String, _ lock: String) -> Reply {
        guard var file = files[id] else { return Reply(status: 404) }
        guard let current = file.lock, matches(current, lock) || faults.contains(.unlockMismatchAnswers200) else {
            return mismatch(current: file.lock, sent: lock)
        }
        file.lock = nil
        files[id] = file
        return Reply(status: 200, headers: itemVersion(file))
    }

    /// The 409 Lock.rst asks for, with the current lock ("" when unlocked) — or the planted fault's version of it.
    private func mismatch(current: String?, sent: String?) -> Reply {
        let status = faults.contains(.locked423Not409) ? 423 : 409
        if faults.contains(.wrongLockOnConflict) { return Reply(status: status, headers: [("X-WOPI-Lock", sent ?? "")]) }
        if faults.contains(.lockHeaderMissingWhenUnlocked), current == nil { return Reply(status: status) }
        return Reply(status: status, headers: [("X-WOPI-Lock", current ?? "")])
    }

    private func stored(_ lock: String) -> String { faults.contains(.lockTruncatedTo255) ? String(lock.prefix(255)) : lock }
    private func matches(_ current: String, _ sent: String) -> Bool { current == sent }

    // MARK: New files, rename, delete

    private func putRelativeFile(_ call: Call) -> Reply {
        guard let source = files[call.id] else { return Reply(status: 404) }
        let reply = newFile(in: source.folder, call: call, content: call.body, sourceName: source.name, conflictingHeaders: 400)
        if faults.contains(.putRelativeCreatesAndAnswers500), reply.status == 200 {
            return Reply(status: 500, body: Data("internal error while creating the file".utf8))
        }
        return reply
    }

    private func createChildFile(_ call: Call) -> Reply {
        guard folders[call.id] != nil else { return Reply(status: 404) }
        return newFile(in: call.id, call: call, content: Data(), sourceName: nil, conflictingHeaders: 501)
    }

    /// PutRelativeFile.rst and CreateChildFile.rst: suggested mode picks a free name (an extension alone
    /// keeps the source's stem); relative mode takes the exact name, or answers 409 unless overwriting is
    /// asked for and the existing file is not locked.
    private func newFile(in folder: String, call: Call, content: Data, sourceName: String?, conflictingHeaders: Int) -> Reply {
        let suggested = call.header("X-WOPI-SuggestedTarget").map(Self.utf7Decoded)
        let relative = call.header("X-WOPI-RelativeTarget").map(Self.utf7Decoded)
        var name: String
        switch (suggested, relative) {
        case (let suggested?, nil):
            name = suggested
            if name.hasPrefix("."), let sourceName { name = Self.split(sourceName).stem + name }
            name = freeName(name, in: folder)
        case (nil, let relative?):
            name = relative
            if let existing = files.first(where: { $0.value.folder == folder && $0.value.name == relative }) {
                let overwrite = call.header("X-WOPI-OverwriteRelativeTarget")?.lowercased() == "true"
                if let current = existing.value.lock { return Reply(status: 409, headers: [("X-WOPI-Lock", current)]) }
                guard overwrite else { return Reply(status: 409, headers: [("X-WOPI-ValidRelativeTarget", freeName(relative, in: folder))]) }
                files[existing.key] = nil
            }
        case (.some, .some): return Reply(status: conflictingHeaders)
        case (nil, nil): return Reply(status: 400)
        }
        guard !name.isEmpty, name.count <= 512 else { return Reply(status: 400) }
        nextID += 1
        let id = "N\(nextID)"
        files[id] = File(name: name, folder: folder, bytes: content, created: true)
        return json(["Name": name, "Url": url("files", id)])
    }

    private func renameFile(_ id: String, stem: String, lock: String?) -> Reply {
        guard var file = files[id] else { return Reply(status: 404) }
        if let current = file.lock, current != lock { return mismatch(current: current, sent: lock) }
        guard !stem.isEmpty, !stem.contains(where: { "\\/:*?\"<>|#%".contains($0) }) else {
            return Reply(status: 400, headers: [("X-WOPI-InvalidFileNameError", "the name holds a character this host refuses")])
        }
        if !faults.contains(.renameIgnoresName) { file.name = stem + Self.split(file.name).ext }
        if faults.contains(.idChangesOnRename) {
            files[id] = nil
            nextID += 1
            files["R\(nextID)"] = file
        } else {
            files[id] = file
        }
        return json(["Name": stem])
    }

    private func deleteFile(_ id: String) -> Reply {
        guard let file = files[id] else { return Reply(status: 404) }
        if let current = file.lock { return Reply(status: 409, headers: [("X-WOPI-Lock", current)]) }
        files[id] = nil
        deleted.append(file.name)
        return Reply(status: 200)
    }

    // MARK: Containers

    private func checkContainerInfo(_ id: String) -> Reply {
        guard let folder = folders[id] else { return Reply(status: 404) }
        return json([
            "Name": folder.name, "IsEduUser": faults.contains(.folderLicensingDiffers), "LicenseCheckForEditIsEnabled": false,
            "UserCanCreateChildFile": true, "UserCanCreateChildContainer": true, "UserCanDelete": id != "root", "UserCanRename": false,
        ])
    }

    private func children(_ call: Call) -> Reply {
        guard folders[call.id] != nil else { return Reply(status: 404) }
        let filter = (call.header("X-WOPI-FileExtensionFilterList") ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        let childFiles = files.filter { $0.value.folder == call.id }
            .filter { filter.isEmpty || filter.contains(Self.split($0.value.name).ext.lowercased()) }
            .sorted { $0.value.name < $1.value.name }
            .map { id, file -> [String: Any] in
                ["Name": file.name, "Url": url("files", id), "Size": file.bytes.count, "Version": version(file),
                 "LastModifiedTime": Self.iso8601(file.modified)]
            }
        let childFolders = folders.filter { $0.value.parent == call.id }.sorted { $0.value.name < $1.value.name }
            .map { id, folder -> [String: Any] in ["Name": folder.name, "Url": url("containers", id)] }
        return json(["ChildFiles": childFiles, "ChildContainers": childFolders])
    }

    private func ancestry(ofFile id: String) -> Reply {
        guard let file = files[id] else { return Reply(status: 404) }
        return json(["AncestorsWithRootFirst": chain(to: file.folder)])
    }

    private func ancestry(ofFolder id: String) -> Reply {
        guard let folder = folders[id] else { return Reply(status: 404) }
        return json(["AncestorsWithRootFirst": folder.parent.map(chain(to:)) ?? []])
    }

    /// The folders from the root down to `id`, each with Name and Url.
    private func chain(to id: String) -> [[String: Any]] {
        var result: [[String: Any]] = []
        var current: String? = id
        while let each = current, let folder = folders[each] {
            result.insert(["Name": folder.name, "Url": url("containers", each)], at: 0)
            current = folder.parent
        }
        return result
    }

    private func createChildContainer(_ call: Call) -> Reply {
        guard folders[call.id] != nil else { return Reply(status: 404) }
        let taken = { (name: String) in self.folders.values.contains { $0.parent == call.id && $0.name == name } }
        var name: String
        switch (call.header("X-WOPI-SuggestedTarget").map(Self.utf7Decoded), call.header("X-WOPI-RelativeTarget").map(Self.utf7Decoded)) {
        case (let suggested?, nil):
            name = suggested
            var counter = 1
            while taken(name) {
                counter += 1
                name = "\(suggested) (\(counter))"
            }
        case (nil, let relative?):
            guard !taken(relative) else { return Reply(status: 409) }
            name = relative
        case (.some, .some): return Reply(status: 501)
        case (nil, nil): return Reply(status: 400)
        }
        nextID += 1
        let id = "C\(nextID)"
        folders[id] = Folder(name: name, parent: call.id)
        return json(["ContainerPointer": ["Name": name, "Url": url("containers", id)]])
    }

    // MARK: Helpers

    private func version(_ file: File) -> String { "v\(file.revision)" }

    private func itemVersion(_ file: File) -> [(String, String)] {
        faults.contains(.missingItemVersion) ? [] : [("X-WOPI-ItemVersion", version(file))]
    }

    private func url(_ kind: String, _ id: String) -> String {
        "\(base.absoluteString)/wopi/\(kind)/\(id)?access_token=\(FaultyWOPIHost.token)"
    }

    private func freeName(_ name: String, in folder: String) -> String {
        let (stem, ext) = Self.split(name)
        var candidate = name
        var counter = 1
        while files.values.contains(where: { $0.folder == folder && $0.name == candidate }) {
            counter += 1
            candidate = "\(stem) (\(counter))\(ext)"
        }
        return candidate
    }

    private func json(_ object: [String: Any]) -> Reply {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Reply(status: 200, headers: [("Content-Type", "application/json")], body: data)
    }

    static func split(_ name: String) -> (stem: String, ext: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[dot...]))
    }

    static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// RFC 2152 UTF-7, as WOPI sends file names: `+<modified base64 of UTF-16BE>-`, `+-` for a plus sign.
    static func utf7Decoded(_ text: String) -> String {
        var output = ""
        var scalars = Substring(text).unicodeScalars[...]
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".unicodeScalars)
        while let scalar = scalars.popFirst() {
            guard scalar == "+" else { output.unicodeScalars.append(scalar); continue }
            if scalars.first == "-" { scalars.removeFirst(); output.append("+"); continue }
            var bits: UInt32 = 0
            var count = 0
            var units: [UInt16] = []
            while let next = scalars.first, let value = alphabet.firstIndex(of: next) {
                scalars.removeFirst()
                bits = bits << 6 | UInt32(value)
                count += 6
                if count >= 16 {
                    count -= 16
                    units.append(UInt16(truncatingIfNeeded: bits >> UInt32(count)))
                    bits &= (1 << UInt32(count)) - 1
                }
            }
            if scalars.first == "-" { scalars.removeFirst() }
            output += String(decoding: units, as: UTF16.self)
        }
        return output
    }
}
