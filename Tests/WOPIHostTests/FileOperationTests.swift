import Foundation
import Testing
import WOPICore
@testable import WOPIHost

/// The Files endpoint's read operations and the small writes (docs/rest/src/files/).
@Suite("Files: CheckFileInfo, GetFile, PutUserInfo, RenameFile, DeleteFile, GetShareUrl, ancestry, ecosystem")
struct FileOperationTests {
    @Test("CheckFileInfo carries the required and mobile properties with their JSON types")
    func checkFileInfoFields() async throws {
        try await TestHost.run { host in
            let content = Data("The quick brown fox".utf8)
            let doc = try await host.document("Quarterly Report.docx", content)
            let response = try await host.checkFileInfo(doc.id, token: doc.token)
            expectStatus(response, 200)
            #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
            let info = try response.json()
            #expect(info["BaseFileName"]?.string == "Quarterly Report.docx")
            #expect(info["OwnerId"]?.string == doc.user.id.rawValue)
            #expect(info["UserId"]?.string == doc.user.id.rawValue)
            #expect(info["Size"]?.int == Int64(content.count))
            #expect(info["Version"]?.string == doc.file.versionString)
            #expect(info["FileExtension"]?.string == ".docx")
            #expect(info["SHA256"]?.string == sha256Base64(content))
            #expect(info["UserFriendlyName"]?.string == "Alice")
            let modified = try #require(info["LastModifiedTime"]?.string)
            #expect(try Date(modified, strategy: .iso8601).timeIntervalSince(doc.file.modifiedAt).magnitude < 1)
            // Mobile: present, boolean, and equal to the parent container's (checked in ContainerTests too).
            #expect(info["IsEduUser"]?.bool == false)
            #expect(info["LicenseCheckForEditIsEnabled"]?.bool == false)
            #expect(info["IsAnonymousUser"]?.bool == false)
            #expect(info["UserCanWrite"]?.bool == true)
            #expect(info["UserCanRename"]?.bool == true)
            #expect(info["UserCanNotWriteRelative"]?.bool == false)
            #expect(info["ReadOnly"]?.bool == false)
            for flag in ["SupportsLocks", "SupportsGetLock", "SupportsExtendedLockLength", "SupportsUpdate", "SupportsRename",
                         "SupportsDeleteFile", "SupportsContainers", "SupportsEcosystem", "SupportsUserInfo"] {
                #expect(info[flag]?.bool == true, "\(flag) should be true: this host implements every operation it covers")
            }
            #expect(info["SupportedShareUrlTypes"]?.array?.compactMap(\.string).sorted() == ["ReadOnly", "ReadWrite"])
            #expect(info["BreadcrumbBrandName"]?.string == "WOPIKit")
            #expect(info["BreadcrumbFolderName"]?.string == "Alice's files")
            #expect(info["UserInfo"] == nil || info["UserInfo"] == .null)
        }
    }

    @Test("GetFile streams the exact bytes with X-WOPI-ItemVersion equal to CheckFileInfo's Version")
    func getFile() async throws {
        try await TestHost.run { host in
            let content = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let doc = try await host.document("Data.xlsx", content)
            let response = try await host.getFile(doc.id, token: doc.token)
            expectStatus(response, 200)
            #expect(response.body == content)
            #expect(response.header("X-WOPI-ItemVersion") == doc.file.versionString)
            let info = try await host.checkFileInfo(doc.id, token: doc.token).json()
            #expect(info["Version"]?.string == response.header("X-WOPI-ItemVersion"))
        }
    }

    @Test("GetFile answers 412 when the file is larger than X-WOPI-MaxExpectedSize, 200 when it fits")
    func maxExpectedSize() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Big.docx", Data(repeating: 0x41, count: 1000))
            let tooSmall = try await host.getFile(doc.id, token: doc.token, [("X-WOPI-MaxExpectedSize", "999")])
            expectStatus(tooSmall, 412)
            #expect(tooSmall.body != Data(repeating: 0x41, count: 1000))
            let exact = try await host.getFile(doc.id, token: doc.token, [("X-WOPI-MaxExpectedSize", "1000")])
            expectStatus(exact, 200)
            #expect(exact.body.count == 1000)
        }
    }

    @Test("PutUserInfo stores the value and CheckFileInfo returns it as UserInfo")
    func putUserInfo() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let value = #"{"theme":"dark","seen":["tour"]} ünïcödé"#
            expectStatus(try await host.putUserInfo(doc.id, token: doc.token, value), 200)
            let info = try await host.checkFileInfo(doc.id, token: doc.token).json()
            #expect(info["UserInfo"]?.string == value)
        }
    }

    @Test("RenameFile renames in place: same id, Name without extension, new Version, extension kept")
    func renameFile() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Draft.docx")
            let response = try await host.renameFile(doc.id, token: doc.token, to: UTF7.encode("Final – März"))
            expectStatus(response, 200)
            #expect(try response.json()["Name"]?.string == "Final – März")
            let info = try await host.checkFileInfo(doc.id, token: doc.token).json()
            #expect(info["BaseFileName"]?.string == "Final – März.docx")
            #expect(info["Version"]?.string != doc.file.versionString)
        }
    }

    @Test("RenameFile to a taken name picks a similar free name instead of failing")
    func renameFileClash() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("A.docx")
            _ = try await host.addFile("B.docx", Data("b".utf8), owner: doc.user)
            let response = try await host.renameFile(doc.id, token: doc.token, to: "B")
            expectStatus(response, 200)
            let name = try #require(try response.json()["Name"]?.string)
            #expect(name != "B" && name.hasPrefix("B"))
            #expect(try await host.checkFileInfo(doc.id, token: doc.token).json()["BaseFileName"]?.string == name + ".docx")
        }
    }

    @Test("RenameFile with an illegal name answers 400 with X-WOPI-InvalidFileNameError and changes nothing")
    func renameFileIllegal() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Keep.docx")
            for bad in ["a/b", "what?", "x:y", "  ", ""] {
                let response = try await host.renameFile(doc.id, token: doc.token, to: UTF7.encode(bad))
                expectStatus(response, 400, "name '\(bad)':")
                #expect(response.header("X-WOPI-InvalidFileNameError")?.isEmpty == false, "no X-WOPI-InvalidFileNameError for '\(bad)'")
            }
            #expect(try await host.checkFileInfo(doc.id, token: doc.token).json()["BaseFileName"]?.string == "Keep.docx")
        }
    }

    @Test("RenameFile on a locked file: 409 with the lock without it or with another, 200 with it")
    func renameFileLocked() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Locked.docx")
            expectStatus(try await host.lock(doc.id, token: doc.token, "L1"), 200)
            expectLockConflict(try await host.renameFile(doc.id, token: doc.token, to: "Other"), currentLock: "L1")
            expectLockConflict(try await host.renameFile(doc.id, token: doc.token, to: "Other", lock: "L2"), currentLock: "L1")
            expectStatus(try await host.renameFile(doc.id, token: doc.token, to: "Other", lock: "L1"), 200)
            #expect(try await host.checkFileInfo(doc.id, token: doc.token).json()["BaseFileName"]?.string == "Other.docx")
        }
    }

    @Test("DeleteFile removes an unlocked file (then 404) and refuses a locked one with 409 and the lock")
    func deleteFile() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Gone.docx")
            let kept = try await host.addFile("Kept.docx", Data("k".utf8), owner: doc.user)
            let keptToken = host.token(doc.user, .file(kept.id))
            expectStatus(try await host.lock(kept.id.rawValue, token: keptToken, "held"), 200)
            expectLockConflict(try await host.deleteFile(kept.id.rawValue, token: keptToken), currentLock: "held")
            expectStatus(try await host.checkFileInfo(kept.id.rawValue, token: keptToken), 200)

            expectStatus(try await host.deleteFile(doc.id, token: doc.token), 200)
            expectStatus(try await host.checkFileInfo(doc.id, token: doc.token), 404)
            expectStatus(try await host.getFile(doc.id, token: doc.token), 404)
        }
    }

    @Test("GetShareUrl: a ReadOnly link opens a page and downloads the file; it is no WOPI token; 501 for unknown types")
    func fileShareURL() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Q4 & 'plan'.docx", Data("shared bytes".utf8))
            let response = try await host.fileShareURL(doc.id, token: doc.token, type: "ReadOnly")
            expectStatus(response, 200)
            let url = try #require(try response.json()["ShareUrl"]?.string)
            #expect(url.hasPrefix(TestHost.publicURL + "/share/"))
            #expect(!url.contains(doc.token), "a share URL must not leak the caller's access token")
            let page = try await host.send(url: url)
            expectStatus(page, 200)
            #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(html.contains("Q4 &amp; &#39;plan&#39;.docx") && !html.contains("Q4 & 'plan'"), "the name is shown, escaped")
            let download = try await host.send(url: url + "/content")
            expectStatus(download, 200)
            #expect(download.body == Data("shared bytes".utf8))
            // The link's token opens the share page only, never a WOPI endpoint.
            let linkToken = String(url.dropFirst((TestHost.publicURL + "/share/").count))
            expectStatus(try await host.checkFileInfo(doc.id, token: linkToken), 401)
            // Forged and expired links show nothing.
            expectStatus(try await host.send(url: TestHost.publicURL + "/share/" + doc.token), 404)
            host.clock.advance(by: 8 * 24 * 3600)
            expectStatus(try await host.send(url: url), 404)
            expectStatus(try await host.send(url: url + "/content"), 404)
            let fresh = host.token(doc.user, .file(doc.file.id))
            // A link never outlives the access token that asked for it.
            let shortLived = host.token(doc.user, .file(doc.file.id), notAfter: host.clock.now().addingTimeInterval(3600))
            let bounded = try #require(try await host.fileShareURL(doc.id, token: shortLived, type: "ReadOnly").json()["ShareUrl"]?.string)
            expectStatus(try await host.send(url: bounded), 200)
            host.clock.advance(by: 3601)
            expectStatus(try await host.send(url: bounded), 404)
            expectStatus(try await host.fileShareURL(doc.id, token: fresh, type: "ReadWrite"), 200, "ReadWrite links")
            expectStatus(try await host.fileShareURL(doc.id, token: fresh, type: "Anonymous"), 501)
            expectStatus(try await host.fileShareURL(doc.id, token: fresh, type: nil), 501)
        }
    }

    @Test("EnumerateAncestors of a file lists root first down to its parent, each Url working for that container only")
    func fileAncestors() async throws {
        try await TestHost.run { host in
            let user = try await host.makeUser()
            let projects = try await host.addContainer("Projects", in: user.rootContainerID)
            let q3 = try await host.addContainer("Q3", in: projects.id)
            let file = try await host.addFile("Plan.docx", Data("p".utf8), owner: user, in: q3.id)
            let token = host.token(user, .file(file.id))
            let response = try await host.fileAncestors(file.id.rawValue, token: token)
            expectStatus(response, 200)
            let ancestors = try #require(try response.json()["AncestorsWithRootFirst"]?.array)
            #expect(ancestors.compactMap { $0["Name"]?.string } == ["Alice's files", "Projects", "Q3"])
            for (entry, id) in zip(ancestors, [user.rootContainerID, projects.id, q3.id]) {
                let url = try #require(entry["Url"]?.string)
                #expect(url.hasPrefix("\(TestHost.publicURL)/wopi/containers/\(id)?access_token="))
                let info = try await host.send(url: url)
                expectStatus(info, 200, url)
                // The token is for that container, not for the file it came from.
                expectStatus(try await host.checkFileInfo(file.id.rawValue, token: accessToken(in: url)), 401)
            }
        }
    }

    @Test("GetEcosystem on a file returns the ecosystem Url, whose token works for CheckEcosystem only")
    func fileEcosystem() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let response = try await host.fileEcosystem(doc.id, token: doc.token)
            expectStatus(response, 200)
            let url = try #require(try response.json()["Url"]?.string)
            #expect(url.hasPrefix("\(TestHost.publicURL)/wopi/ecosystem?access_token="))
            let ecosystem = try await host.send(url: url)
            expectStatus(ecosystem, 200)
            #expect(try ecosystem.json()["SupportsContainers"]?.bool == true)
            expectStatus(try await host.checkFileInfo(doc.id, token: accessToken(in: url)), 401)
        }
    }
}
