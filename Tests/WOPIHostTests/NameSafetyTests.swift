import Foundation
import Testing
import WOPICore
@testable import WOPIHost

/// Office for iOS refuses ``\ / : * ? " < > | # { } ^ [ ] ` %`` in BaseFileName, UserId, OwnerId
/// and container names (issues/invalidcharacters.rst); whatever way a name enters, none comes back.
@Suite("Names Office for iOS accepts")
struct NameSafetyTests {
    @Test("Names from every entry point come back without refused characters")
    func noRefusedCharacters() async throws {
        try await TestHost.run { host in
            let hostile = #"Q3: "big" <plan> #1 {x}^[y]`%|*?.docx"#
            let user = try await host.makeUser("eve", displayName: #"Eve / "Evil" #1"#)
            let root = user.rootContainerID.rawValue
            let rootToken = host.token(user, .container(user.rootContainerID))
            // Through the store, as `wopi files add` does with a name taken from a local file.
            let imported = try await host.addFile(hostile, Data("i".utf8), owner: user)
            let importedToken = host.token(user, .file(imported.id))
            // Through the protocol, in suggested mode (which must make any name legal).
            expectStatus(try await host.createChildFile(root, token: rootToken, suggested: UTF7.encode(hostile)), 200)
            expectStatus(try await host.createChildContainer(root, token: rootToken, suggested: UTF7.encode(#"Dir: <a>|b?"#)), 200)
            expectStatus(try await host.putRelativeFile(imported.id.rawValue, token: importedToken, suggested: UTF7.encode(#"Copy {1} [2] ^3 `4` %5.xlsx"#),
                                                        Data("c".utf8)), 200)

            let info = try await host.checkFileInfo(imported.id.rawValue, token: importedToken)
            expectStatus(info, 200)
            let json = try info.json()
            for key in ["BaseFileName", "UserId", "OwnerId", "BreadcrumbFolderName"] {
                let value = try #require(json[key]?.string, "\(key) missing")
                #expect(isOfficeSafe(value), "\(key) = \(value)")
            }
            let container = try await host.checkContainerInfo(root, token: rootToken).json()
            #expect(isOfficeSafe(try #require(container["Name"]?.string)))

            let children = try await host.enumerateChildren(root, token: rootToken).json()
            let files = try #require(children["ChildFiles"]?.array)
            #expect(files.count == 3)
            let containers = try #require(children["ChildContainers"]?.array)
            #expect(containers.count == 1)
            for entry in files + containers {
                let name = try #require(entry["Name"]?.string)
                #expect(isOfficeSafe(name), "listed name \(name)")
            }
            #expect(files.allSatisfy { $0["Name"]?.string?.hasSuffix(".docx") == true || $0["Name"]?.string?.hasSuffix(".xlsx") == true },
                    "making a name legal must keep its extension")
        }
    }
}
