import Crypto
import Foundation
import Testing
import TestSupport
import WOPICore
@testable import WOPIHost

/// 401 for every token that does not grant this user this resource now, and 404 for resources
/// that do not exist or belong to someone else (concepts.rst "Access token", each operation's status codes).
@Suite("Access tokens (401) and unknown resources (404)")
struct AccessTokenTests {
    /// One request per kind of endpoint, so each token rule is checked on files, containers and the ecosystem.
    private func everyEndpoint(_ host: TestHost, _ doc: Document, token: String?) async throws -> [(String, WOPIResponse)] {
        let root = doc.user.rootContainerID.rawValue
        return [
            ("CheckFileInfo", try await host.checkFileInfo(doc.id, token: token)),
            ("GetFile", try await host.getFile(doc.id, token: token)),
            ("PutFile", try await host.putFile(doc.id, token: token, lock: nil, Data())),
            ("Lock", try await host.lock(doc.id, token: token, "L")),
            ("GetLock", try await host.getLock(doc.id, token: token)),
            ("DeleteFile", try await host.deleteFile(doc.id, token: token)),
            ("CheckContainerInfo", try await host.checkContainerInfo(root, token: token)),
            ("EnumerateChildren", try await host.enumerateChildren(root, token: token)),
            ("CreateChildFile", try await host.createChildFile(root, token: token, suggested: "x.docx")),
            ("CheckEcosystem", try await host.checkEcosystem(token: token)),
            ("GetRootContainer", try await host.rootContainer(token: token)),
        ]
    }

    @Test("A missing or empty access_token is 401 everywhere")
    func missingToken() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            for (operation, response) in try await everyEndpoint(host, doc, token: nil) {
                expectStatus(response, 401, operation)
            }
            for (operation, response) in try await everyEndpoint(host, doc, token: "") {
                expectStatus(response, 401, "\(operation) with an empty token:")
            }
            // Nothing happened: the file is still there and unlocked.
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "")
        }
    }

    @Test("Forged tokens are 401: garbage, a flipped signature, another host's key, a tampered payload")
    func forgedTokens() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let flipped = doc.token.tampered(atOffsetFromEnd: 3)
            let foreignSigner = AccessTokenSigner(key: .init(data: Data(repeating: 7, count: 32)))
            let foreign = foreignSigner.issue(AccessTokenClaims(userID: doc.user.id, resource: .file(doc.file.id),
                                                                expiresAt: Date().addingTimeInterval(3600)))
            let parts = doc.token.split(separator: ".")
            // Same signature, payload for a far later expiry: the MAC no longer matches.
            let payload = Base64URL.encode(Data("\(doc.user.id)|f:\(doc.file.id)|99999999999999".utf8))
            let tampered = "\(parts[0]).\(payload).\(parts[2])"
            for token in ["garbage", "v1..", flipped, foreign, tampered, doc.token + "x", String(repeating: "a", count: 600)] {
                for (operation, response) in try await everyEndpoint(host, doc, token: token) {
                    expectStatus(response, 401, "\(operation) with token \(token.prefix(24))…:")
                }
            }
        }
    }

    @Test("An expired token is 401; it worked until its expiry")
    func expiredToken() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let shortLived = host.token(doc.user, .file(doc.file.id), notAfter: host.clock.now().addingTimeInterval(60))
            expectStatus(try await host.checkFileInfo(doc.id, token: shortLived), 200)
            host.clock.advance(by: 61)
            expectStatus(try await host.checkFileInfo(doc.id, token: shortLived), 401)
            expectStatus(try await host.lock(doc.id, token: shortLived, "L"), 401)
            // The default lifetime runs out too.
            host.clock.advance(by: host.backend.configuration.accessTokenLifetime)
            expectStatus(try await host.checkFileInfo(doc.id, token: doc.token), 401)
        }
    }

    @Test("A token for another file, a container or the ecosystem is 401 on this file")
    func tokenForAnotherResource() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("One.docx")
            let other = try await host.addFile("Two.docx", Data("2".utf8), owner: doc.user)
            let otherToken = host.token(doc.user, .file(other.id))
            expectStatus(try await host.checkFileInfo(other.id.rawValue, token: otherToken), 200)
            for token in [otherToken, host.token(doc.user, .container(doc.user.rootContainerID)), host.token(doc.user, .ecosystem)] {
                expectStatus(try await host.checkFileInfo(doc.id, token: token), 401)
                expectStatus(try await host.getFile(doc.id, token: token), 401)
                expectStatus(try await host.lock(doc.id, token: token, "L"), 401)
            }
            // And a file token does not open the container holding that file.
            expectStatus(try await host.checkContainerInfo(doc.user.rootContainerID.rawValue, token: doc.token), 401)
            expectStatus(try await host.checkEcosystem(token: doc.token), 401)
        }
    }

    @Test("A token of a removed user is 401")
    func removedUser() async throws {
        try await TestHost.run { host in
            let keeper = try await host.makeUser("keeper")
            let leaver = try await host.makeUser("leaver")
            let kept = try await host.addFile("Kept.docx", Data("k".utf8), owner: keeper)
            let file = try await host.addFile("Left.docx", Data("l".utf8), owner: leaver)
            let fileToken = host.token(leaver, .file(file.id))
            let ecosystemToken = host.token(leaver, .ecosystem)
            let containerToken = host.token(leaver, .container(leaver.rootContainerID))
            expectStatus(try await host.checkFileInfo(file.id.rawValue, token: fileToken), 200)
            _ = try await host.folder.store.removeUser(id: leaver.id)
            expectStatus(try await host.checkFileInfo(file.id.rawValue, token: fileToken), 401)
            expectStatus(try await host.checkEcosystem(token: ecosystemToken), 401)
            expectStatus(try await host.checkContainerInfo(leaver.rootContainerID.rawValue, token: containerToken), 401)
            // The other user is unaffected.
            expectStatus(try await host.checkFileInfo(kept.id.rawValue, token: host.token(keeper, .file(kept.id))), 200)
        }
    }

    @Test("Unknown and malformed ids are 404, traversal attempts included")
    func unknownIDs() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let unknown = ResourceID.random()
            let unknownToken = host.token(doc.user, .file(unknown))
            expectStatus(try await host.checkFileInfo(unknown.rawValue, token: unknownToken), 404)
            expectStatus(try await host.getFile(unknown.rawValue, token: unknownToken), 404)
            expectStatus(try await host.lock(unknown.rawValue, token: unknownToken, "L"), 404)
            expectStatus(try await host.putFile(unknown.rawValue, token: unknownToken, lock: "L", Data("x".utf8)), 404)
            let unknownContainer = ResourceID.random()
            expectStatus(try await host.checkContainerInfo(unknownContainer.rawValue,
                                                           token: host.token(doc.user, .container(unknownContainer))), 404)
            for bad in ["..%2F..%2Fetc", "..%2F..%2Fetc%2Fpasswd", "%2E%2E", "a%00b", "id.with.dots", String(repeating: "a", count: 65)] {
                expectStatus(try await host.checkFileInfo(bad, token: doc.token), 404, "file id \(bad):")
                expectStatus(try await host.getFile(bad, token: doc.token), 404, "file id \(bad):")
                expectStatus(try await host.checkContainerInfo(bad, token: doc.token), 404, "container id \(bad):")
            }
        }
    }

    @Test("Another user's file or container is 404 even with a token naming it")
    func anotherUsersResources() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Private.docx", user: "alice")
            let mallory = try await host.makeUser("mallory")
            let stolen = host.token(mallory, .file(doc.file.id))
            expectStatus(try await host.checkFileInfo(doc.id, token: stolen), 404)
            expectStatus(try await host.getFile(doc.id, token: stolen), 404)
            expectStatus(try await host.lock(doc.id, token: stolen, "L"), 404)
            expectStatus(try await host.deleteFile(doc.id, token: stolen), 404)
            let root = doc.user.rootContainerID
            let rootToken = host.token(mallory, .container(root))
            expectStatus(try await host.checkContainerInfo(root.rawValue, token: rootToken), 404)
            expectStatus(try await host.enumerateChildren(root.rawValue, token: rootToken), 404)
            expectStatus(try await host.createChildFile(root.rawValue, token: rootToken, suggested: "x.docx"), 404)
            // Alice's file is untouched.
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "")
            expectStatus(try await host.checkFileInfo(doc.id, token: doc.token), 200)
        }
    }
}
