import Foundation
import Hummingbird
import WOPICore

/// A WOPI file request after its token and the caller's role were checked.
struct AuthorizedFile: Sendable {
    /// The request's access token.
    var token: String
    /// The token's claims.
    var claims: AccessTokenClaims
    /// The caller.
    var user: UserRecord
    /// The file.
    var file: FileRecord
    /// The caller's role on the file.
    var role: AccessRole
    /// The caller's role on the file's folder, `nil` when only the file is shared with them.
    var containerRole: AccessRole?
    /// The folder's name, for the breadcrumb.
    var containerName: String
}

/// A WOPI container request after its token and the caller's role were checked.
struct AuthorizedContainer: Sendable {
    /// The token's claims.
    var claims: AccessTokenClaims
    /// The caller.
    var user: UserRecord
    /// The container (``SharedWithMe/container(for:)`` for the caller's "Shared with me").
    var container: ContainerRecord
    /// The caller's role on it; `AccessRole.viewer` on "Shared with me", which nobody can change.
    var role: AccessRole
    /// Whether this is the caller's "Shared with me".
    var isSharedWithMe: Bool
}

/// A user's access to a file or a container, whichever a share or a link names.
package struct ItemAccess: Sendable {
    /// The user.
    package var user: UserRecord
    /// The item's name.
    package var name: String
    /// The item's owner.
    package var ownerID: ResourceID
    /// The user's role on it; `nil` when they may not open it.
    package var role: AccessRole?
    /// The file, when the item is one.
    package var file: FileRecord?
}

extension WOPIBackend {
    /// `userID`'s access to a file or (`isContainer`) a container, in one store read; `nil` when the user or the item does not exist.
    package func access(to itemID: ResourceID, isContainer: Bool, by userID: ResourceID) async throws -> ItemAccess? {
        if isContainer {
            guard let access = try await store.containerAccess(itemID, by: userID), let container = access.container else { return nil }
            return ItemAccess(user: access.user, name: container.name, ownerID: container.ownerID, role: access.role, file: nil)
        }
        guard let access = try await store.fileAccess(itemID, by: userID), let file = access.file else { return nil }
        return ItemAccess(user: access.user, name: file.name, ownerID: file.ownerID, role: access.role, file: file)
    }

    /// Checks a file request's token and reads the caller, the file and their role in one store call.
    ///
    /// 401 for a bad token or a removed user; 404 ("resource not found/user unauthorized") for a file that
    /// does not exist or that the caller may no longer open — a removed share ends access at once,
    /// whatever token they hold.
    func authorizeFile(_ request: Request, _ id: ResourceID) async throws -> AuthorizedFile {
        let (token, claims) = try verifiedToken(request, .file(id))
        guard let access = try await store.fileAccess(id, by: claims.userID) else { throw unknownTokenUser() }
        scope(user: access.user, resource: .file(id))
        guard let file = access.file, let role = access.role else { throw WOPIError.notFound("file not found") }
        return AuthorizedFile(token: token, claims: claims, user: access.user, file: file, role: role, containerRole: access.containerRole,
                              containerName: access.containerName)
    }

    /// Checks a container request's token and reads the caller, the container and their role in one store call.
    func authorizeContainer(_ request: Request, _ id: ResourceID) async throws -> AuthorizedContainer {
        let claims = try verifyToken(request, .container(id))
        if let owner = SharedWithMe.userID(in: id) {
            guard let user = try await store.user(id: claims.userID) else { throw unknownTokenUser() }
            scope(user: user, resource: .container(id))
            guard owner == user.id else { throw WOPIError.notFound("container not found") }
            return AuthorizedContainer(claims: claims, user: user, container: SharedWithMe.container(for: user), role: .viewer, isSharedWithMe: true)
        }
        guard let access = try await store.containerAccess(id, by: claims.userID) else { throw unknownTokenUser() }
        scope(user: access.user, resource: .container(id))
        guard let container = access.container, let role = access.role else { throw WOPIError.notFound("container not found") }
        return AuthorizedContainer(claims: claims, user: access.user, container: container, role: role, isSharedWithMe: false)
    }

    /// Refuses `operation` when the caller's role does not allow it (`AccessRules`), changing nothing.
    func permit(_ operation: String, role: AccessRole, containerRole: AccessRole? = nil) throws {
        if case .refused(let status, let reason) = AccessRules.evaluate(operation, role: role, containerRole: containerRole) {
            throw WOPIError(HTTPResponse.Status(code: status), reason)
        }
    }

    /// A container path as `user` sees it: their own containers as they are; a shared one under their root
    /// and "Shared with me", starting at the highest container above it that is shared with them.
    func path(to containerID: ResourceID, for user: UserRecord) async throws -> [ContainerRecord] {
        let path = try await store.containerPath(to: containerID)
        guard let first = path.first, first.ownerID != user.id else { return path }
        let shared = Set(try await store.shares(with: user.id).filter { $0.itemKind == .container }.map(\.itemID))
        let start = path.firstIndex { shared.contains($0.id) }
        return try await sharedPrefix(for: user) + (start.map { Array(path[$0...]) } ?? [])
    }

    /// The user's root and their "Shared with me": where every shared item hangs from the user's side.
    func sharedPrefix(for user: UserRecord) async throws -> [ContainerRecord] {
        guard let root = try await store.container(id: user.rootContainerID) else { throw WOPIStoreError.notFound }
        return [root, SharedWithMe.container(for: user)]
    }
}
