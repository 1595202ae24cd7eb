import Foundation
import Testing
import WOPICore
@testable import WOPIHost

/// The Containers endpoint (docs/rest/src/containers/), as Office for iOS browses and saves.
@Suite("Containers")
struct ContainerTests {
    /// A user with a root token.
    private func rootOf(_ host: TestHost, _ name: String = "alice") async throws -> (UserRecord, String, String) {
        let user = try await host.makeUser(name)
        return (user, user.rootContainerID.rawValue, host.token(user, .container(user.rootContainerID)))
    }

    /// Checks a container `{Name, Url}` pointer: the name, and that the token opens exactly that container.
    private func expectPointer(_ host: TestHost, _ pointer: JSONValue?, name: String, id: ResourceID? = nil,
                               notFor other: (id: String, token: String)? = nil,
                               sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        #expect(pointer?["Name"]?.string == name, sourceLocation: sourceLocation)
        let url = try #require(pointer?["Url"]?.string, sourceLocation: sourceLocation)
        if let id { #expect(url.hasPrefix("\(TestHost.publicURL)/wopi/containers/\(id)?access_token="), "\(url)", sourceLocation: sourceLocation) }
        let info = try await host.send(url: url)
        #expect(info.status == 200, "\(info)", sourceLocation: sourceLocation)
        #expect(try info.json()["Name"]?.string == name, sourceLocation: sourceLocation)
        if let other {
            #expect(try await host.checkContainerInfo(other.id, token: accessToken(in: url)).status == 401, sourceLocation: sourceLocation)
        }
        return url
    }

    @Test("CheckContainerInfo: Name, permissions (a root can be renamed but not deleted), flags equal to CheckFileInfo's")
    func checkContainerInfo() async throws {
        try await TestHost.run { host in
            let (user, root, rootToken) = try await rootOf(host)
            let rootInfo = try await host.checkContainerInfo(root, token: rootToken)
            expectStatus(rootInfo, 200)
            let info = try rootInfo.json()
            #expect(info["Name"]?.string == "Alice's files")
            #expect(info["UserCanCreateChildContainer"]?.bool == true)
            #expect(info["UserCanCreateChildFile"]?.bool == true)
            #expect(info["UserCanDelete"]?.bool == false)
            #expect(info["UserCanRename"]?.bool == true)
            #expect(info["SupportedShareUrlTypes"]?.array?.compactMap(\.string).sorted() == ["ReadOnly", "ReadWrite"])

            let child = try await host.addContainer("Work", in: user.rootContainerID)
            let childInfo = try await host.checkContainerInfo(child.id.rawValue, token: host.token(user, .container(child.id))).json()
            #expect(childInfo["Name"]?.string == "Work")
            #expect(childInfo["UserCanDelete"]?.bool == true)
            #expect(childInfo["UserCanRename"]?.bool == true)

            // Office for iOS requires these to match between a file and its parent container.
            let file = try await host.addFile("In work.docx", Data("w".utf8), owner: user, in: child.id)
            let fileInfo = try await host.checkFileInfo(file.id.rawValue, token: host.token(user, .file(file.id))).json()
            for key in ["IsEduUser", "LicenseCheckForEditIsEnabled", "IsAnonymousUser"] {
                #expect(childInfo[key] != nil && childInfo[key] == fileInfo[key], "\(key): container \(String(describing: childInfo[key])), file \(String(describing: fileInfo[key]))")
            }
            #expect(fileInfo["BreadcrumbFolderName"]?.string == "Work")
        }
    }

    @Test("EnumerateChildren lists containers and files with their properties; each Url opens exactly that child")
    func enumerateChildren() async throws {
        try await TestHost.run { host in
            let (user, root, rootToken) = try await rootOf(host)
            let beta = try await host.addContainer("Beta", in: user.rootContainerID)
            let alpha = try await host.addContainer("alpha", in: user.rootContainerID)
            let doc = try await host.addFile("Notes.docx", Data("n".utf8), owner: user)
            let sheet = try await host.addFile("Numbers.XLSX", Data("12345".utf8), owner: user)
            _ = try await host.addFile("Hidden.docx", Data("h".utf8), owner: user, in: beta.id)

            let response = try await host.enumerateChildren(root, token: rootToken)
            expectStatus(response, 200)
            let json = try response.json()
            let containers = try #require(json["ChildContainers"]?.array)
            #expect(containers.compactMap { $0["Name"]?.string } == ["alpha", "Beta"])
            for (entry, container) in zip(containers, [alpha, beta]) {
                _ = try await expectPointer(host, entry, name: container.name, id: container.id, notFor: (root, rootToken))
            }
            let files = try #require(json["ChildFiles"]?.array)
            #expect(files.compactMap { $0["Name"]?.string } == ["Notes.docx", "Numbers.XLSX"], "direct children only")
            for (entry, file) in zip(files, [doc, sheet]) {
                #expect(entry["Size"]?.int == file.size)
                #expect(entry["Version"]?.string == file.versionString)
                let modified = try #require(entry["LastModifiedTime"]?.string)
                #expect(try Date(modified, strategy: .iso8601).timeIntervalSince(file.modifiedAt).magnitude < 1)
                let url = try #require(entry["Url"]?.string)
                #expect(url.hasPrefix("\(TestHost.publicURL)/wopi/files/\(file.id)?access_token="))
                let info = try await host.send(url: url)
                expectStatus(info, 200)
                #expect(try info.json()["BaseFileName"]?.string == file.name)
                expectStatus(try await host.checkContainerInfo(root, token: accessToken(in: url)), 401)
                let otherFile = file == doc ? sheet : doc
                expectStatus(try await host.checkFileInfo(otherFile.id.rawValue, token: accessToken(in: url)), 401)
            }
            let empty = try await host.enumerateChildren(alpha.id.rawValue, token: host.token(user, .container(alpha.id))).json()
            #expect(empty["ChildContainers"]?.array == [])
            #expect(empty["ChildFiles"]?.array == [])
        }
    }

    @Test("X-WOPI-FileExtensionFilterList keeps only matching files, case-insensitively, and never filters containers")
    func extensionFilter() async throws {
        try await TestHost.run { host in
            let (user, root, rootToken) = try await rootOf(host)
            _ = try await host.addContainer("Folder.docx-not", in: user.rootContainerID)
            for name in ["a.docx", "b.DOCX", "c.xlsx", "d.pptx", "e.doc", "docx", "f.docx.txt"] {
                _ = try await host.addFile(name, Data(name.utf8), owner: user)
            }
            let json = try await host.enumerateChildren(root, token: rootToken, filter: ".docx,.XLSX").json()
            #expect(json["ChildFiles"]?.array?.compactMap { $0["Name"]?.string } == ["a.docx", "b.DOCX", "c.xlsx"])
            #expect(json["ChildContainers"]?.array?.count == 1)
            let single = try await host.enumerateChildren(root, token: rootToken, filter: ".doc").json()
            #expect(single["ChildFiles"]?.array?.compactMap { $0["Name"]?.string } == ["e.doc"])
            let all = try await host.enumerateChildren(root, token: rootToken).json()
            #expect(all["ChildFiles"]?.array?.count == 7)
        }
    }

    @Test("EnumerateAncestors of a container: its ancestors root first, without itself; none for a root")
    func containerAncestors() async throws {
        try await TestHost.run { host in
            let (user, root, rootToken) = try await rootOf(host)
            let a = try await host.addContainer("A", in: user.rootContainerID)
            let b = try await host.addContainer("B", in: a.id)
            let bToken = host.token(user, .container(b.id))
            let response = try await host.containerAncestors(b.id.rawValue, token: bToken)
            expectStatus(response, 200)
            let ancestors = try #require(try response.json()["AncestorsWithRootFirst"]?.array)
            #expect(ancestors.count == 2)
            for (entry, (name, id)) in zip(ancestors, [("Alice's files", user.rootContainerID), ("A", a.id)]) {
                _ = try await expectPointer(host, entry, name: name, id: id, notFor: (b.id.rawValue, bToken))
            }
            let rootAncestors = try await host.containerAncestors(root, token: rootToken)
            expectStatus(rootAncestors, 200)
            #expect(try rootAncestors.json()["AncestorsWithRootFirst"]?.array == [])
        }
    }

    @Test("CreateChildFile, suggested: the name, a free variant on a clash, legal names from illegal ones; files are empty")
    func createChildFileSuggested() async throws {
        try await TestHost.run { host in
            let (_, root, rootToken) = try await rootOf(host)
            var names: [String] = []
            for suggested in ["Report.docx", "Report.docx", ".xlsx", UTF7.encode("Plan: v2?.pptx")] {
                let response = try await host.createChildFile(root, token: rootToken, suggested: suggested)
                expectStatus(response, 200, suggested)
                let json = try response.json()
                let name = try #require(json["Name"]?.string)
                let url = try #require(json["Url"]?.string)
                #expect(isOfficeSafe(name), "\(name)")
                let info = try await host.send(url: url)
                expectStatus(info, 200)
                #expect(try info.json()["BaseFileName"]?.string == name)
                #expect(try info.json()["Size"]?.int == 0, "CreateChildFile.rst: the new file must be 0 bytes")
                expectStatus(try await host.checkContainerInfo(root, token: accessToken(in: url)), 401)
                names.append(name)
            }
            #expect(names[0] == "Report.docx")
            #expect(names[1] != "Report.docx" && names[1].hasSuffix(".docx"))
            #expect(names[2].hasSuffix(".xlsx"))
            #expect(names[3].hasSuffix(".pptx"))
            #expect(Set(names).count == 4)
            let listed = try await host.enumerateChildren(root, token: rootToken).json()["ChildFiles"]?.array?.count
            #expect(listed == 4)
        }
    }

    @Test("CreateChildFile, exact: created; clash 409 with X-WOPI-ValidRelativeTarget; illegal 400; overwrite rules")
    func createChildFileExact() async throws {
        try await TestHost.run { host in
            let (user, root, rootToken) = try await rootOf(host)
            let created = try await host.createChildFile(root, token: rootToken, relative: UTF7.encode("Exact – ü.docx"))
            expectStatus(created, 200)
            #expect(try created.json()["Name"]?.string == "Exact – ü.docx")

            let clash = try await host.createChildFile(root, token: rootToken, relative: UTF7.encode("Exact – ü.docx"))
            expectStatus(clash, 409)
            let valid = try UTF7.decode(try #require(clash.header("X-WOPI-ValidRelativeTarget")))
            #expect(valid != "Exact – ü.docx" && valid.hasSuffix(".docx"))

            let illegal = try await host.createChildFile(root, token: rootToken, relative: "bad|name.docx")
            expectStatus(illegal, 400)
            #expect(illegal.header("X-WOPI-InvalidFileNameError")?.isEmpty == false)

            // Overwriting an existing file empties it; a locked one is refused with its lock.
            let existing = try await host.addFile("Full.docx", Data("content".utf8), owner: user)
            let existingToken = host.token(user, .file(existing.id))
            expectStatus(try await host.lock(existing.id.rawValue, token: existingToken, "busy"), 200)
            expectLockConflict(try await host.createChildFile(root, token: rootToken, relative: "Full.docx", overwrite: true), currentLock: "busy")
            #expect(try await host.getFile(existing.id.rawValue, token: existingToken).body == Data("content".utf8))
            expectStatus(try await host.unlock(existing.id.rawValue, token: existingToken, "busy"), 200)
            let overwritten = try await host.createChildFile(root, token: rootToken, relative: "Full.docx", overwrite: true)
            expectStatus(overwritten, 200)
            let url = try #require(try overwritten.json()["Url"]?.string)
            #expect(try await host.send(url: url).json()["Size"]?.int == 0)
        }
    }

    @Test("CreateChildFile/CreateChildContainer with both target headers: 501 as the spec asks")
    func createChildBothTargets() async throws {
        try await TestHost.run { host in
            let (_, root, rootToken) = try await rootOf(host)
            expectStatus(try await host.createChildFile(root, token: rootToken, suggested: "a.docx", relative: "b.docx"), 501)
            expectStatus(try await host.createChildContainer(root, token: rootToken, suggested: "A", relative: "B"), 501)
            let children = try await host.enumerateChildren(root, token: rootToken).json()
            #expect(children["ChildFiles"]?.array == [] && children["ChildContainers"]?.array == [])
        }
    }

    @Test("CreateChildContainer: suggested names never fail, exact names clash with 409 and illegal ones are 400")
    func createChildContainer() async throws {
        try await TestHost.run { host in
            let (_, root, rootToken) = try await rootOf(host)
            let first = try await host.createChildContainer(root, token: rootToken, suggested: "Projects")
            expectStatus(first, 200)
            let firstJSON = try first.json()
            _ = try await expectPointer(host, firstJSON["ContainerPointer"], name: "Projects", notFor: (root, rootToken))
            if let info = firstJSON["ContainerInfo"] {
                #expect(info["Name"]?.string == "Projects")
                #expect(info["UserCanDelete"]?.bool == true)
            }
            let second = try await host.createChildContainer(root, token: rootToken, suggested: "projects")
            expectStatus(second, 200)
            let secondName = try #require(try second.json()["ContainerPointer"]?["Name"]?.string)
            #expect(secondName.lowercased() != "projects", "a case-insensitive clash must get a new name")
            let sanitized = try await host.createChildContainer(root, token: rootToken, suggested: UTF7.encode("a/b: c"))
            expectStatus(sanitized, 200)
            #expect(isOfficeSafe(try #require(try sanitized.json()["ContainerPointer"]?["Name"]?.string)))

            let exact = try await host.createChildContainer(root, token: rootToken, relative: UTF7.encode("Été"))
            expectStatus(exact, 200)
            _ = try await expectPointer(host, try exact.json()["ContainerPointer"], name: "Été")
            expectStatus(try await host.createChildContainer(root, token: rootToken, relative: UTF7.encode("Été")), 409)
            expectStatus(try await host.createChildContainer(root, token: rootToken, relative: "Projects"), 409)
            let illegal = try await host.createChildContainer(root, token: rootToken, relative: "a*b")
            expectStatus(illegal, 400)
            #expect(illegal.header("X-WOPI-InvalidContainerNameError")?.isEmpty == false)
            #expect(try await host.enumerateChildren(root, token: rootToken).json()["ChildContainers"]?.array?.count == 4)
        }
    }

    @Test("RenameContainer: 200 with Name, 400 for an illegal name, 409 for a sibling's name")
    func renameContainer() async throws {
        try await TestHost.run { host in
            let (user, _, _) = try await rootOf(host)
            let folder = try await host.addContainer("Old", in: user.rootContainerID)
            _ = try await host.addContainer("Sibling", in: user.rootContainerID)
            let token = host.token(user, .container(folder.id))
            let renamed = try await host.renameContainer(folder.id.rawValue, token: token, to: UTF7.encode("Nouveau dossier – 2025"))
            expectStatus(renamed, 200)
            #expect(try renamed.json()["Name"]?.string == "Nouveau dossier – 2025")
            #expect(try await host.checkContainerInfo(folder.id.rawValue, token: token).json()["Name"]?.string == "Nouveau dossier – 2025")
            let illegal = try await host.renameContainer(folder.id.rawValue, token: token, to: "x/y")
            expectStatus(illegal, 400)
            #expect(illegal.header("X-WOPI-InvalidContainerNameError")?.isEmpty == false)
            expectStatus(try await host.renameContainer(folder.id.rawValue, token: token, to: "sibling"), 409)
            #expect(try await host.checkContainerInfo(folder.id.rawValue, token: token).json()["Name"]?.string == "Nouveau dossier – 2025")

            // A root has no siblings; renaming it changes only its display name.
            let (_, root, rootToken) = (user, user.rootContainerID.rawValue, host.token(user, .container(user.rootContainerID)))
            expectStatus(try await host.renameContainer(root, token: rootToken, to: "Home"), 200)
            #expect(try await host.checkContainerInfo(root, token: rootToken).json()["Name"]?.string == "Home")
        }
    }

    @Test("DeleteContainer: 200 for an empty one (then 404), 409 while it has files or containers, never the root")
    func deleteContainer() async throws {
        try await TestHost.run { host in
            let (user, root, rootToken) = try await rootOf(host)
            let withFile = try await host.addContainer("Has file", in: user.rootContainerID)
            _ = try await host.addFile("x.docx", Data("x".utf8), owner: user, in: withFile.id)
            let withChild = try await host.addContainer("Has child", in: user.rootContainerID)
            _ = try await host.addContainer("Child", in: withChild.id)
            let empty = try await host.addContainer("Empty", in: user.rootContainerID)

            expectStatus(try await host.deleteContainer(withFile.id.rawValue, token: host.token(user, .container(withFile.id))), 409)
            expectStatus(try await host.deleteContainer(withChild.id.rawValue, token: host.token(user, .container(withChild.id))), 409)
            let rootDelete = try await host.deleteContainer(root, token: rootToken)
            #expect(rootDelete.status != 200, "the root container must not be deletable: \(rootDelete)")
            let emptyToken = host.token(user, .container(empty.id))
            expectStatus(try await host.deleteContainer(empty.id.rawValue, token: emptyToken), 200)
            expectStatus(try await host.checkContainerInfo(empty.id.rawValue, token: emptyToken), 404)
            let names = try await host.enumerateChildren(root, token: rootToken).json()["ChildContainers"]?.array?.compactMap { $0["Name"]?.string }
            #expect(names == ["Has child", "Has file"])
        }
    }

    @Test("GetShareUrl on a container, and GetEcosystem from a container")
    func containerShareAndEcosystem() async throws {
        try await TestHost.run { host in
            let (user, root, rootToken) = try await rootOf(host)
            _ = try await host.addFile("Shared.xlsx", Data("cells".utf8), owner: user)
            let response = try await host.containerShareURL(root, token: rootToken, type: "ReadOnly")
            expectStatus(response, 200)
            let url = try #require(try response.json()["ShareUrl"]?.string)
            #expect(url.hasPrefix(TestHost.publicURL + "/share/") && !url.contains(rootToken))
            let page = try await host.send(url: url)
            expectStatus(page, 200)
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(html.contains("Shared.xlsx"), "the folder page lists its files")
            expectStatus(try await host.send(url: url + "/content"), 404, "a folder has no content")
            expectStatus(try await host.containerShareURL(root, token: rootToken, type: "ReadWrite"), 200, "ReadWrite links")
            expectStatus(try await host.containerShareURL(root, token: rootToken, type: "Anonymous"), 501)
            let ecosystem = try await host.containerEcosystem(root, token: rootToken)
            expectStatus(ecosystem, 200)
            let ecosystemURL = try #require(try ecosystem.json()["Url"]?.string)
            #expect(ecosystemURL.hasPrefix("\(TestHost.publicURL)/wopi/ecosystem?access_token="))
            expectStatus(try await host.send(url: ecosystemURL), 200)
            expectStatus(try await host.checkContainerInfo(root, token: accessToken(in: ecosystemURL)), 401)
        }
    }
}
