import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import WOPICore

/// One helper per WOPI operation (docs/rest/src/files, containers, ecosystem), each a single
/// request that returns the raw response, so tests can check success and refusal alike.
///
/// Ids are strings so tests can send ids the host must refuse (`..%2F..%2Fetc`). `extra` headers
/// are appended as given, which is how tests send doubled or contradictory headers.
extension TestHost {
    static func filePath(_ id: String) -> String { "/wopi/files/\(id)" }
    static func containerPath(_ id: String) -> String { "/wopi/containers/\(id)" }

    /// A POST with `X-WOPI-Override`.
    func override(_ path: String, _ operation: String, token: String?, _ headers: [(String, String)] = [],
                  body: Data = Data()) async throws -> WOPIResponse {
        try await send(.POST, path, token: token, headers: [("X-WOPI-Override", operation)] + headers,
                       body: .bytes(ByteBuffer(bytes: body)))
    }

    // MARK: Files

    func checkFileInfo(_ id: String, token: String?) async throws -> WOPIResponse {
        try await send(.GET, Self.filePath(id), token: token)
    }

    func getFile(_ id: String, token: String?, _ headers: [(String, String)] = []) async throws -> WOPIResponse {
        try await send(.GET, Self.filePath(id) + "/contents", token: token, headers: headers)
    }

    func putFile(_ id: String, token: String?, lock: String?, _ content: Data, _ headers: [(String, String)] = []) async throws -> WOPIResponse {
        try await putFile(id, token: token, lock: lock, body: .bytes(ByteBuffer(bytes: content)), headers)
    }

    func putFile(_ id: String, token: String?, lock: String?, body: HTTPClientRequest.Body,
                 _ headers: [(String, String)] = []) async throws -> WOPIResponse {
        var all = [("X-WOPI-Override", "PUT")]
        if let lock { all.append(("X-WOPI-Lock", lock)) }
        return try await send(.POST, Self.filePath(id) + "/contents", token: token, headers: all + headers, body: body)
    }

    func lock(_ id: String, token: String?, _ lock: String) async throws -> WOPIResponse {
        try await override(Self.filePath(id), "LOCK", token: token, [("X-WOPI-Lock", lock)])
    }

    func getLock(_ id: String, token: String?) async throws -> WOPIResponse {
        try await override(Self.filePath(id), "GET_LOCK", token: token)
    }

    func refreshLock(_ id: String, token: String?, _ lock: String) async throws -> WOPIResponse {
        try await override(Self.filePath(id), "REFRESH_LOCK", token: token, [("X-WOPI-Lock", lock)])
    }

    func unlock(_ id: String, token: String?, _ lock: String) async throws -> WOPIResponse {
        try await override(Self.filePath(id), "UNLOCK", token: token, [("X-WOPI-Lock", lock)])
    }

    func unlockAndRelock(_ id: String, token: String?, old: String, new: String) async throws -> WOPIResponse {
        try await override(Self.filePath(id), "LOCK", token: token, [("X-WOPI-Lock", new), ("X-WOPI-OldLock", old)])
    }

    /// PutRelativeFile; names are passed already UTF-7 encoded, so tests can also send invalid UTF-7.
    func putRelativeFile(_ id: String, token: String?, suggested: String? = nil, relative: String? = nil,
                         overwrite: Bool? = nil, _ content: Data, _ headers: [(String, String)] = []) async throws -> WOPIResponse {
        var all: [(String, String)] = [("X-WOPI-Size", "\(content.count)")]
        if let suggested { all.append(("X-WOPI-SuggestedTarget", suggested)) }
        if let relative { all.append(("X-WOPI-RelativeTarget", relative)) }
        if let overwrite { all.append(("X-WOPI-OverwriteRelativeTarget", overwrite ? "true" : "false")) }
        return try await override(Self.filePath(id), "PUT_RELATIVE", token: token, all + headers, body: content)
    }

    /// RenameFile; `name` is the UTF-7 encoded stem (no extension).
    func renameFile(_ id: String, token: String?, to name: String, lock: String? = nil) async throws -> WOPIResponse {
        var headers = [("X-WOPI-RequestedName", name)]
        if let lock { headers.append(("X-WOPI-Lock", lock)) }
        return try await override(Self.filePath(id), "RENAME_FILE", token: token, headers)
    }

    func deleteFile(_ id: String, token: String?) async throws -> WOPIResponse {
        try await override(Self.filePath(id), "DELETE", token: token)
    }

    func putUserInfo(_ id: String, token: String?, _ info: String) async throws -> WOPIResponse {
        try await override(Self.filePath(id), "PUT_USER_INFO", token: token, body: Data(info.utf8))
    }

    func fileShareURL(_ id: String, token: String?, type: String?) async throws -> WOPIResponse {
        try await override(Self.filePath(id), "GET_SHARE_URL", token: token, type.map { [("X-WOPI-UrlType", $0)] } ?? [])
    }

    func fileAncestors(_ id: String, token: String?) async throws -> WOPIResponse {
        try await send(.GET, Self.filePath(id) + "/ancestry", token: token)
    }

    func fileEcosystem(_ id: String, token: String?) async throws -> WOPIResponse {
        try await send(.GET, Self.filePath(id) + "/ecosystem_pointer", token: token)
    }

    // MARK: Containers

    func checkContainerInfo(_ id: String, token: String?) async throws -> WOPIResponse {
        try await send(.GET, Self.containerPath(id), token: token)
    }

    func enumerateChildren(_ id: String, token: String?, filter: String? = nil) async throws -> WOPIResponse {
        try await send(.GET, Self.containerPath(id) + "/children", token: token,
                       headers: filter.map { [("X-WOPI-FileExtensionFilterList", $0)] } ?? [])
    }

    func containerAncestors(_ id: String, token: String?) async throws -> WOPIResponse {
        try await send(.GET, Self.containerPath(id) + "/ancestry", token: token)
    }

    func containerEcosystem(_ id: String, token: String?) async throws -> WOPIResponse {
        try await send(.GET, Self.containerPath(id) + "/ecosystem_pointer", token: token)
    }

    func createChildFile(_ id: String, token: String?, suggested: String? = nil, relative: String? = nil,
                         overwrite: Bool? = nil) async throws -> WOPIResponse {
        var headers: [(String, String)] = []
        if let suggested { headers.append(("X-WOPI-SuggestedTarget", suggested)) }
        if let relative { headers.append(("X-WOPI-RelativeTarget", relative)) }
        if let overwrite { headers.append(("X-WOPI-OverwriteRelativeTarget", overwrite ? "true" : "false")) }
        return try await override(Self.containerPath(id), "CREATE_CHILD_FILE", token: token, headers)
    }

    func createChildContainer(_ id: String, token: String?, suggested: String? = nil, relative: String? = nil) async throws -> WOPIResponse {
        var headers: [(String, String)] = []
        if let suggested { headers.append(("X-WOPI-SuggestedTarget", suggested)) }
        if let relative { headers.append(("X-WOPI-RelativeTarget", relative)) }
        return try await override(Self.containerPath(id), "CREATE_CHILD_CONTAINER", token: token, headers)
    }

    func renameContainer(_ id: String, token: String?, to name: String) async throws -> WOPIResponse {
        try await override(Self.containerPath(id), "RENAME_CONTAINER", token: token, [("X-WOPI-RequestedName", name)])
    }

    func deleteContainer(_ id: String, token: String?) async throws -> WOPIResponse {
        try await override(Self.containerPath(id), "DELETE_CONTAINER", token: token)
    }

    func containerShareURL(_ id: String, token: String?, type: String?) async throws -> WOPIResponse {
        try await override(Self.containerPath(id), "GET_SHARE_URL", token: token, type.map { [("X-WOPI-UrlType", $0)] } ?? [])
    }

    // MARK: Ecosystem

    func checkEcosystem(token: String?) async throws -> WOPIResponse {
        try await send(.GET, "/wopi/ecosystem", token: token)
    }

    func rootContainer(token: String?) async throws -> WOPIResponse {
        try await send(.GET, "/wopi/ecosystem/root_container_pointer", token: token)
    }
}
