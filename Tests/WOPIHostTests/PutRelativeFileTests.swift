import Foundation
import Testing
import WOPICore
@testable import WOPIHost

/// PutRelativeFile in suggested and exact (relative) mode (docs/rest/src/files/PutRelativeFile.rst).
@Suite("PutRelativeFile")
struct PutRelativeFileTests {
    /// Checks a `{Name, Url}` answer: the name, that the Url's token opens exactly the new file, and its content.
    private func expectNewFile(_ host: TestHost, _ response: WOPIResponse, name: String? = nil, content: Data,
                               source: Document, sourceLocation: SourceLocation = #_sourceLocation) async throws -> (name: String, url: String) {
        #expect(response.status == 200, "\(response)", sourceLocation: sourceLocation)
        let json = try response.json()
        let newName = try #require(json["Name"]?.string, sourceLocation: sourceLocation)
        let url = try #require(json["Url"]?.string, sourceLocation: sourceLocation)
        if let name { #expect(newName == name, sourceLocation: sourceLocation) }
        #expect(url.hasPrefix("\(TestHost.publicURL)/wopi/files/"), sourceLocation: sourceLocation)
        let info = try await host.send(url: url)
        #expect(info.status == 200, "\(info)", sourceLocation: sourceLocation)
        #expect(try info.json()["BaseFileName"]?.string == newName, sourceLocation: sourceLocation)
        #expect(try info.json()["Size"]?.int == Int64(content.count), sourceLocation: sourceLocation)
        let contents = url.replacingOccurrences(of: "?access_token=", with: "/contents?access_token=")
        #expect(try await host.send(url: contents).body == content, sourceLocation: sourceLocation)
        // The new token is for the new file only.
        #expect(try await host.checkFileInfo(source.id, token: accessToken(in: url)).status == 401, sourceLocation: sourceLocation)
        return (newName, url)
    }

    @Test("Suggested extension only: the source's name with the new extension")
    func suggestedExtension() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Budget 2025.xlsx")
            let content = Data("as csv".utf8)
            let response = try await host.putRelativeFile(doc.id, token: doc.token, suggested: ".csv", content)
            _ = try await expectNewFile(host, response, name: "Budget 2025.csv", content: content, source: doc)
            // Same extension as the source: the name is taken, so it gets a new one with the same extension.
            let again = try await host.putRelativeFile(doc.id, token: doc.token, suggested: ".xlsx", content)
            let (name, _) = try await expectNewFile(host, again, content: content, source: doc)
            #expect(name != "Budget 2025.xlsx" && name.hasSuffix(".xlsx"))
        }
    }

    @Test("Suggested full name: used as is, a clash gets a new name keeping the extension, UTF-7 decoded")
    func suggestedFullName() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Source.docx")
            let first = try await host.putRelativeFile(doc.id, token: doc.token, suggested: "Copy.docx", Data("1".utf8))
            _ = try await expectNewFile(host, first, name: "Copy.docx", content: Data("1".utf8), source: doc)
            let second = try await host.putRelativeFile(doc.id, token: doc.token, suggested: "Copy.docx", Data("2".utf8))
            let (name, _) = try await expectNewFile(host, second, content: Data("2".utf8), source: doc)
            #expect(name != "Copy.docx" && name.hasSuffix(".docx"))
            // The first copy was not overwritten.
            let children = try await host.enumerateChildren(doc.user.rootContainerID.rawValue,
                                                            token: host.token(doc.user, .container(doc.user.rootContainerID))).json()
            let copy = try #require(children["ChildFiles"]?.array?.first { $0["Name"]?.string == "Copy.docx" })
            #expect(copy["Size"]?.int == 1)
            let unicode = try await host.putRelativeFile(doc.id, token: doc.token, suggested: UTF7.encode("Résumé 📄.docx"), Data("3".utf8))
            _ = try await expectNewFile(host, unicode, name: "Résumé 📄.docx", content: Data("3".utf8), source: doc)
        }
    }

    @Test("Suggested names with refused characters are made legal, never 400")
    func suggestedIllegalName() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Source.docx")
            let response = try await host.putRelativeFile(doc.id, token: doc.token, suggested: UTF7.encode("Q3: plan <draft>?.docx"), Data("x".utf8))
            let (name, _) = try await expectNewFile(host, response, content: Data("x".utf8), source: doc)
            #expect(isOfficeSafe(name), "\(name)")
            #expect(name.hasSuffix(".docx"))
        }
    }

    @Test("Exact name: created as is; an illegal name is 400")
    func exactName() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Source.docx")
            let response = try await host.putRelativeFile(doc.id, token: doc.token, relative: UTF7.encode("Exact name.pptx"), Data("e".utf8))
            _ = try await expectNewFile(host, response, name: "Exact name.pptx", content: Data("e".utf8), source: doc)
            for bad in ["a/b.docx", "what?.docx", "pipe|.docx", "hash#.docx"] {
                let refused = try await host.putRelativeFile(doc.id, token: doc.token, relative: UTF7.encode(bad), Data("e".utf8))
                expectStatus(refused, 400, bad)
                if let valid = refused.header("X-WOPI-ValidRelativeTarget") {
                    #expect(isOfficeSafe(try UTF7.decode(valid)), "suggested replacement \(valid) is itself illegal")
                }
            }
        }
    }

    @Test("Exact name clash: 409 with a free X-WOPI-ValidRelativeTarget; the existing file is untouched")
    func exactNameClash() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Source.docx")
            let existing = try await host.addFile("Taken.docx", Data("taken".utf8), owner: doc.user)
            for overwrite: Bool? in [nil, false] {
                let response = try await host.putRelativeFile(doc.id, token: doc.token, relative: "Taken.docx", overwrite: overwrite, Data("new".utf8))
                expectStatus(response, 409)
                let valid = try UTF7.decode(try #require(response.header("X-WOPI-ValidRelativeTarget")))
                #expect(valid != "Taken.docx" && valid.hasSuffix(".docx") && isOfficeSafe(valid))
                // The suggestion really is free: retrying with it succeeds.
                if overwrite == nil {
                    let retry = try await host.putRelativeFile(doc.id, token: doc.token, relative: UTF7.encode(valid), Data("new".utf8))
                    _ = try await expectNewFile(host, retry, name: valid, content: Data("new".utf8), source: doc)
                }
            }
            let get = try await host.getFile(existing.id.rawValue, token: host.token(doc.user, .file(existing.id)))
            #expect(get.body == Data("taken".utf8))
        }
    }

    @Test("Exact name with X-WOPI-OverwriteRelativeTarget: true replaces the existing file's content")
    func exactOverwrite() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Source.docx")
            let existing = try await host.addFile("Target.docx", Data("old".utf8), owner: doc.user)
            let response = try await host.putRelativeFile(doc.id, token: doc.token, relative: "Target.docx", overwrite: true, Data("replaced".utf8))
            _ = try await expectNewFile(host, response, name: "Target.docx", content: Data("replaced".utf8), source: doc)
            let targetToken = host.token(doc.user, .file(existing.id))
            // Wherever the host keeps it, there is one Target.docx and it has the new content.
            let children = try await host.enumerateChildren(doc.user.rootContainerID.rawValue,
                                                            token: host.token(doc.user, .container(doc.user.rootContainerID))).json()
            #expect(children["ChildFiles"]?.array?.filter { $0["Name"]?.string == "Target.docx" }.count == 1)
            let get = try await host.getFile(existing.id.rawValue, token: targetToken)
            if get.status == 200 {
                #expect(get.body == Data("replaced".utf8))
                #expect(get.header("X-WOPI-ItemVersion") != existing.versionString)
            }
        }
    }

    @Test("Exact overwrite of a locked target: 409 with the target's lock, content unchanged")
    func exactOverwriteLocked() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Source.docx")
            let target = try await host.addFile("Locked.docx", Data("keep me".utf8), owner: doc.user)
            let targetToken = host.token(doc.user, .file(target.id))
            expectStatus(try await host.lock(target.id.rawValue, token: targetToken, "target-lock"), 200)
            let response = try await host.putRelativeFile(doc.id, token: doc.token, relative: "Locked.docx", overwrite: true, Data("clobber".utf8))
            expectLockConflict(response, currentLock: "target-lock")
            #expect(try await host.getFile(target.id.rawValue, token: targetToken).body == Data("keep me".utf8))
        }
    }

    @Test("PutRelativeFile works on a source locked by someone else: it needs no lock")
    func lockedSource() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Source.docx")
            expectStatus(try await host.lock(doc.id, token: doc.token, "someone"), 200)
            let response = try await host.putRelativeFile(doc.id, token: doc.token, suggested: "Save as.docx", Data("s".utf8))
            _ = try await expectNewFile(host, response, name: "Save as.docx", content: Data("s".utf8), source: doc)
        }
    }
}
