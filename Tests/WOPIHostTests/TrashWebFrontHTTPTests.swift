import Foundation
import NIOHTTP1
import Testing
import WOPICore
@testable import WOPIHost

/// The web front's trash over plain HTTP, as a browser without JavaScript uses it: the confirmation is
/// a GET that changes nothing, the delete and the restore are POSTs that need the CSRF token, and
/// nobody restores or even sees another user's trashed items.
@Suite("Trash in the web front over HTTP")
struct TrashWebFrontHTTPTests {
    typealias Visitor = WebFrontHTTPTests.Visitor

    @Test("the confirmation changes nothing; delete and restore need the CSRF token; a taken name is refused with 409")
    func confirmDeleteRestore() async throws {
        try await WebFrontHTTPTests.withUser { host, user in
            let store = host.folder.store
            let file = try await host.addFile("Plan.docx", Data("plan".utf8), owner: user)
            var visitor = Visitor(host: host)
            _ = try await visitor.signIn()

            let confirm = try await visitor.send(.GET, "/files/\(file.id.rawValue)/delete")
            #expect(confirm.status == 200 && confirm.html.contains("id=\"confirm-delete\"") && confirm.html.contains("Plan.docx"))
            #expect(try await store.file(id: file.id) != nil, "asking is not deleting")
            #expect(try await visitor.send(.POST, "/files/\(file.id.rawValue)/delete", form: []).status == 403)
            #expect(try await store.file(id: file.id) != nil)

            let csrf = try #require(Visitor.csrf(in: confirm))
            let deleted = try await visitor.send(.POST, "/files/\(file.id.rawValue)/delete", form: [("csrf", csrf)])
            #expect(deleted.status == 303 && deleted.header("Location") == "/trash?moved=\(file.id.rawValue)")
            let trash = try await visitor.send(.GET, "/trash?moved=\(file.id.rawValue)")
            #expect(trash.status == 200 && trash.html.contains("Moved to Trash: “Plan.docx”") && trash.html.contains("id=\"undo\""))
            #expect(try await store.file(id: file.id) == nil)

            #expect(try await visitor.send(.POST, "/trash/\(file.id.rawValue)/restore", form: [("csrf", "guess")]).status == 403)
            _ = try await host.addFile("plan.docx", Data("newer".utf8), owner: user)
            let taken = try await visitor.send(.POST, "/trash/\(file.id.rawValue)/restore", form: [("csrf", csrf)])
            #expect(taken.status == 409 && taken.html.contains("“Plan.docx” already exists where it would go back to"), "\(taken.status)")
            #expect(try await store.trashedItems(ownedBy: user.id).map(\.id) == [file.id])
        }
    }

    @Test("another user's trashed item is neither listed nor restored")
    func foreignTrash() async throws {
        try await WebFrontHTTPTests.withUser { host, _ in
            let dave = try await host.makeUser("dave")
            let davesFile = try await host.addFile("Secret.docx", Data("s".utf8), owner: dave)
            _ = try await host.folder.store.trashFile(davesFile.id, lock: nil, now: Date())
            var visitor = Visitor(host: host)
            _ = try await visitor.signIn()
            let trash = try await visitor.send(.GET, "/trash")
            #expect(trash.status == 200 && !trash.html.contains("Secret.docx") && trash.html.contains("The Trash is empty."))
            let csrf = try #require(Visitor.csrf(in: trash))
            #expect(try await visitor.send(.POST, "/trash/\(davesFile.id.rawValue)/restore", form: [("csrf", csrf)]).status == 404)
            #expect(try await visitor.send(.GET, "/files/\(davesFile.id.rawValue)/delete").status == 404)
            #expect(try await host.folder.store.trashedItems(ownedBy: dave.id).map(\.id) == [davesFile.id])
        }
    }

    @Test("delete forever and empty the Trash ask first, need the CSRF token, reach only the user's own trash, and take the bodies")
    func deleteForeverAndEmpty() async throws {
        try await WebFrontHTTPTests.withUser { host, user in
            let store = host.folder.store
            let dave = try await host.makeUser("dave")
            let davesFile = try await host.addFile("Secret.docx", Data("s".utf8), owner: dave)
            _ = try await store.trashFile(davesFile.id, lock: nil, now: Date())
            let plan = try await host.addFile("Plan.docx", Data("plan".utf8), owner: user)
            let notes = try await host.addFile("Notes.docx", Data("notes".utf8), owner: user)
            let box = try await host.addContainer("Box", in: user.rootContainerID)
            let inBox = try await host.addFile("In.docx", Data("in".utf8), owner: user, in: box.id)
            _ = try await store.trashFile(plan.id, lock: nil, now: Date())
            _ = try await store.trashFile(notes.id, lock: nil, now: Date())
            _ = try await store.trashContainer(box.id, onlyIfEmpty: false, now: Date())
            var visitor = Visitor(host: host)
            _ = try await visitor.signIn()

            let trash = try await visitor.send(.GET, "/trash")
            #expect(trash.html.contains("href=\"/trash/\(plan.id.rawValue)/delete\"") && trash.html.contains("id=\"empty-trash\" class=\"danger\" href=\"/trash/empty\""))
            let confirm = try await visitor.send(.GET, "/trash/\(plan.id.rawValue)/delete")
            #expect(confirm.status == 200 && confirm.html.contains("Delete “Plan.docx” forever?") && confirm.html.contains("This cannot be undone."))
            #expect(try await store.trashedItems(ownedBy: user.id).count == 3, "asking is not deleting")
            let csrf = try #require(Visitor.csrf(in: confirm))
            #expect(try await visitor.send(.POST, "/trash/\(plan.id.rawValue)/delete", form: [("csrf", "guess")]).status == 403)
            #expect(try await visitor.send(.GET, "/trash/\(davesFile.id.rawValue)/delete").status == 404)
            #expect(try await visitor.send(.POST, "/trash/\(davesFile.id.rawValue)/delete", form: [("csrf", csrf)]).status == 404)

            let deleted = try await visitor.send(.POST, "/trash/\(plan.id.rawValue)/delete", form: [("csrf", csrf)])
            #expect(deleted.status == 303 && deleted.header("Location") == "/trash")
            #expect(Set(try await store.trashedItems(ownedBy: user.id).map(\.id)) == [notes.id, box.id])
            await #expect(throws: WOPIStoreError.notFound, "gone for good") { try await store.restoreFromTrash(plan.id, as: nil) }

            let emptyConfirm = try await visitor.send(.GET, "/trash/empty?lang=de")
            #expect(emptyConfirm.status == 200 && emptyConfirm.html.contains("Papierkorb leeren?"))
            #expect(try await visitor.send(.POST, "/trash/empty", form: []).status == 403)
            let emptied = try await visitor.send(.POST, "/trash/empty", form: [("csrf", csrf)])
            #expect(emptied.status == 303 && emptied.header("Location") == "/trash")
            #expect(try await store.trashedItems(ownedBy: user.id).isEmpty)
            #expect(try await store.trashedItems(ownedBy: dave.id).map(\.id) == [davesFile.id], "only the user's own trash")
            #expect(try await visitor.send(.GET, "/trash").html.contains("The Trash is empty."))
            // The bodies go once the grace period of an open download has passed; the database no longer names them.
            let referenced = try await store.referencedBlobs()
            #expect(![plan.blobKey, notes.blobKey, inBox.blobKey].contains(where: referenced.contains))
        }
    }
}
