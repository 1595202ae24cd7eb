import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import WOPICore
@testable import WOPIAuthorization
@testable import WOPIHost

/// Sharing and permissions over real HTTP: every WOPI operation checked against the caller's
/// role, revocation with a live token, "Shared with me", and a ReadWrite link opened and edited by another user.
@Suite("Sharing over HTTP")
struct SharingHTTPTests {
    /// alice owns `Projects/plan.docx`; the folder is shared with bob as `role`.
    struct SharedFolder {
        var alice, bob: UserRecord
        var projects: ContainerRecord
        var plan: FileRecord
        var bobToken: String
        var id: String { plan.id.rawValue }
    }

    static let content = Data("the plan".utf8)

    func shareFolder(_ host: TestHost, role: AccessRole) async throws -> SharedFolder {
        let alice = try await host.makeUser("alice")
        let bob = try await host.makeUser("bob")
        let projects = try await host.addContainer("Projects", in: alice.rootContainerID)
        let plan = try await host.addFile("plan.docx", Self.content, owner: alice, in: projects.id)
        _ = try await host.folder.store.share(projects.id, kind: .container, with: bob.id, role: role, now: host.clock.now())
        return SharedFolder(alice: alice, bob: bob, projects: projects, plan: plan, bobToken: host.token(bob, .file(plan.id)))
    }

    /// The file's content and lock, read back over HTTP by its owner: proof a refusal changed nothing.
    func expectUnchanged(_ host: TestHost, _ shared: SharedFolder, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let owner = host.token(shared.alice, .file(shared.plan.id))
        let info = try await host.checkFileInfo(shared.id, token: owner).json()
        #expect(info["BaseFileName"]?.string == "plan.docx", sourceLocation: sourceLocation)
        #expect(try await host.getFile(shared.id, token: owner).body == Self.content, sourceLocation: sourceLocation)
        #expect(try await host.getLock(shared.id, token: owner).header("X-WOPI-Lock") == "", sourceLocation: sourceLocation)
    }

    /// A web-front session for `user` and the `Cookie` header a signed-in browser sends with it.
    func signedIn(_ user: UserRecord, _ host: TestHost) async throws -> (WebSession, (String, String)) {
        let (session, secret) = try await host.backend.startWebSession(for: user, userAgent: nil)
        return (session, ("Cookie", "\(WebSession.cookieName)=\(secret)"))
    }

    @Test("A viewer reads; every write is refused with the WOPI docs' status and changes nothing")
    func viewer() async throws {
        try await TestHost.run { host in
            let shared = try await shareFolder(host, role: .viewer)
            let token = shared.bobToken
            let info = try await host.checkFileInfo(shared.id, token: token)
            expectStatus(info, 200)
            let json = try info.json()
            #expect(json["UserCanWrite"]?.bool == false)
            #expect(json["ReadOnly"]?.bool == true)
            #expect(json["UserCanRename"]?.bool == false)
            #expect(json["UserCanNotWriteRelative"]?.bool == true)
            #expect(json["UserId"]?.string == shared.bob.id.rawValue && json["OwnerId"]?.string == shared.alice.id.rawValue)
            #expect(json["SupportedShareUrlTypes"]?.array?.compactMap(\.string) == ["ReadOnly"])
            #expect(json["BreadcrumbFolderName"]?.string == "Projects")
            #expect(try await host.getFile(shared.id, token: token).body == Self.content)
            expectStatus(try await host.getLock(shared.id, token: token), 200)
            expectStatus(try await host.putUserInfo(shared.id, token: token, "bob's settings"), 200, "PutUserInfo is about the caller")
            expectStatus(try await host.fileShareURL(shared.id, token: token, type: "ReadOnly"), 200)

            // Writes: 404 ("resource not found/user unauthorized"), PutRelativeFile 501, AddActivities 401.
            expectStatus(try await host.putFile(shared.id, token: token, lock: nil, Data("vandalised".utf8)), 404, "PutFile")
            expectStatus(try await host.lock(shared.id, token: token, "bob-lock"), 404, "Lock")
            // A lock request the current lock refuses anyway is answered like for anyone: 409 with the lock
            // (Office's RefreshLock probe when opening to view); nothing a viewer sends takes or frees a lock.
            expectLockConflict(try await host.refreshLock(shared.id, token: token, "bob-lock"), currentLock: "")
            expectLockConflict(try await host.unlock(shared.id, token: token, "bob-lock"), currentLock: "")
            expectLockConflict(try await host.unlockAndRelock(shared.id, token: token, old: "a", new: "b"), currentLock: "")
            let ownerToken = host.token(shared.alice, .file(shared.plan.id))
            expectStatus(try await host.lock(shared.id, token: ownerToken, "alice-lock"), 200)
            expectLockConflict(try await host.lock(shared.id, token: token, "bob-lock"), currentLock: "alice-lock")
            expectStatus(try await host.unlock(shared.id, token: token, "alice-lock"), 404, "a viewer who knows the lock still cannot free it")
            expectStatus(try await host.refreshLock(shared.id, token: token, "alice-lock"), 404, "nor refresh it")
            expectStatus(try await host.unlock(shared.id, token: ownerToken, "alice-lock"), 200)
            expectStatus(try await host.renameFile(shared.id, token: token, to: "renamed"), 404, "RenameFile")
            expectStatus(try await host.deleteFile(shared.id, token: token), 404, "DeleteFile")
            expectStatus(try await host.putRelativeFile(shared.id, token: token, suggested: ".docx", Data("copy".utf8)), 501, "PutRelativeFile")
            expectStatus(try await host.fileShareURL(shared.id, token: token, type: "ReadWrite"), 404, "a viewer cannot mint an edit link")
            let activities = try await host.override(TestHost.filePath(shared.id), "ADD_ACTIVITIES", token: token,
                                                     body: Data(#"{"Activities":[]}"#.utf8))
            expectStatus(activities, 401, "AddActivities")
            try await expectUnchanged(host, shared)
            #expect(try await host.folder.store.children(of: shared.projects.id).files.count == 1, "no relative file was created")

            // The shared folder: readable, unchangeable.
            let folderToken = host.token(shared.bob, .container(shared.projects.id))
            let folderInfo = try await host.checkContainerInfo(shared.projects.id.rawValue, token: folderToken).json()
            #expect(folderInfo["UserCanCreateChildFile"]?.bool == false && folderInfo["UserCanCreateChildContainer"]?.bool == false)
            #expect(folderInfo["UserCanDelete"]?.bool == false && folderInfo["UserCanRename"]?.bool == false)
            let children = try await host.enumerateChildren(shared.projects.id.rawValue, token: folderToken)
            expectStatus(children, 200)
            #expect(try children.json()["ChildFiles"]?.array?.first?["Name"]?.string == "plan.docx")
            expectStatus(try await host.createChildFile(shared.projects.id.rawValue, token: folderToken, suggested: ".docx"), 404, "CreateChildFile")
            expectStatus(try await host.createChildContainer(shared.projects.id.rawValue, token: folderToken, suggested: "New"), 404, "CreateChildContainer")
            expectStatus(try await host.renameContainer(shared.projects.id.rawValue, token: folderToken, to: "Mine"), 404, "RenameContainer")
            expectStatus(try await host.deleteContainer(shared.projects.id.rawValue, token: folderToken), 404, "DeleteContainer")
            let after = try await host.folder.store.children(of: shared.projects.id)
            #expect(after.containers.isEmpty && after.files.count == 1)
            #expect(try await host.folder.store.container(id: shared.projects.id)?.name == "Projects")
        }
    }

    @Test("An editor saves, locks, renames and creates in the shared folder; only the owner deletes")
    func editor() async throws {
        try await TestHost.run { host in
            let shared = try await shareFolder(host, role: .editor)
            let token = shared.bobToken
            let json = try await host.checkFileInfo(shared.id, token: token).json()
            #expect(json["UserCanWrite"]?.bool == true && json["ReadOnly"]?.bool == false)
            #expect(json["UserCanRename"]?.bool == true && json["UserCanNotWriteRelative"]?.bool == false)
            #expect(json["SupportedShareUrlTypes"]?.array?.compactMap(\.string) == ["ReadOnly", "ReadWrite"])

            expectStatus(try await host.lock(shared.id, token: token, "bob-lock"), 200)
            expectStatus(try await host.putFile(shared.id, token: token, lock: "bob-lock", Data("bob's plan".utf8)), 200)
            expectStatus(try await host.unlock(shared.id, token: token, "bob-lock"), 200)
            #expect(try await host.getFile(shared.id, token: host.token(shared.alice, .file(shared.plan.id))).body == Data("bob's plan".utf8))
            expectStatus(try await host.renameFile(shared.id, token: token, to: "plan v2"), 200)
            let relative = try await host.putRelativeFile(shared.id, token: token, suggested: ".docx", Data("copy".utf8))
            expectStatus(relative, 200)
            let created = try await host.folder.store.file(named: try #require(try relative.json()["Name"]?.string), in: shared.projects.id)
            #expect(created?.ownerID == shared.alice.id, "a file made in alice's folder is alice's")
            expectStatus(try await host.fileShareURL(shared.id, token: token, type: "ReadWrite"), 200)
            expectStatus(try await host.deleteFile(shared.id, token: token), 404, "DeleteFile is the owner's")
            #expect(try await host.folder.store.file(id: shared.plan.id)?.name == "plan v2.docx")

            let folderToken = host.token(shared.bob, .container(shared.projects.id))
            let folderInfo = try await host.checkContainerInfo(shared.projects.id.rawValue, token: folderToken).json()
            #expect(folderInfo["UserCanCreateChildFile"]?.bool == true && folderInfo["UserCanDelete"]?.bool == false)
            expectStatus(try await host.createChildContainer(shared.projects.id.rawValue, token: folderToken, suggested: "Drafts"), 200)
            expectStatus(try await host.deleteContainer(shared.projects.id.rawValue, token: folderToken), 404, "DeleteContainer is the owner's")
        }
    }

    @Test("An editor of one file may not write beside it: UserCanNotWriteRelative and PutRelativeFile 501")
    func editorOfOneFile() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let bob = try await host.makeUser("bob")
            _ = try await host.folder.store.share(doc.file.id, kind: .file, with: bob.id, role: .editor, now: host.clock.now())
            let token = host.token(bob, .file(doc.file.id))
            let json = try await host.checkFileInfo(doc.id, token: token).json()
            #expect(json["UserCanWrite"]?.bool == true && json["UserCanNotWriteRelative"]?.bool == true)
            expectStatus(try await host.lock(doc.id, token: token, "bob"), 200)
            expectStatus(try await host.putFile(doc.id, token: token, lock: "bob", Data("bob's".utf8)), 200)
            expectStatus(try await host.putRelativeFile(doc.id, token: token, suggested: ".docx", Data("copy".utf8)), 501)
        }
    }

    @Test("A lock taken by the owner blocks the editor's save with 409 and the owner's lock")
    func ownersLockBlocksEditor() async throws {
        try await TestHost.run { host in
            let shared = try await shareFolder(host, role: .editor)
            expectStatus(try await host.lock(shared.id, token: host.token(shared.alice, .file(shared.plan.id)), "alice-lock"), 200)
            expectLockConflict(try await host.putFile(shared.id, token: shared.bobToken, lock: "bob-lock", Data("bob's".utf8)), currentLock: "alice-lock")
            expectLockConflict(try await host.putFile(shared.id, token: shared.bobToken, lock: nil, Data("bob's".utf8)), currentLock: "alice-lock")
            expectLockConflict(try await host.lock(shared.id, token: shared.bobToken, "bob-lock"), currentLock: "alice-lock")
            #expect(try await host.getFile(shared.id, token: shared.bobToken).body == Self.content)
        }
    }

    @Test("Removing a share ends access on the next request, whatever token the user holds")
    func revocation() async throws {
        try await TestHost.run { host in
            let shared = try await shareFolder(host, role: .editor)
            expectStatus(try await host.checkFileInfo(shared.id, token: shared.bobToken), 200)
            #expect(try await host.folder.store.removeShare(of: shared.projects.id, with: shared.bob.id))
            expectStatus(try await host.checkFileInfo(shared.id, token: shared.bobToken), 404)
            expectStatus(try await host.getFile(shared.id, token: shared.bobToken), 404)
            expectStatus(try await host.putFile(shared.id, token: shared.bobToken, lock: nil, Data("late".utf8)), 404)
            expectStatus(try await host.enumerateChildren(shared.projects.id.rawValue, token: host.token(shared.bob, .container(shared.projects.id))), 404)
            try await expectUnchanged(host, shared)
        }
    }

    @Test("Shared items appear under \"Shared with me\" in the user's root, with ancestors from the user's side")
    func sharedWithMe() async throws {
        try await TestHost.run { host in
            let shared = try await shareFolder(host, role: .viewer)
            let bob = shared.bob
            let rootToken = host.token(bob, .container(bob.rootContainerID))
            let root = try await host.enumerateChildren(bob.rootContainerID.rawValue, token: rootToken).json()
            let entry = try #require(root["ChildContainers"]?.array?.first { $0["Name"]?.string == "Shared with me" })
            let url = try #require(entry["Url"]?.string)
            let info = try await host.send(url: url)
            expectStatus(info, 200)
            #expect(try info.json()["Name"]?.string == "Shared with me")
            #expect(try info.json()["UserCanCreateChildFile"]?.bool == false)

            // A file shared on its own appears beside the shared folder.
            let loose = try await host.addFile("Budget.xlsx", Data("1,2".utf8), owner: shared.alice)
            _ = try await host.folder.store.share(loose.id, kind: .file, with: bob.id, role: .viewer, now: host.clock.now())
            let childrenURL = url.replacingOccurrences(of: "?access_token=", with: "/children?access_token=")
            let children = try await host.send(url: childrenURL).json()
            #expect(children["ChildContainers"]?.array?.compactMap { $0["Name"]?.string } == ["Projects"])
            #expect(children["ChildFiles"]?.array?.compactMap { $0["Name"]?.string } == ["Budget.xlsx"])

            // Ancestors, seen by bob: his root, "Shared with me", then the shared folder.
            let ancestors = try await host.fileAncestors(shared.id, token: shared.bobToken).json()
            let names = ancestors["AncestorsWithRootFirst"]?.array?.compactMap { $0["Name"]?.string }
            #expect(names == ["Bob's files", "Shared with me", "Projects"], "\(names ?? [])")
            let looseAncestors = try await host.fileAncestors(loose.id.rawValue, token: host.token(bob, .file(loose.id))).json()
            #expect(looseAncestors["AncestorsWithRootFirst"]?.array?.compactMap { $0["Name"]?.string } == ["Bob's files", "Shared with me"])

            // Nobody else opens bob's "Shared with me", and nobody changes it.
            let sharedWithMe = SharedWithMe.id(for: bob.id)
            expectStatus(try await host.checkContainerInfo(sharedWithMe.rawValue, token: host.token(shared.alice, .container(sharedWithMe))), 404)
            expectStatus(try await host.createChildContainer(sharedWithMe.rawValue, token: host.token(bob, .container(sharedWithMe)), suggested: "x"), 404)
            // alice, who shares nothing from others, has no such entry.
            let aliceRoot = try await host.enumerateChildren(shared.alice.rootContainerID.rawValue,
                                                             token: host.token(shared.alice, .container(shared.alice.rootContainerID))).json()
            #expect(aliceRoot["ChildContainers"]?.array?.compactMap { $0["Name"]?.string } == ["Projects"])
        }
    }

    @Test("A ReadWrite link, opened by another signed-in user, lets them edit the file")
    func readWriteLink() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let bob = try await host.makeUser("bob")
            let bobToken = host.token(bob, .file(doc.file.id))
            expectStatus(try await host.checkFileInfo(doc.id, token: bobToken), 404, "not shared yet")
            let readOnly = try #require(try await host.fileShareURL(doc.id, token: doc.token, type: "ReadOnly").json()["ShareUrl"]?.string)
            let readWrite = try #require(try await host.fileShareURL(doc.id, token: doc.token, type: "ReadWrite").json()["ShareUrl"]?.string)
            #expect(readOnly != readWrite)

            // The link token itself opens no WOPI endpoint.
            let linkToken = String(readWrite.split(separator: "/").last ?? "")
            expectStatus(try await host.checkFileInfo(doc.id, token: linkToken), 401)

            // Signed out: the page invites to sign in; accepting needs a session.
            let anonymous = try await host.send(url: readWrite)
            expectStatus(anonymous, 200)
            #expect(String(decoding: anonymous.body, as: UTF8.self).contains("Sign in"))
            expectStatus(try await host.send(.POST, url: readWrite + "/accept"), 403)

            // Signed in as bob (the web front's session cookie): the page offers the form; posting it shares the file.
            let (session, cookie) = try await signedIn(bob, host)
            let page = String(decoding: try await host.send(url: readWrite, headers: [cookie]).body, as: UTF8.self)
            #expect(page.contains("/accept") && page.contains(session.csrf))
            let form = [cookie, ("Content-Type", "application/x-www-form-urlencoded")]
            expectStatus(try await host.send(.POST, url: readWrite + "/accept", headers: form, body: .bytes(ByteBuffer(string: "csrf=wrong"))), 403)
            #expect(try await host.folder.store.shares(with: bob.id).isEmpty, "a forged form shares nothing")
            let crossSite = form + [("Sec-Fetch-Site", "cross-site")]
            expectStatus(try await host.send(.POST, url: readWrite + "/accept", headers: crossSite, body: .bytes(ByteBuffer(string: "csrf=\(session.csrf)"))), 403)
            #expect(try await host.folder.store.shares(with: bob.id).isEmpty, "another site's form shares nothing, even with the token")
            let accepted = try await host.send(.POST, url: readWrite + "/accept", headers: form, body: .bytes(ByteBuffer(string: "csrf=\(session.csrf)")))
            expectStatus(accepted, 303)
            #expect(try await host.folder.store.shares(with: bob.id).map(\.role) == [.editor])

            // bob edits over WOPI with his own token.
            let info = try await host.checkFileInfo(doc.id, token: bobToken).json()
            #expect(info["UserCanWrite"]?.bool == true)
            expectStatus(try await host.lock(doc.id, token: bobToken, "bob"), 200)
            expectStatus(try await host.putFile(doc.id, token: bobToken, lock: "bob", Data("edited by bob".utf8)), 200)
            #expect(try await host.getFile(doc.id, token: doc.token).body == Data("edited by bob".utf8))

            // A read-only link grants nothing to accept.
            let carol = try await host.makeUser("carol")
            let (carolSession, carolCookie) = try await signedIn(carol, host)
            expectStatus(try await host.send(.POST, url: readOnly + "/accept", headers: [carolCookie, form[1]],
                                             body: .bytes(ByteBuffer(string: "csrf=\(carolSession.csrf)"))), 404)
            #expect(try await host.folder.store.shares(with: carol.id).isEmpty)
        }
    }

    @Test("GetFileWopiSrc and the bootstrapper admit a user the file is shared with")
    func sharedUsersResolveURLs() async throws {
        try await TestHost.run { host in
            let shared = try await shareFolder(host, role: .viewer)
            let wopiSrc = "\(TestHost.publicURL)/wopi/files/\(shared.id)"
            let response = try await host.override("/wopi/ecosystem", "GET_WOPI_SRC_WITH_ACCESS_TOKEN", token: host.token(shared.bob, .ecosystem),
                                                   [("X-WOPI-HostNativeFileName", wopiSrc)])
            expectStatus(response, 200)
            let url = try #require(try response.json()["Url"]?.string)
            expectStatus(try await host.send(url: url), 200)
            #expect(try await host.folder.store.removeShare(of: shared.projects.id, with: shared.bob.id))
            let after = try await host.override("/wopi/ecosystem", "GET_WOPI_SRC_WITH_ACCESS_TOKEN", token: host.token(shared.bob, .ecosystem),
                                                [("X-WOPI-HostNativeFileName", wopiSrc)])
            expectStatus(after, 404)
        }
    }
}
