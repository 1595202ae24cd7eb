import Foundation
import Testing
import WOPICore
@testable import WOPIHost

/// `Version` changes on every edit and never repeats (CheckFileInfo.rst), and `SHA256` follows the content.
@Suite("Version and SHA256")
struct VersionTests {
    @Test("Every edit gives a new Version never seen before, even across delete and re-create")
    func versionsNeverRepeat() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("V.docx", Data("0".utf8))
            var seen: [String] = [doc.file.versionString]
            func current(_ id: String, _ token: String) async throws -> String {
                try #require(try await host.checkFileInfo(id, token: token).json()["Version"]?.string)
            }
            expectStatus(try await host.lock(doc.id, token: doc.token, "L"), 200)
            #expect(try await current(doc.id, doc.token) == seen.last, "a Lock is not an edit")
            for round in 1...3 {
                let put = try await host.putFile(doc.id, token: doc.token, lock: "L", Data("\(round)".utf8))
                expectStatus(put, 200)
                seen.append(try await current(doc.id, doc.token))
                #expect(put.header("X-WOPI-ItemVersion") == seen.last)
            }
            // Writing the same bytes again is still an edit.
            expectStatus(try await host.putFile(doc.id, token: doc.token, lock: "L", Data("3".utf8)), 200)
            seen.append(try await current(doc.id, doc.token))
            expectStatus(try await host.renameFile(doc.id, token: doc.token, to: "Renamed", lock: "L"), 200)
            seen.append(try await current(doc.id, doc.token))
            expectStatus(try await host.unlock(doc.id, token: doc.token, "L"), 200)
            expectStatus(try await host.deleteFile(doc.id, token: doc.token), 200)

            // A new file under the old name must not reuse any earlier Version.
            let again = try await host.addFile("V.docx", Data("0".utf8), owner: doc.user)
            seen.append(try await current(again.id.rawValue, host.token(doc.user, .file(again.id))))
            #expect(Set(seen).count == seen.count, "versions repeated: \(seen)")
        }
    }

    @Test("SHA256 is the base64 SHA-256 of the bytes GetFile returns, after every write")
    func sha256FollowsContent() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("H.xlsx", Data())
            let empty = try await host.checkFileInfo(doc.id, token: doc.token).json()
            #expect(empty["SHA256"]?.string == "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
            expectStatus(try await host.lock(doc.id, token: doc.token, "L"), 200)
            for size in [1, 4095, 262_145] {
                let content = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 ^ size) })
                expectStatus(try await host.putFile(doc.id, token: doc.token, lock: "L", content), 200)
                let info = try await host.checkFileInfo(doc.id, token: doc.token).json()
                let body = try await host.getFile(doc.id, token: doc.token).body
                #expect(body == content)
                #expect(info["SHA256"]?.string == sha256Base64(content))
                #expect(info["Size"]?.int == Int64(size))
            }
        }
    }
}
