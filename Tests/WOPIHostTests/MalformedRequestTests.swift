import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import WOPICore
@testable import WOPIHost

/// 400 for malformed requests, 413 for bodies over the maximum file size, 501 for what the host
/// does not implement (common_headers.rst, each operation's status codes).
@Suite("Malformed requests (400), size limits (413) and unknown operations (501)")
struct MalformedRequestTests {
    @Test("LOCK without X-WOPI-Lock is 400, as are REFRESH_LOCK and UNLOCK without it")
    func missingLockHeader() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            for operation in ["LOCK", "REFRESH_LOCK", "UNLOCK"] {
                expectStatus(try await host.override(TestHost.filePath(doc.id), operation, token: doc.token), 400, operation)
            }
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "")
        }
    }

    @Test("A lock of 1025 characters is 400; an empty one too")
    func overlongLock() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            expectStatus(try await host.lock(doc.id, token: doc.token, String(repeating: "x", count: 1025)), 400)
            expectStatus(try await host.lock(doc.id, token: doc.token, ""), 400)
            expectStatus(try await host.lock(doc.id, token: doc.token, "ok"), 200)
            expectStatus(try await host.unlockAndRelock(doc.id, token: doc.token, old: "ok", new: String(repeating: "y", count: 1025)), 400)
            expectStatus(try await host.unlockAndRelock(doc.id, token: doc.token, old: String(repeating: "o", count: 1025), new: "n"), 400)
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "ok")
        }
    }

    @Test("Doubled headers are 400: two X-WOPI-Lock, two X-WOPI-Override, two X-WOPI-OldLock")
    func doubledHeaders() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let path = TestHost.filePath(doc.id)
            expectStatus(try await host.override(path, "LOCK", token: doc.token, [("X-WOPI-Lock", "a"), ("X-WOPI-Lock", "b")]), 400)
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "", "a refused request must not lock")
            expectStatus(try await host.override(path, "LOCK", token: doc.token, [("X-WOPI-Override", "UNLOCK"), ("X-WOPI-Lock", "a")]), 400)
            expectStatus(try await host.lock(doc.id, token: doc.token, "a"), 200)
            expectStatus(try await host.override(path, "LOCK", token: doc.token,
                                                 [("X-WOPI-Lock", "b"), ("X-WOPI-OldLock", "a"), ("X-WOPI-OldLock", "a")]), 400)
            expectStatus(try await host.putFile(doc.id, token: doc.token, lock: "a", Data("x".utf8), [("X-WOPI-Lock", "a")]), 400)
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "a")
        }
    }

    @Test("PutRelativeFile with both X-WOPI-SuggestedTarget and X-WOPI-RelativeTarget is 400 (or 501), with neither 400")
    func bothRelativeTargets() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let both = try await host.putRelativeFile(doc.id, token: doc.token, suggested: "a.docx", relative: "b.docx", Data("x".utf8))
            #expect([400, 501].contains(both.status), "got \(both)")
            expectStatus(try await host.putRelativeFile(doc.id, token: doc.token, Data("x".utf8)), 400)
            let children = try await host.enumerateChildren(doc.user.rootContainerID.rawValue,
                                                            token: host.token(doc.user, .container(doc.user.rootContainerID))).json()
            #expect(children["ChildFiles"]?.array?.count == 1, "a refused PutRelativeFile must not create a file")
        }
    }

    @Test("Invalid UTF-7 in a name header is 400: RelativeTarget, RequestedName, container names")
    func invalidUTF7() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let root = doc.user.rootContainerID.rawValue
            let rootToken = host.token(doc.user, .container(doc.user.rootContainerID))
            for bad in ["Name+AGE", "+!bad.docx", "x+2D3-.docx", "Unfinished+"] {
                expectStatus(try await host.putRelativeFile(doc.id, token: doc.token, relative: bad, Data("x".utf8)), 400, "RelativeTarget \(bad):")
                expectStatus(try await host.renameFile(doc.id, token: doc.token, to: bad), 400, "RequestedName \(bad):")
                expectStatus(try await host.createChildFile(root, token: rootToken, relative: bad), 400, "CreateChildFile \(bad):")
                expectStatus(try await host.createChildContainer(root, token: rootToken, relative: bad), 400, "CreateChildContainer \(bad):")
            }
            #expect(try await host.checkFileInfo(doc.id, token: doc.token).json()["BaseFileName"]?.string == "Report.docx")
        }
    }

    @Test("A non-numeric X-WOPI-MaxExpectedSize is 400")
    func badMaxExpectedSize() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            expectStatus(try await host.getFile(doc.id, token: doc.token, [("X-WOPI-MaxExpectedSize", "lots")]), 400)
            expectStatus(try await host.getFile(doc.id, token: doc.token, [("X-WOPI-MaxExpectedSize", "-1")]), 400)
        }
    }

    @Test("An unknown X-WOPI-Override is 501 on files and containers; a missing one is 400")
    func unknownOverride() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let root = doc.user.rootContainerID.rawValue
            let rootToken = host.token(doc.user, .container(doc.user.rootContainerID))
            for operation in ["FROBNICATE", "COBALT", "GET_RESTRICTED_LINK"] {
                expectStatus(try await host.override(TestHost.filePath(doc.id), operation, token: doc.token), 501, "file \(operation):")
                expectStatus(try await host.override(TestHost.containerPath(root), operation, token: rootToken), 501, "container \(operation):")
            }
            expectStatus(try await host.send(.POST, TestHost.filePath(doc.id), token: doc.token), 400)
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "")
        }
    }

    @Test("GetShareUrl with an unknown X-WOPI-UrlType is 501 on files and containers")
    func unknownShareURLType() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let rootToken = host.token(doc.user, .container(doc.user.rootContainerID))
            expectStatus(try await host.fileShareURL(doc.id, token: doc.token, type: "Public"), 501)
            expectStatus(try await host.containerShareURL(doc.user.rootContainerID.rawValue, token: rootToken, type: "Public"), 501)
        }
    }

    // MARK: 413

    @Test("PutFile over the maximum file size is 413 (declared or streamed) and leaves the old content and version")
    func putFileTooLarge() async throws {
        try await TestHost.run(maximumFileSize: 4096) { host in
            let original = Data("small original".utf8)
            let doc = try await host.document("Capped.docx", original)
            expectStatus(try await host.lock(doc.id, token: doc.token, "L"), 200)
            expectStatus(try await host.putFile(doc.id, token: doc.token, lock: "L", Data(repeating: 1, count: 4097)), 413)
            // Without Content-Length (chunked): the host must notice while reading.
            let chunked = PatternBody(chunkCount: 4, chunkSize: 2048, seed: 1)
            expectStatus(try await host.putFile(doc.id, token: doc.token, lock: "L", body: .stream(chunked, length: .unknown)), 413)
            let get = try await host.getFile(doc.id, token: doc.token)
            #expect(get.body == original)
            #expect(get.header("X-WOPI-ItemVersion") == doc.file.versionString)
            // Exactly the maximum is fine.
            expectStatus(try await host.putFile(doc.id, token: doc.token, lock: "L", Data(repeating: 2, count: 4096)), 200)
        }
    }

    @Test("PutRelativeFile over the maximum file size is 413 and creates nothing")
    func putRelativeTooLarge() async throws {
        try await TestHost.run(maximumFileSize: 4096) { host in
            let doc = try await host.document()
            let response = try await host.putRelativeFile(doc.id, token: doc.token, suggested: "Copy.docx", Data(repeating: 3, count: 5000))
            expectStatus(response, 413)
            let children = try await host.enumerateChildren(doc.user.rootContainerID.rawValue,
                                                            token: host.token(doc.user, .container(doc.user.rootContainerID))).json()
            #expect(children["ChildFiles"]?.array?.compactMap { $0["Name"]?.string } == ["Report.docx"])
        }
    }
}
