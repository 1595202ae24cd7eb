import Foundation
import Testing
import WOPICore
@testable import WOPIHost

/// The PostgreSQL store answers concurrent lookups and lock changes in shared statements: over real HTTP,
/// many callers at once must each still get their own caller's answer.
@Suite("Batched lookups and lock changes on PostgreSQL over HTTP")
struct BatchedPostgresHTTPTests {
    /// One caller's request and what it must see.
    struct Call: Sendable {
        let user: UserRecord
        let file: FileRecord
        let token: String
        /// `nil`: 404, the file is not theirs to open.
        let canWrite: Bool?
    }

    @Test("112 concurrent CheckFileInfo calls from an owner, a viewer, an editor and a stranger each get their own answer",
          .timeLimit(.minutes(10)))
    func concurrentCallersGetTheirOwnAnswers() async throws {
        try await TestHost.run(database: try await StoreUnderTest.newPostgresDatabase()) { host in
            let alice = try await host.makeUser("alice"), bob = try await host.makeUser("bob")
            let carol = try await host.makeUser("carol"), dave = try await host.makeUser("dave")
            let projects = try await host.addContainer("Projects", in: alice.rootContainerID)
            let deep = try await host.addContainer("Deep", in: projects.id)
            let plan = try await host.addFile("plan.docx", Data("plan".utf8), owner: alice, in: deep.id)
            let notes = try await host.addFile("notes.docx", Data("notes".utf8), owner: alice)
            let own = try await host.addFile("own.xlsx", Data("own".utf8), owner: bob)
            _ = try await host.folder.store.share(projects.id, kind: .container, with: bob.id, role: .viewer, now: host.clock.now())
            _ = try await host.folder.store.share(notes.id, kind: .file, with: carol.id, role: .editor, now: host.clock.now())
            func call(_ user: UserRecord, _ file: FileRecord, _ canWrite: Bool?) -> Call {
                Call(user: user, file: file, token: host.token(user, .file(file.id)), canWrite: canWrite)
            }
            let kinds = [call(alice, plan, true), call(alice, notes, true), call(bob, plan, false), call(bob, notes, nil),
                         call(bob, own, true), call(carol, notes, true), call(carol, plan, nil), call(dave, plan, nil)]
            let calls = (0..<14).flatMap { _ in kinds }.shuffled()
            let answers = try await withThrowingTaskGroup(of: (Call, WOPIResponse).self) { group in
                for call in calls { group.addTask { (call, try await host.checkFileInfo(call.file.id.rawValue, token: call.token)) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.count == 112)
            for (call, response) in answers {
                let who = "\(call.user.name) on \(call.file.name)"
                guard let canWrite = call.canWrite else {
                    expectStatus(response, 404, who)
                    continue
                }
                expectStatus(response, 200, who)
                let info = try response.json()
                #expect(info["UserId"]?.string == call.user.id.rawValue, "\(who)")
                #expect(info["BaseFileName"]?.string == call.file.name, "\(who)")
                #expect(info["OwnerId"]?.string == call.file.ownerID.rawValue, "\(who)")
                #expect(info["UserCanWrite"]?.bool == canWrite, "\(who)")
            }
        }
    }

    @Test("Lock changes on 16 files at once each land on their own file, and a wrong lock is refused with the right one",
          .timeLimit(.minutes(10)))
    func concurrentLockChangesLandOnTheirOwnFiles() async throws {
        try await TestHost.run(database: try await StoreUnderTest.newPostgresDatabase()) { host in
            let alice = try await host.makeUser("alice")
            var documents: [(id: String, token: String)] = []
            for index in 0..<16 {
                let file = try await host.addFile("doc-\(index).docx", Data("doc \(index)".utf8), owner: alice)
                documents.append((file.id.rawValue, host.token(alice, .file(file.id))))
            }
            let documentList = documents
            func concurrently(_ send: @escaping @Sendable (Int, (id: String, token: String)) async throws -> WOPIResponse) async throws -> [Int: WOPIResponse] {
                try await withThrowingTaskGroup(of: (Int, WOPIResponse).self) { group in
                    for (index, document) in documentList.enumerated() { group.addTask { (index, try await send(index, document)) } }
                    return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
                }
            }
            let locked = try await concurrently { index, doc in try await host.lock(doc.id, token: doc.token, "first-\(index)") }
            let refused = try await concurrently { index, doc in try await host.lock(doc.id, token: doc.token, "other-\(index)") }
            let relocked = try await concurrently { index, doc in
                try await host.unlockAndRelock(doc.id, token: doc.token, old: "first-\(index)", new: "second-\(index)")
            }
            for (index, doc) in documents.enumerated() {
                expectStatus(try #require(locked[index]), 200, "lock \(index)")
                expectLockConflict(try #require(refused[index]), currentLock: "first-\(index)")
                expectStatus(try #require(relocked[index]), 200, "relock \(index)")
                #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "second-\(index)")
            }
            let unlocked = try await concurrently { index, doc in try await host.unlock(doc.id, token: doc.token, "second-\(index)") }
            for (index, doc) in documents.enumerated() {
                expectStatus(try #require(unlocked[index]), 200, "unlock \(index)")
                #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "")
            }
        }
    }
}
