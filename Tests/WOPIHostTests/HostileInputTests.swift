import AsyncHTTPClient
import Foundation
import TestSupport
import NIOCore
import NIOHTTP1
import Testing
import WOPICore
@testable import WOPIHost

/// The hostile-input suite: oversized, malformed, contradictory, cut-off and racing
/// requests over real HTTP. Every case checks the answer the protocol names and then proves,
/// with a ``HostileSnapshot``, that nothing changed: bytes, Version, lock, files, stored bodies.
@Suite("Hostile input")
struct HostileInputTests {
    /// Every character Office for iOS refuses in a name (issues/invalidcharacters.rst).
    static let refusedCharacters = Array(#"\/:*?"<>|#{}^[]`%"#)

    /// A locked document with known content: the usual victim.
    static func victim(_ host: TestHost, lock: String = "hostile-suite-lock") async throws -> Document {
        let doc = try await host.document("Victim.docx", Data("the original bytes of the victim".utf8))
        expectStatus(try await host.lock(doc.id, token: doc.token, lock), 200)
        return doc
    }

    /// A raw request head for `path` with the document's token.
    static func head(_ method: String, _ path: String, token: String?, _ headers: [String]) -> [String] {
        let target = token.map { "\(path)?access_token=\(TestHost.queryEscaped($0))" } ?? path
        return ["\(method) \(target) HTTP/1.1", "Host: 127.0.0.1", "Connection: close"] + headers
    }

    // MARK: Headers far over the limits

    @Test("A 64 KiB and a 1 MiB X-WOPI-Lock are refused (400, or 431 from the HTTP layer) on every lock operation and on PutFile")
    func hugeLockHeaders() async throws {
        try await TestHost.run { host in
            let doc = try await Self.victim(host)
            let before = try await host.snapshot(doc)
            let path = TestHost.filePath(doc.id)
            for size in [64 * 1024, 1024 * 1024] {
                let huge = String(repeating: "L", count: size)
                let requests: [(String, [String], [UInt8])] = [
                    ("LOCK", Self.head("POST", path, token: doc.token, ["X-WOPI-Override: LOCK", "X-WOPI-Lock: \(huge)", "Content-Length: 0"]), []),
                    ("REFRESH_LOCK", Self.head("POST", path, token: doc.token, ["X-WOPI-Override: REFRESH_LOCK", "X-WOPI-Lock: \(huge)", "Content-Length: 0"]), []),
                    ("UNLOCK", Self.head("POST", path, token: doc.token, ["X-WOPI-Override: UNLOCK", "X-WOPI-Lock: \(huge)", "Content-Length: 0"]), []),
                    ("UnlockAndRelock", Self.head("POST", path, token: doc.token, ["X-WOPI-Override: LOCK", "X-WOPI-Lock: new",
                                                                                 "X-WOPI-OldLock: \(huge)", "Content-Length: 0"]), []),
                    ("PutFile", Self.head("POST", path + "/contents", token: doc.token, ["X-WOPI-Override: PUT", "X-WOPI-Lock: \(huge)",
                                                                                       "Content-Length: 5"]), Array("owned".utf8)),
                ]
                for (name, head, body) in requests {
                    let outcome = try await RawHTTPConnection.exchange(port: host.port, head: head, body: body)
                    if size > 80 * 1024 {
                        // Over the HTTP layer's 80 KiB header limit the connection may be cut before the request is
                        // read, and a reset can swallow the answer: a refusal or a closed connection, never success.
                        #expect(outcome.status == nil || [400, 431].contains(outcome.status!), "\(name) with a \(size)-byte lock: \(outcome)")
                    } else {
                        #expect([400, 431].contains(outcome.status ?? 0), "\(name) with a \(size)-byte lock: \(outcome)")
                    }
                    if let error = outcome.response?.header("X-WOPI-ServerError") {
                        #expect(error.count < 512, "\(name): the reason echoes the oversized header (\(error.count) characters)")
                    }
                }
            }
            expectUnchanged(before, try await host.snapshot(doc), "huge X-WOPI-Lock")
        }
    }

    @Test("A 64 KiB value in an unrelated header, and a 1 MiB header block, never produce a 5xx or change anything")
    func hugeUnrelatedHeaders() async throws {
        try await TestHost.run { host in
            let doc = try await Self.victim(host)
            let before = try await host.snapshot(doc)
            let one = try await RawHTTPConnection.exchange(
                port: host.port, head: Self.head("GET", TestHost.filePath(doc.id), token: doc.token, ["X-Junk: \(String(repeating: "j", count: 64 * 1024))"]))
            #expect([200, 400, 431].contains(one.status ?? 0), "64 KiB junk header on CheckFileInfo: \(one)")
            let many = (0..<16).map { "X-Junk-\($0): \(String(repeating: "j", count: 64 * 1024))" }
            let block = try await RawHTTPConnection.exchange(
                port: host.port,
                head: Self.head("POST", TestHost.filePath(doc.id) + "/contents", token: doc.token,
                                ["X-WOPI-Override: PUT", "X-WOPI-Lock: hostile-suite-lock", "Content-Length: 5"] + many),
                body: Array("owned".utf8))
            // A host may refuse such a head (400/431) or drop the connection; if it serves the request, the PutFile is legitimate.
            if block.status == 200 {
                #expect(try await host.getFile(doc.id, token: doc.token).body == Data("owned".utf8))
            } else {
                #expect(block.status == nil || [400, 431].contains(block.status!), "1 MiB header block: \(block)")
                expectUnchanged(before, try await host.snapshot(doc), "1 MiB header block")
            }
        }
    }

    @Test("Oversized name, override and size headers: 400 or 501 with a short reason, nothing created or renamed")
    func oversizedProtocolHeaders() async throws {
        try await TestHost.run { host in
            let doc = try await Self.victim(host)
            let root = doc.user.rootContainerID.rawValue
            let rootToken = host.token(doc.user, .container(doc.user.rootContainerID))
            let before = try await host.snapshot(doc)
            // 7 KiB: far over every name limit, yet under the 8 KiB header-field limit, past which
            // the request gets 431 before the protocol rules tested here see it (OperationsCLITests covers 431).
            let long = String(repeating: "a", count: 7 * 1024)

            let relative = try await host.putRelativeFile(doc.id, token: doc.token, relative: long + ".docx", Data("x".utf8))
            expectStatus(relative, 400, "7 KiB RelativeTarget:")
            let rename = try await host.renameFile(doc.id, token: doc.token, to: long, lock: "hostile-suite-lock")
            expectStatus(rename, 400, "7 KiB RequestedName:")
            #expect(rename.header("X-WOPI-InvalidFileNameError") != nil, "RenameFile 400 must name the problem")
            expectStatus(try await host.createChildContainer(root, token: rootToken, relative: long), 400, "7 KiB container name:")
            expectStatus(try await host.renameContainer(root, token: rootToken, to: long), 400, "7 KiB container rename:")
            let override = try await host.override(TestHost.filePath(doc.id), long, token: doc.token)
            expectStatus(override, 501, "7 KiB X-WOPI-Override:")
            #expect((override.header("X-WOPI-ServerError")?.count ?? 0) < 512, "the reason must not echo 7 KiB back")
            #expect(override.body.count < 1024, "the body must not echo 7 KiB back (\(override.body.count) bytes)")
            for size in ["99999999999999999999999", String(repeating: "9", count: 7 * 1024), "1e3", "0x10", " "] {
                expectStatus(try await host.getFile(doc.id, token: doc.token, [("X-WOPI-MaxExpectedSize", size)]), 400,
                             "X-WOPI-MaxExpectedSize \(size.prefix(24)):")
            }
            expectUnchanged(before, try await host.snapshot(doc), "oversized protocol headers")

            // Suggested mode must make any name legal, so a 7 KiB suggestion may succeed, but only with a bounded, safe name.
            let suggested = try await host.putRelativeFile(doc.id, token: doc.token, suggested: long + ".docx", Data("copy".utf8))
            if suggested.status == 200 {
                let name = try #require(try suggested.json()["Name"]?.string)
                #expect(name.utf8.count <= 255 && isOfficeSafe(name) && name.hasSuffix(".docx"), "suggested 7 KiB name became '\(name.prefix(80))…' (\(name.utf8.count) bytes)")
            } else {
                expectStatus(suggested, 400, "7 KiB SuggestedTarget:")
            }
        }
    }

    // MARK: Locks at the limit

    @Test("A lock of 1025 characters is 400 everywhere, even when its first 1024 are the current lock")
    func lockOf1025Characters() async throws {
        try await TestHost.run { host in
            let current = String((0..<1024).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789".randomElement()! })
            let doc = try await Self.victim(host, lock: current) // 1024 characters is the largest lock allowed
            let tooLong = current + "x"
            let before = try await host.snapshot(doc)
            #expect(before.lock == current)
            let path = TestHost.filePath(doc.id)
            expectStatus(try await host.lock(doc.id, token: doc.token, tooLong), 400, "LOCK:")
            expectStatus(try await host.refreshLock(doc.id, token: doc.token, tooLong), 400, "REFRESH_LOCK:")
            expectStatus(try await host.unlock(doc.id, token: doc.token, tooLong), 400, "UNLOCK:")
            expectStatus(try await host.unlockAndRelock(doc.id, token: doc.token, old: tooLong, new: "next"), 400, "UnlockAndRelock old:")
            expectStatus(try await host.unlockAndRelock(doc.id, token: doc.token, old: current, new: tooLong), 400, "UnlockAndRelock new:")
            expectStatus(try await host.putFile(doc.id, token: doc.token, lock: tooLong, Data("owned".utf8)), 400, "PutFile:")
            expectStatus(try await host.renameFile(doc.id, token: doc.token, to: "Renamed", lock: tooLong), 400, "RenameFile:")
            // Not ASCII, or with control characters: not a lock either (sent raw; client libraries refuse such bytes).
            for bad in ["lock-\u{e9}t\u{e9}", "tab\there", "del\u{7f}"] {
                let outcome = try await RawHTTPConnection.exchange(
                    port: host.port, head: Self.head("POST", path, token: doc.token, ["X-WOPI-Override: UNLOCK", "X-WOPI-Lock: \(bad)", "Content-Length: 0"]))
                #expect([400, 409].contains(outcome.status ?? 0), "UNLOCK with \(bad.debugDescription): \(outcome)")
            }
            expectUnchanged(before, try await host.snapshot(doc), "1025-character lock")
        }
    }

    // MARK: Names

    @Test("Invalid UTF-7 in X-WOPI-SuggestedTarget, X-WOPI-RelativeTarget and X-WOPI-RequestedName is 400 and creates or renames nothing")
    func invalidUTF7() async throws {
        try await TestHost.run { host in
            let doc = try await Self.victim(host)
            let root = doc.user.rootContainerID.rawValue
            let rootToken = host.token(doc.user, .container(doc.user.rootContainerID))
            let before = try await host.snapshot(doc)
            // Unterminated shift, empty shift, lone high and low surrogates, bad base64, two high surrogates, DEL.
            let invalid = ["+", "Unfinished+", "+!x.docx", "+2D3-.docx", "+3gA-.docx", "x+2D3YAA-.docx", "+2D3YAA2D3-.docx"]
            for bad in invalid {
                expectStatus(try await host.putRelativeFile(doc.id, token: doc.token, suggested: bad, Data("x".utf8)), 400, "SuggestedTarget \(bad.debugDescription):")
                expectStatus(try await host.putRelativeFile(doc.id, token: doc.token, relative: bad, Data("x".utf8)), 400, "RelativeTarget \(bad.debugDescription):")
                expectStatus(try await host.renameFile(doc.id, token: doc.token, to: bad, lock: "hostile-suite-lock"), 400, "RequestedName \(bad.debugDescription):")
                expectStatus(try await host.createChildFile(root, token: rootToken, suggested: bad), 400, "CreateChildFile suggested \(bad.debugDescription):")
                expectStatus(try await host.createChildContainer(root, token: rootToken, suggested: bad), 400, "CreateChildContainer suggested \(bad.debugDescription):")
                expectStatus(try await host.renameContainer(root, token: rootToken, to: bad), 400, "RenameContainer \(bad.debugDescription):")
            }
            // Raw UTF-8 bytes and DEL are not UTF-7 at all (sent raw: client libraries refuse such header bytes).
            for header in ["X-WOPI-SuggestedTarget", "X-WOPI-RelativeTarget"] {
                for value in ["R\u{e9}sum\u{e9}.docx", "del\u{7f}.docx"] {
                    let outcome = try await RawHTTPConnection.exchange(
                        port: host.port,
                        head: Self.head("POST", TestHost.filePath(doc.id), token: doc.token,
                                        ["X-WOPI-Override: PUT_RELATIVE", "\(header): \(value)", "X-WOPI-Size: 1", "Content-Length: 1"]),
                        body: [0x78])
                    #expect(outcome.status == 400, "\(header) \(value.debugDescription): \(outcome)")
                }
            }
            expectUnchanged(before, try await host.snapshot(doc), "invalid UTF-7")
        }
    }

    @Test("Every character Office refuses, and control characters, in an exact name: 400 with the problem named, nothing changes")
    func refusedCharactersInNames() async throws {
        try await TestHost.run { host in
            let doc = try await Self.victim(host)
            let root = doc.user.rootContainerID.rawValue
            let rootToken = host.token(doc.user, .container(doc.user.rootContainerID))
            let sub = try await host.addContainer("Sub", in: doc.user.rootContainerID)
            let subToken = host.token(doc.user, .container(sub.id))
            let before = try await host.snapshot(doc)
            let characters = Self.refusedCharacters.map(String.init) + ["\u{0}", "\u{1}", "\u{1f}", "\u{7f}", "\u{2028}"]
            for character in characters {
                let name = "Bad\(character)Name"
                let label = "name with \(character.debugDescription)"
                let relative = try await host.putRelativeFile(doc.id, token: doc.token, relative: UTF7.encode(name + ".docx"), Data("x".utf8))
                expectStatus(relative, 400, "PutRelativeFile \(label):")
                if let valid = relative.header("X-WOPI-ValidRelativeTarget") {
                    let decoded = try UTF7.decode(valid)
                    #expect(isOfficeSafe(decoded) && !decoded.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f },
                            "X-WOPI-ValidRelativeTarget '\(decoded.debugDescription)' is not a valid name")
                }
                let rename = try await host.renameFile(doc.id, token: doc.token, to: UTF7.encode(name), lock: "hostile-suite-lock")
                expectStatus(rename, 400, "RenameFile \(label):")
                #expect(rename.header("X-WOPI-InvalidFileNameError") != nil, "RenameFile \(label): no X-WOPI-InvalidFileNameError")
                let childFile = try await host.createChildFile(root, token: rootToken, relative: UTF7.encode(name + ".xlsx"))
                expectStatus(childFile, 400, "CreateChildFile \(label):")
                let childContainer = try await host.createChildContainer(root, token: rootToken, relative: UTF7.encode(name))
                expectStatus(childContainer, 400, "CreateChildContainer \(label):")
                let renameContainer = try await host.renameContainer(sub.id.rawValue, token: subToken, to: UTF7.encode(name))
                expectStatus(renameContainer, 400, "RenameContainer \(label):")
                #expect(renameContainer.header("X-WOPI-InvalidContainerNameError") != nil, "RenameContainer \(label): no X-WOPI-InvalidContainerNameError")
            }
            // Traversal and reserved spellings are not names either.
            for name in ["..", ".", "../../etc/passwd", "..\\..\\wopi.sqlite", "/etc/passwd"] {
                expectStatus(try await host.putRelativeFile(doc.id, token: doc.token, relative: UTF7.encode(name), Data("x".utf8)), 400,
                             "RelativeTarget \(name):")
                expectStatus(try await host.createChildContainer(root, token: rootToken, relative: UTF7.encode(name)), 400, "container \(name):")
            }
            expectUnchanged(before, try await host.snapshot(doc), "refused characters")
        }
    }

    // MARK: Identifiers

    @Test("Ids like ..%2F..%2Fetc, %00 and very long ones are 4xx on every route, never served or written")
    func hostileIdentifiers() async throws {
        try await TestHost.run { host in
            let doc = try await Self.victim(host)
            let rootToken = host.token(doc.user, .container(doc.user.rootContainerID))
            let before = try await host.snapshot(doc)
            let dataFolderBefore = Set(FileManager.default.enumerator(atPath: host.dataURL.path)?.compactMap { $0 as? String } ?? [])
            let ids = ["..%2F..%2Fetc", "..%2F..%2F..%2Fetc%2Fpasswd", "%2e%2e%2f%2e%2e%2fwopi.sqlite", "..", "%2E%2E", "%00",
                       "\(doc.id)%00", "\(doc.id)%2F..%2F..", "%2F", "~root", "a%20b", "%C0%AE%C0%AE%2F",
                       String(repeating: "a", count: 65), String(repeating: "0", count: 8 * 1024), doc.id.uppercased() + "%0D%0AX-Injected:%201"]
            // Sent raw, exactly as written: a client library would re-encode or refuse some of these.
            for id in ids {
                let label = "id \(id.prefix(40))"
                let requests: [(String, [String], [UInt8])] = [
                    ("CheckFileInfo", Self.head("GET", TestHost.filePath(id), token: doc.token, []), []),
                    ("GetFile", Self.head("GET", TestHost.filePath(id) + "/contents", token: doc.token, []), []),
                    ("PutFile", Self.head("POST", TestHost.filePath(id) + "/contents", token: doc.token,
                                          ["X-WOPI-Override: PUT", "X-WOPI-Lock: hostile-suite-lock", "Content-Length: 5"]), Array("owned".utf8)),
                    ("Lock", Self.head("POST", TestHost.filePath(id), token: doc.token, ["X-WOPI-Override: LOCK", "X-WOPI-Lock: other", "Content-Length: 0"]), []),
                    ("DeleteFile", Self.head("POST", TestHost.filePath(id), token: doc.token, ["X-WOPI-Override: DELETE", "Content-Length: 0"]), []),
                    ("CheckContainerInfo", Self.head("GET", TestHost.containerPath(id), token: rootToken, []), []),
                    ("CreateChildFile", Self.head("POST", TestHost.containerPath(id), token: rootToken,
                                                  ["X-WOPI-Override: CREATE_CHILD_FILE", "X-WOPI-SuggestedTarget: x.docx", "Content-Length: 0"]), []),
                ]
                for (operation, head, body) in requests {
                    let outcome = try await RawHTTPConnection.exchange(port: host.port, head: head, body: body)
                    #expect([400, 401, 404, 414].contains(outcome.status ?? 0), "\(operation) \(label): \(outcome)")
                    #expect(outcome.response?.header("X-Injected") == nil, "\(operation) \(label): header injection")
                    let text = outcome.response.map { String(decoding: $0.body, as: UTF8.self) } ?? ""
                    #expect(!text.contains("root:") && !text.contains("SQLite format"), "\(operation) \(label): leaked a file")
                }
            }
            // Dot segments in the raw request target.
            for target in ["/wopi/files/../../../../etc/passwd", "/wopi/files/%2e%2e/%2e%2e/wopi.sqlite", "/wopi/files/\(doc.id)/../../../wopi.sqlite",
                           "/wopi/files/\(doc.id)/contents/../../../../etc/passwd"] {
                let outcome = try await RawHTTPConnection.exchange(
                    port: host.port, head: ["GET \(target)?access_token=\(doc.token) HTTP/1.1", "Host: 127.0.0.1", "Connection: close"])
                #expect([400, 401, 404].contains(outcome.status ?? 0), "GET \(target): \(outcome)")
                let body = outcome.response.map { String(decoding: $0.body, as: UTF8.self) } ?? ""
                #expect(!body.contains("root:") && !body.contains("SQLite format"), "GET \(target) leaked a file")
            }
            expectUnchanged(before, try await host.snapshot(doc), "hostile ids")
            let dataFolderAfter = Set(FileManager.default.enumerator(atPath: host.dataURL.path)?.compactMap { $0 as? String } ?? [])
            #expect(dataFolderAfter.subtracting(dataFolderBefore).filter { !$0.hasPrefix("wopi.sqlite") }.isEmpty,
                    "new paths in the data folder: \(dataFolderAfter.subtracting(dataFolderBefore))")
        }
    }

    // MARK: Overrides

    @Test("Unknown X-WOPI-Override values are 501 on files and containers; operations of the other endpoint too; nothing changes")
    func unknownOverrides() async throws {
        try await TestHost.run { host in
            let doc = try await Self.victim(host)
            let sub = try await host.addContainer("Sub", in: doc.user.rootContainerID)
            let subToken = host.token(doc.user, .container(sub.id))
            let before = try await host.snapshot(doc)
            let unknown = ["lock", "Lock", "PUT", "LOCK_EVERYTHING", "DELETE_CONTAINER", "CREATE_CHILD_FILE", "RENAME_CONTAINER",
                           String(repeating: "X", count: 8000)] // the longest under the 8 KiB header-field limit
            for operation in unknown {
                let response = try await host.override(TestHost.filePath(doc.id), operation, token: doc.token,
                                                        [("X-WOPI-Lock", "hostile-suite-lock"), ("X-WOPI-RequestedName", "Renamed")])
                expectStatus(response, 501, "file override \(operation.prefix(24).debugDescription):")
            }
            for operation in ["PUT_RELATIVE", "RENAME_FILE", "PUT", "LOCK", "UNLOCK", "lock", "delete_container"] {
                let response = try await host.override(TestHost.containerPath(sub.id.rawValue), operation, token: subToken,
                                                       [("X-WOPI-RequestedName", "Renamed"), ("X-WOPI-Lock", "x")])
                expectStatus(response, 501, "container override \(operation):")
            }
            // PutFile's endpoint only knows PUT.
            for operation in ["LOCK", "PUT_RELATIVE", "put"] {
                let response = try await host.override(TestHost.filePath(doc.id) + "/contents", operation, token: doc.token,
                                                       [("X-WOPI-Lock", "hostile-suite-lock")], body: Data("owned".utf8))
                #expect([400, 501].contains(response.status), "/contents with \(operation): \(response)")
            }
            // Bytes outside ASCII in the override (raw).
            let raw = try await RawHTTPConnection.exchange(
                port: host.port, head: Self.head("POST", TestHost.filePath(doc.id), token: doc.token,
                                                 ["X-WOPI-Override: L\u{d6}CK", "X-WOPI-Lock: other", "Content-Length: 0"]))
            #expect([400, 501].contains(raw.status ?? 0), "non-ASCII override: \(raw)")
            expectUnchanged(before, try await host.snapshot(doc), "unknown overrides")
            #expect(try await host.checkContainerInfo(sub.id.rawValue, token: subToken).json()["Name"]?.string == "Sub")
        }
    }

    // MARK: Missing and doubled headers

    @Test("Missing and doubled headers are 400: override, lock, names, sizes; same value twice and case-variant names too")
    func missingAndDoubledHeaders() async throws {
        try await TestHost.run { host in
            let doc = try await Self.victim(host)
            let path = TestHost.filePath(doc.id)
            let before = try await host.snapshot(doc)
            let body = HTTPClientRequest.Body.bytes(ByteBuffer(string: "owned"))
            expectStatus(try await host.send(.POST, path + "/contents", token: doc.token, headers: [("X-WOPI-Lock", "hostile-suite-lock")], body: body),
                         400, "PutFile without X-WOPI-Override:")
            expectStatus(try await host.send(.POST, path + "/contents", token: doc.token,
                                             headers: [("X-WOPI-Override", "PUT"), ("X-WOPI-Override", "PUT"), ("X-WOPI-Lock", "hostile-suite-lock")], body: body),
                         400, "PutFile with X-WOPI-Override twice:")
            expectStatus(try await host.putFile(doc.id, token: doc.token, lock: "hostile-suite-lock", Data("owned".utf8), [("x-wopi-lock", "hostile-suite-lock")]),
                         400, "PutFile with the same lock twice (case-variant name):")
            expectStatus(try await host.override(path, "UNLOCK", token: doc.token, [("X-WOPI-Lock", "hostile-suite-lock"), ("X-WOPI-LOCK", "hostile-suite-lock")]),
                         400, "UNLOCK with the lock twice:")
            expectStatus(try await host.override(path, "LOCK", token: doc.token, [("X-WOPI-Lock", "a"), ("X-WOPI-OldLock", "hostile-suite-lock"),
                                                                                  ("X-WOPI-OldLock", "other")]), 400, "UnlockAndRelock with two old locks:")
            expectStatus(try await host.override(path, "LOCK", token: doc.token, [("X-WOPI-OldLock", "hostile-suite-lock")]), 400,
                         "UnlockAndRelock without X-WOPI-Lock:")
            expectStatus(try await host.override(path, "RENAME_FILE", token: doc.token, [("X-WOPI-Lock", "hostile-suite-lock")]), 400,
                         "RenameFile without X-WOPI-RequestedName:")
            expectStatus(try await host.override(path, "RENAME_FILE", token: doc.token, [("X-WOPI-Lock", "hostile-suite-lock"),
                                                                                         ("X-WOPI-RequestedName", "A"), ("X-WOPI-RequestedName", "B")]),
                         400, "RenameFile with two names:")
            expectStatus(try await host.putRelativeFile(doc.id, token: doc.token, relative: "A.docx", Data("x".utf8), [("X-WOPI-RelativeTarget", "B.docx")]),
                         400, "PutRelativeFile with two RelativeTarget:")
            expectStatus(try await host.putRelativeFile(doc.id, token: doc.token, suggested: "A.docx", Data("x".utf8), [("X-WOPI-SuggestedTarget", ".docx")]),
                         400, "PutRelativeFile with two SuggestedTarget:")
            expectStatus(try await host.getFile(doc.id, token: doc.token, [("X-WOPI-MaxExpectedSize", "10"), ("X-WOPI-MaxExpectedSize", "99999")]),
                         400, "GetFile with two X-WOPI-MaxExpectedSize:")
            expectUnchanged(before, try await host.snapshot(doc), "missing and doubled headers")
        }
    }

    @Test("Contradictory body framing (two Content-Length, Content-Length with chunked, bad chunk sizes) never lands a write")
    func contradictoryFraming() async throws {
        try await TestHost.run { host in
            let doc = try await Self.victim(host)
            let before = try await host.snapshot(doc)
            let put = Self.head("POST", TestHost.filePath(doc.id) + "/contents", token: doc.token, ["X-WOPI-Override: PUT", "X-WOPI-Lock: hostile-suite-lock"])
            let cases: [(String, [String], String)] = [
                ("two different Content-Length", ["Content-Length: 5", "Content-Length: 11"], "ownedsmuggl"),
                ("Content-Length list", ["Content-Length: 5, 11"], "ownedsmuggl"),
                ("negative Content-Length", ["Content-Length: -5"], "owned"),
                ("Content-Length beyond Int64", ["Content-Length: 99999999999999999999999"], "owned"),
                ("Content-Length and chunked", ["Content-Length: 5", "Transfer-Encoding: chunked"], "5\r\nowned\r\n0\r\n\r\n"),
                ("chunk size beyond Int64", ["Transfer-Encoding: chunked"], "FFFFFFFFFFFFFFFFFFFFFF\r\nowned\r\n0\r\n\r\n"),
                ("chunk size not hex", ["Transfer-Encoding: chunked"], "zz\r\nowned\r\n0\r\n\r\n"),
                ("unknown transfer coding", ["Transfer-Encoding: gzip, chunked, identity"], "5\r\nowned\r\n0\r\n\r\n"),
            ]
            for (label, headers, body) in cases {
                let outcome = try await RawHTTPConnection.exchange(port: host.port, head: put + headers, body: Array(body.utf8))
                #expect(outcome.status == nil || [400, 411, 413, 501].contains(outcome.status!), "\(label): \(outcome)")
            }
            expectUnchanged(before, try await host.snapshot(doc), "contradictory framing")
        }
    }

    // MARK: Bodies over the limit

    @Test("Bodies over --max-file-size are 413 whether declared, streamed or chunked, and the old content stays whole")
    func bodiesOverTheLimit() async throws {
        let maximum = 64 * 1024
        try await TestHost.run(maximumFileSize: Int64(maximum)) { host in
            let doc = try await Self.victim(host)
            let before = try await host.snapshot(doc)
            let put = Self.head("POST", TestHost.filePath(doc.id) + "/contents", token: doc.token, ["X-WOPI-Override: PUT", "X-WOPI-Lock: hostile-suite-lock"])

            // 1 TiB declared, nothing sent: the answer must come from the header alone. No byte of the body ever
            // follows, so any answer at all shows the host did not wait for it (no clock needed).
            let declared = try await RawHTTPConnection.exchange(port: host.port, head: put + ["Content-Length: 1099511627776"])
            #expect(declared.status == 413, "1 TiB declared: \(declared)")

            // One byte over, sent whole.
            let over = try await RawHTTPConnection.exchange(port: host.port, head: put + ["Content-Length: \(maximum + 1)"],
                                                            body: [UInt8](repeating: 0x41, count: maximum + 1))
            #expect(over.status == 413, "max + 1 bytes: \(over)")

            // Chunked, so only counting can tell: 4 MiB in 64 KiB chunks.
            var chunked: [UInt8] = []
            for _ in 0..<64 {
                chunked += Array("10000\r\n".utf8) + [UInt8](repeating: 0x42, count: 65536) + Array("\r\n".utf8)
            }
            chunked += Array("0\r\n\r\n".utf8)
            let streamed = try await RawHTTPConnection.exchange(port: host.port, head: put + ["Transfer-Encoding: chunked"], body: chunked)
            #expect(streamed.status == 413 || streamed.status == nil, "4 MiB chunked: \(streamed)")

            // PutUserInfo is capped at 64 KiB by the host itself.
            let info = try await host.putUserInfo(doc.id, token: doc.token, String(repeating: "i", count: 1024 * 1024))
            #expect([400, 413].contains(info.status), "1 MiB PutUserInfo: \(info)")

            // PutRelativeFile over the limit, even in suggested mode, creates nothing.
            expectStatus(try await host.putRelativeFile(doc.id, token: doc.token, suggested: ".docx", Data(repeating: 0x43, count: maximum + 1)), 413,
                         "PutRelativeFile over the limit:")
            #expect(try await host.stagingSettles().isEmpty)
            expectUnchanged(before, try await host.snapshot(doc), "bodies over the limit")

            // Exactly the limit still works afterwards: the host is healthy.
            let exact = Data(repeating: 0x44, count: maximum)
            expectStatus(try await host.putFile(doc.id, token: doc.token, lock: "hostile-suite-lock", exact), 200)
            #expect(try await host.getFile(doc.id, token: doc.token).body == exact)
        }
    }

    // MARK: Dropped connections

    @Test("A PutFile whose connection drops half-way (FIN, RST, mid-chunk, one byte short) leaves the old content, Version and no tmp/ file")
    func droppedPutFile() async throws {
        try await TestHost.run { host in
            let doc = try await Self.victim(host)
            let before = try await host.snapshot(doc)
            let length = 4 * 1024 * 1024
            let body = [UInt8]((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let put = Self.head("POST", TestHost.filePath(doc.id) + "/contents", token: doc.token,
                                ["X-WOPI-Override: PUT", "X-WOPI-Lock: hostile-suite-lock"]).joined(separator: "\r\n")
            enum Ending: String, CaseIterable { case fin, reset, midChunk, oneByteShort }
            for ending in Ending.allCases {
                let port = host.port
                let status: Int? = try await offPool {
                    let connection = try RawHTTPConnection(port: port)
                    switch ending {
                    case .fin, .reset:
                        connection.write(put + "\r\nContent-Length: \(length)\r\n\r\n")
                        connection.write(body[0..<(length / 2)])
                        Thread.sleep(forTimeInterval: 0.2) // let the host start streaming into tmp/
                        if ending == .reset {
                            connection.reset()
                            return nil
                        }
                        connection.shutdownWrite()
                    case .midChunk:
                        connection.write(put + "\r\nTransfer-Encoding: chunked\r\n\r\n")
                        connection.write(Array("100000\r\n".utf8) + body[0..<(1024 * 1024)] + Array("\r\n".utf8))
                        connection.write(Array("100000\r\n".utf8) + body[0..<1000])
                        Thread.sleep(forTimeInterval: 0.2)
                        connection.shutdownWrite()
                    case .oneByteShort:
                        connection.write(put + "\r\nContent-Length: \(length)\r\n\r\n")
                        connection.write(body[0..<(length - 1)])
                        Thread.sleep(forTimeInterval: 0.2)
                        connection.shutdownWrite()
                    }
                    return connection.readResponse().status
                }
                // Whatever the host answers (or not), the write must not land.
                if let status { #expect(status >= 400, "\(ending): a truncated body was answered \(status)") }
                let left = try await host.stagingSettles()
                #expect(left.isEmpty, "\(ending): tmp/ still holds \(left)")
                expectUnchanged(before, try await host.snapshot(doc), "dropped PutFile (\(ending))")
            }
            // And a whole upload still works.
            let whole = Data(body)
            let done = try await host.putFile(doc.id, token: doc.token, lock: "hostile-suite-lock", whole)
            expectStatus(done, 200)
            #expect(try await host.getFile(doc.id, token: doc.token).body == whole)
        }
    }

    // MARK: Races

    @Test("A lock that changes while a PutFile body is still arriving: 409 with the current lock, and the old content stays")
    func lockChangedDuringUpload() async throws {
        try await TestHost.run { host in
            let doc = try await Self.victim(host, lock: "first-holder")
            let length = 2 * 1024 * 1024
            let head = Self.head("POST", TestHost.filePath(doc.id) + "/contents", token: doc.token,
                                 ["X-WOPI-Override: PUT", "X-WOPI-Lock: first-holder", "Content-Length: \(length)"])
                .joined(separator: "\r\n") + "\r\n\r\n"
            let port = host.port
            // Start the upload with the right lock, then stall half-way.
            let connection = try await offPool { () -> RawHTTPConnection in
                let connection = try RawHTTPConnection(port: port)
                connection.write(head)
                connection.write([UInt8](repeating: 0x55, count: length / 2))
                return connection
            }
            try await Task.sleep(for: .milliseconds(300))
            // Meanwhile another client takes the lock over.
            expectStatus(try await host.unlockAndRelock(doc.id, token: doc.token, old: "first-holder", new: "second-holder"), 200)
            let before = try await host.snapshot(doc)
            let outcome = try await offPool { () -> RawHTTPConnection.Outcome in
                connection.write([UInt8](repeating: 0x55, count: length / 2))
                return connection.readResponse()
            }
            #expect(outcome.status == 409, "a PutFile whose lock was replaced during the upload must be 409: \(outcome)")
            #expect(outcome.response?.header("X-WOPI-Lock") == "second-holder", "the 409 must carry the current lock: \(outcome)")
            expectUnchanged(before, try await host.snapshot(doc), "PutFile after its lock changed")
            #expect(try await host.getFile(doc.id, token: doc.token).body == Data("the original bytes of the victim".utf8))
        }
    }

    @Test("GetFile racing PutFile always gets 200 with one whole version, whose bytes match its X-WOPI-ItemVersion", .timeLimit(.minutes(10)))
    func readersRacingWriters() async throws {
        try await TestHost.run { host in
            let original = Data(repeating: 0x30, count: 200_000)
            let doc = try await host.document("Hot.xlsx", original)
            expectStatus(try await host.lock(doc.id, token: doc.token, "writer"), 200)
            // Distinct, recognisable bodies: a header line naming the write, then filler.
            let bodies = (0..<96).map { Data("write \($0)\n".utf8) + Data(repeating: UInt8(0x41 + $0 % 26), count: 150_000 + $0 * 1000) }
            let (written, reads) = try await withThrowingTaskGroup(of: ([String: Data], [Result<WOPIResponse, any Error>]).self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        var versions: [String: Data] = [:]
                        for index in stride(from: writer, to: bodies.count, by: 4) {
                            let response = try await host.putFile(doc.id, token: doc.token, lock: "writer", bodies[index])
                            #expect(response.status == 200, "PutFile \(index): \(response)")
                            if let version = response.header("X-WOPI-ItemVersion") { versions[version] = bodies[index] }
                        }
                        return (versions, [])
                    }
                }
                for _ in 0..<12 {
                    group.addTask {
                        // A response cut off after its head is an error, not a status: keep both kinds.
                        var responses: [Result<WOPIResponse, any Error>] = []
                        for _ in 0..<24 {
                            do { responses.append(.success(try await host.getFile(doc.id, token: doc.token))) } catch { responses.append(.failure(error)) }
                        }
                        return ([:], responses)
                    }
                }
                var written: [String: Data] = [doc.file.versionString: original]
                var reads: [Result<WOPIResponse, any Error>] = []
                for try await (versions, responses) in group {
                    written.merge(versions) { first, _ in first }
                    reads += responses
                }
                return (written, reads)
            }
            #expect(written.count == bodies.count + 1, "each write needs its own Version")
            var failures = 0
            for result in reads {
                guard case .success(let read) = result, read.status == 200 else {
                    failures += 1
                    if failures <= 3 {
                        switch result {
                        case .success(let read): Issue.record("GetFile during PutFile answered \(read)")
                        case .failure(let error): Issue.record("GetFile during PutFile was cut off: \(error)")
                        }
                    }
                    continue
                }
                let version = read.header("X-WOPI-ItemVersion") ?? "missing"
                let expected = written[version]
                #expect(expected != nil && read.body == expected,
                        "GetFile returned \(read.body.count) bytes starting '\(String(decoding: read.body.prefix(12), as: UTF8.self))' for \(version)")
            }
            #expect(failures == 0, "\(failures) of \(reads.count) GetFile requests failed while PutFile replaced the content")
        }
    }

    @Test("64 concurrent Lock / UnlockAndRelock / Unlock / PutFile on one file keep every lock invariant", .timeLimit(.minutes(10)))
    func mixedLockRace() async throws {
        // No version history: every replaced body must go, as well as every refused one.
        try await TestHost.run(retiredBodyGracePeriod: .milliseconds(300), keepVersions: 0) { host in
            let original = Data("original content, never written without the lock".utf8)
            let doc = try await host.document("Contended.docx", original)
            let locks = ["A", "B", "C", "D"]
            let known = Set(locks + [""])

            enum Operation: Sendable {
                case lock(String), relock(old: String, new: String), unlock(String), put(lock: String?, body: Data)
                /// The lock the request presents; a 409 must report a different one.
                var presented: String? {
                    switch self {
                    case .lock(let lock), .unlock(let lock): lock
                    case .relock(let old, _): old
                    case .put(let lock, _): lock
                    }
                }
            }
            struct Outcome: Sendable {
                let operation: Operation
                let response: WOPIResponse
            }
            let operations: [[Operation]] = (0..<64).map { worker in
                (0..<6).map { step -> Operation in
                    let mine = locks[(worker + step) % locks.count]
                    let other = locks[(worker * 7 + step * 3 + 1) % locks.count]
                    switch (worker + step) % 6 {
                    case 0: return .lock(mine)
                    case 1: return .relock(old: other, new: mine)
                    case 2: return .put(lock: mine, body: Data("written by \(worker)/\(step) under \(mine)".utf8))
                    case 3: return .put(lock: "intruder-\(worker)", body: Data("INTRUDER \(worker)/\(step)".utf8))
                    case 4: return .put(lock: nil, body: Data("UNLOCKED WRITE \(worker)/\(step)".utf8))
                    default: return step % 2 == 0 ? .unlock(mine) : .lock(other)
                    }
                }
            }
            let outcomes = try await withThrowingTaskGroup(of: [Outcome].self) { group in
                for sequence in operations {
                    group.addTask {
                        var results: [Outcome] = []
                        for operation in sequence {
                            let response: WOPIResponse
                            switch operation {
                            case .lock(let lock): response = try await host.lock(doc.id, token: doc.token, lock)
                            case .relock(let old, let new): response = try await host.unlockAndRelock(doc.id, token: doc.token, old: old, new: new)
                            case .unlock(let lock): response = try await host.unlock(doc.id, token: doc.token, lock)
                            case .put(let lock, let body): response = try await host.putFile(doc.id, token: doc.token, lock: lock, body)
                            }
                            results.append(Outcome(operation: operation, response: response))
                        }
                        return results
                    }
                }
                var all: [Outcome] = []
                for try await results in group { all += results }
                return all
            }
            #expect(outcomes.count == 64 * 6)

            var landed: [(version: Int64, body: Data)] = []
            for outcome in outcomes {
                let response = outcome.response
                #expect([200, 409].contains(response.status), "\(outcome.operation): \(response)")
                if response.status == 409 {
                    let current = response.header("X-WOPI-Lock")
                    #expect(current != nil, "409 without X-WOPI-Lock for \(outcome.operation)")
                    if let current {
                        #expect(known.contains(current), "409 reports a lock nobody took: '\(current)'")
                        #expect(current != outcome.operation.presented, "409 for \(outcome.operation) although the current lock is the one presented")
                        if case .lock = outcome.operation { #expect(current != "", "LOCK refused on an unlocked file") }
                    }
                }
                if response.status == 200 {
                    let version = response.header("X-WOPI-ItemVersion")
                    if case .put(let lock, let body) = outcome.operation {
                        #expect(lock.map { locks.contains($0) } ?? false, "a PutFile landed with lock \(lock ?? "none"): \(String(decoding: body, as: UTF8.self))")
                        let number = try #require(version.flatMap { Int64($0.dropFirst()) }, "PutFile 200 without a usable X-WOPI-ItemVersion: \(response)")
                        landed.append((number, body))
                    } else if case .relock = outcome.operation {
                        // PROTOCOL.md §4 requires X-WOPI-ItemVersion on Lock and Unlock; UnlockAndRelock is not checked here.
                    } else {
                        #expect(version != nil, "200 for \(outcome.operation) without X-WOPI-ItemVersion")
                    }
                }
            }
            #expect(Set(landed.map(\.version)).count == landed.count, "two writes share a Version")

            let final = try await host.getFile(doc.id, token: doc.token)
            let info = try await host.checkFileInfo(doc.id, token: doc.token).json()
            let expected = landed.max { $0.version < $1.version }
            #expect(final.body == (expected?.body ?? original),
                    "final content is '\(String(decoding: final.body.prefix(80), as: UTF8.self))', the last landed write was '\(expected.map { String(decoding: $0.body, as: UTF8.self) } ?? "none")'")
            #expect(info["SHA256"]?.string == sha256Base64(final.body), "SHA256 does not match the bytes GetFile returns")
            #expect(info["Size"]?.int == Int64(final.body.count))
            #expect(info["Version"]?.string == final.header("X-WOPI-ItemVersion"))
            if let expected { #expect(info["Version"]?.string == "v\(expected.version)", "Version is not that of the last write") }
            #expect(!final.body.starts(with: Data("INTRUDER".utf8)) && !final.body.starts(with: Data("UNLOCKED".utf8)))
            let current = try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock")
            #expect(current.map(known.contains) ?? false, "GetLock reports '\(current ?? "nil")'")
            // Every refused or replaced body is gone once its grace period has passed: one stored body
            // for one file, nothing staged.
            #expect(try await host.stagingSettles().isEmpty)
            try await Task.sleep(for: .seconds(1))
            let blobs = TestHost.listing(host.folder.fileBlobs.folder, recursive: true)
                .filter { !$0.hasSuffix("/") && $0.split(separator: "/").count == 2 }
            #expect(blobs.count == 1, "stored bodies after the race: \(blobs.count) (expected 1)")
        }
    }
}
