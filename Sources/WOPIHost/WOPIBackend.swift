import Crypto
import Foundation
import Hummingbird
import Logging
import WOPICore

/// What every route works with: the stores, the token signer and the configuration.
///
/// It also owns the few rules that span stores: who may act on what, how URLs with tokens are
/// minted, and how a name is made unique inside a container.
public struct WOPIBackend: Sendable {
    /// Users, containers, files and locks.
    public let store: any WOPIStore
    /// Document bodies.
    public let blobs: any BlobStore
    /// Issues and checks WOPI access tokens.
    public let tokens: AccessTokenSigner
    /// Host settings.
    public let configuration: WOPIHostConfiguration
    /// The web front's sessions: the store when it is a ``WebSessionStore``, else this process's memory.
    package let webSessions: any WebSessionStore
    /// Which template each new document was made from: the store when it is a ``TemplateOriginStore``,
    /// else `nil` (the web front then offers no "New document from template").
    package let templateOrigins: (any TemplateOriginStore)?
    /// `configuration.publicURL` as text, made once: Foundation rebuilds `absoluteString` on every call,
    /// and listings put it in every child's URL.
    let publicURLString: String

    /// The name of the token key in ``WOPIStore/hostSecret(named:orCreate:)``.
    public static let tokenKeyName = "wopi-access-token-key"

    /// Creates a backend, loading (or creating) the token key from the store.
    public init(store: any WOPIStore, blobs: any BlobStore, configuration: WOPIHostConfiguration) async throws {
        let key = try await store.hostSecret(named: Self.tokenKeyName) { Data((0..<32).map { _ in UInt8.random(in: .min ... .max) }) }
        self.store = store
        self.blobs = blobs
        self.tokens = AccessTokenSigner(key: .init(data: key))
        self.configuration = configuration
        self.webSessions = store as? any WebSessionStore ?? InMemoryWebSessions()
        self.templateOrigins = store as? any TemplateOriginStore
        self.publicURLString = configuration.publicURL.absoluteString
    }

    // MARK: Tokens and URLs

    /// Issues a token for `user` on `resource`, expiring after the configured lifetime or at `notAfter`, whichever is first.
    public func issueToken(user: ResourceID, resource: WOPIResource, notAfter: Date? = nil) -> (token: String, claims: AccessTokenClaims) {
        var expiry = configuration.now().addingTimeInterval(configuration.accessTokenLifetime)
        if let notAfter, notAfter < expiry { expiry = notAfter }
        let claims = AccessTokenClaims(userID: user, resource: resource, expiresAt: expiry)
        return (tokens.issue(claims), claims)
    }

    /// A share link to a file or container, read-only unless `readWrite`, valid for the configured share-link lifetime.
    public func shareLink(user: ResourceID, item id: ResourceID, isContainer: Bool, readWrite: Bool = false, notAfter: Date? = nil) -> String {
        var expiry = configuration.now().addingTimeInterval(configuration.shareLinkLifetime)
        if let notAfter, notAfter < expiry { expiry = notAfter }
        let resource = WOPIResource.shareLink(id, isContainer: isContainer, readWrite: readWrite)
        let token = tokens.issue(AccessTokenClaims(userID: user, resource: resource, expiresAt: expiry))
        return "\(configuration.publicURL.absoluteString)/share/\(token)"
    }

    /// The WOPISrc of a resource: `<public URL>/wopi/files/<id>`, `/wopi/containers/<id>` or `/wopi/ecosystem`.
    public func wopiSrc(_ resource: WOPIResource) -> String {
        let base = publicURLString
        switch resource {
        case .file(let id): return "\(base)/wopi/files/\(id)"
        case .container(let id): return "\(base)/wopi/containers/\(id)"
        case .ecosystem: return "\(base)/wopi/ecosystem"
        case .shareLink: return "\(base)/share"
        }
    }

    /// A WOPISrc with a fresh token for the same user and no later expiry than `claims`.
    func url(_ resource: WOPIResource, for claims: AccessTokenClaims) -> String {
        "\(wopiSrc(resource))?access_token=\(issueToken(user: claims.userID, resource: resource, notAfter: claims.expiresAt).token)"
    }

    // MARK: Bodies

    /// `file`'s body, streamed from the blob store as a response body. A body the store cuts off after the status
    /// went out is logged with the bytes sent and counted (`wopi_document_read_errors_total`).
    package func responseBody(of file: FileRecord, logger: Logger) async throws -> ResponseBody {
        let metrics = configuration.monitor.metrics
        return ResponseBody(blob: try await blobs.read(file.blobKey, size: file.size)) { sent, error in
            metrics?.recordDocumentReadError()
            logger.error("a document body was cut off while it was sent", metadata: [
                "file": "\(file.id)", "sent": "\(sent)", "size": "\(file.size)", "error": "\(error)",
            ])
        }
    }

    /// Deletes a body no file refers to any more, after ``WOPIHostConfiguration/retiredBodyGracePeriod``.
    /// If the process stops first, start-up garbage collection removes it.
    package func retire(_ key: BlobKey) {
        let blobs = blobs
        let grace = configuration.retiredBodyGracePeriod
        Task {
            try? await Task.sleep(for: grace)
            try? await blobs.delete(key)
        }
    }

    // MARK: Authorization

    /// Checks the request's `access_token` for `resource` and returns its claims and user.
    ///
    /// 401 for a missing, malformed, forged, expired or wrong-resource token and for a removed user.
    func authorize(_ request: Request, _ resource: WOPIResource) async throws -> (claims: AccessTokenClaims, user: UserRecord) {
        let claims = try verifyToken(request, resource)
        guard let user = try await store.user(id: claims.userID) else { throw refuseToken(reason: "unknown_user", "the token's user no longer exists") }
        scope(user: user, resource: resource)
        return (claims, user)
    }

    /// Checks the request's `access_token` for `resource` without touching the store; 401 when it does not verify.
    func verifyToken(_ request: Request, _ resource: WOPIResource) throws -> AccessTokenClaims {
        try verifiedToken(request, resource).claims
    }

    /// ``verifyToken(_:_:)`` with the token's text, for answers that repeat it (CheckFileInfo's `FileUrl`).
    func verifiedToken(_ request: Request, _ resource: WOPIResource) throws -> (token: String, claims: AccessTokenClaims) {
        guard let token = request.uri.queryParameters.get("access_token"), !token.isEmpty else {
            throw refuseToken(reason: "missing", "missing access_token")
        }
        do {
            return (token, try tokens.verify(token, for: resource, now: configuration.now()))
        } catch {
            throw refuseToken(reason: Self.reasonLabel(error), error.description)
        }
    }

    /// The 401 for a token whose user was removed.
    func unknownTokenUser() -> WOPIError {
        refuseToken(reason: "unknown_user", "the token's user no longer exists")
    }

    /// Tags the audit events of this request with its user and item.
    func scope(user: UserRecord, resource: WOPIResource) {
        RequestScope.current?.user = user.name
        switch resource {
        case .file(let id), .container(let id): RequestScope.current?.file = id.rawValue
        default: break
        }
    }

    /// The file, if it exists and `user` owns it: the web front manages a user's own files.
    package func file(_ id: ResourceID, for user: UserRecord) async throws -> FileRecord {
        guard let file = try await store.file(id: id), file.ownerID == user.id else { throw WOPIError.notFound("file not found") }
        return file
    }

    /// The container, if it exists and `user` owns it.
    package func container(_ id: ResourceID, for user: UserRecord) async throws -> ContainerRecord {
        guard let container = try await store.container(id: id), container.ownerID == user.id else {
            throw WOPIError.notFound("container not found")
        }
        return container
    }

    // MARK: Operations

    /// Counts and audits a refused access token; returns the 401 to throw.
    private func refuseToken(reason: String, _ message: String) -> WOPIError {
        configuration.monitor.metrics?.recordTokenRefused(reason: reason)
        configuration.monitor.record(.tokenRefused, details: ["reason": reason], now: configuration.now())
        return WOPIError.unauthorized(message)
    }

    /// A metrics label for why a token was refused.
    private static func reasonLabel(_ failure: AccessTokenSigner.Failure) -> String {
        switch failure {
        case .malformed: "malformed"
        case .badSignature: "bad_signature"
        case .expired: "expired"
        case .wrongResource: "wrong_resource"
        }
    }

    /// Records an audit event for the request in progress.
    package func audit(_ kind: AuditEvent.Kind, file: ResourceID? = nil, user: String? = nil, details: [String: String] = [:]) {
        configuration.monitor.record(kind, user: user, file: file?.rawValue, details: details, now: configuration.now())
    }

    /// Counts and audits a lock refusal (any change a lock refused, with 409).
    func lockRefused(_ file: ResourceID, operation: String, currentLock: String) {
        configuration.monitor.metrics?.recordLockConflict()
        audit(.lockRefused, file: file, details: ["operation": operation, "lock": currentLock])
    }

    // MARK: Names

    /// A name like `proposed` that no file in the container uses: `Budget.xlsx`, `Budget (1).xlsx`, … each
    /// within ``WOPIName/maximumUTF8Length`` bytes (``WOPIName/numbered(_:_:keepingExtension:)``).
    func unusedFileName(like proposed: String, in containerID: ResourceID) async throws -> String {
        var candidate = proposed
        var counter = 1
        while try await store.file(named: candidate, in: containerID) != nil {
            candidate = WOPIName.numbered(proposed, counter)
            counter += 1
        }
        return candidate
    }

    /// Records `blob` as a new file named `proposed` in `containerID`, or as the first free variant of that name.
    ///
    /// A name is free when it is looked at, but another request may take it before the file is created: then the
    /// next free variant is taken, so creations that race for one name all succeed, each with its own name.
    package func createFile(namedLike proposed: String, in containerID: ResourceID, blob: StoredBlob) async throws -> FileRecord {
        for _ in 0..<Self.nameRaceAttempts {
            let name = try await unusedFileName(like: proposed, in: containerID)
            do {
                return try await store.createFile(named: name, in: containerID, blob: blob, replacing: false, now: configuration.now()).file
            } catch WOPIStoreError.nameTaken {
                continue
            }
        }
        throw WOPIStoreError.nameTaken(proposed)
    }

    /// How often ``createFile(namedLike:in:blob:)`` looks for a free name again after losing one to another request.
    static let nameRaceAttempts = 64

    /// A name like `proposed` that no sibling container uses.
    func unusedContainerName(like proposed: String, in parentID: ResourceID) async throws -> String {
        let siblings = Set(try await store.children(of: parentID).containers.map { $0.name.lowercased() })
        var candidate = proposed
        var counter = 1
        while siblings.contains(candidate.lowercased()) {
            candidate = WOPIName.numbered(proposed, counter, keepingExtension: false)
            counter += 1
        }
        return candidate
    }

    /// The public URL's origin (RFC 6454 §6.2), which the host's own pages send as `Origin`.
    package var publicOrigin: String {
        RequestOriginRules.origin(of: configuration.publicURL) ?? ""
    }

    /// Splits `name.ext` into (`name`, `.ext`); a leading dot is part of the stem.
    static func split(_ name: String) -> (stem: String, ext: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[dot...]))
    }
}
