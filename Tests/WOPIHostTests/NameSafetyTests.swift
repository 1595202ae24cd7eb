import Foundation
import NIOHTTP1
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

/// Names that would disguise another (bidirectional controls) or that are only an extension are
/// refused by every way in: WOPI with 400 and its error header, the web front with a 400 page that
/// says why in the visitor's language. Nothing changes.
@Suite("Spoofing and extension-only names")
struct SpoofedNameTests {
    static let spoofed = "invoice\u{202E}xcod.docx"

    @Test("WOPI PutRelativeFile, RenameFile and CreateChildContainer refuse them with 400 and X-WOPI-Invalid…NameError")
    func wopi() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Report.docx")
            let user = doc.user
            let rootToken = host.token(user, .container(user.rootContainerID))
            for name in [Self.spoofed, ".docx", " .docx", "a\u{2066}b.docx"] {
                let relative = try await host.putRelativeFile(doc.file.id.rawValue, token: doc.token, relative: UTF7.encode(name), Data("x".utf8))
                expectStatus(relative, 400, "PutRelativeFile \(name.debugDescription)")
                #expect(relative.header("X-WOPI-InvalidFileNameError")?.hasPrefix("invalid name: ") == true, "\(relative)")
                // The valid name it offers instead is itself valid.
                let offered = try #require(relative.header("X-WOPI-ValidRelativeTarget").map { try UTF7.decode($0) })
                #expect(WOPIName.problem(withFileName: offered) == nil, "\(offered.debugDescription)")
            }
            for stem in ["in\u{202D}voice", "", "  "] {
                let rename = try await host.renameFile(doc.file.id.rawValue, token: doc.token, to: UTF7.encode(stem))
                expectStatus(rename, 400, "RenameFile \(stem.debugDescription)")
                #expect(rename.header("X-WOPI-InvalidFileNameError") != nil)
            }
            for name in [".docx", "Plan\u{202B}.docx"] {
                let child = try await host.createChildFile(user.rootContainerID.rawValue, token: rootToken, relative: UTF7.encode(name))
                expectStatus(child, 400, "CreateChildFile \(name.debugDescription)")
                #expect(child.header("X-WOPI-InvalidFileNameError") != nil)
            }
            let folder = try await host.createChildContainer(user.rootContainerID.rawValue, token: rootToken, relative: UTF7.encode("Q\u{202E}4"))
            expectStatus(folder, 400)
            #expect(folder.header("X-WOPI-InvalidContainerNameError") == "invalid name: bidirectional control U+202E at offset 1")
            // A suggested name is made valid instead: a blank stem takes the source's.
            let suggested = try await host.putRelativeFile(doc.file.id.rawValue, token: doc.token, suggested: UTF7.encode(" .xlsx"), Data("y".utf8))
            expectStatus(suggested, 200)
            #expect(try suggested.json()["Name"]?.string == "Report.xlsx")

            let names = try await host.folder.store.children(of: user.rootContainerID)
            #expect(names.files.map(\.name).sorted() == ["Report.docx", "Report.xlsx"])
            #expect(names.containers.isEmpty)
        }
    }

    @Test("the web front refuses them with 400 and the whole reason in the visitor's language", arguments: [
        ("en", Self.spoofed, "The name is not allowed: the text direction character U+202E at position 8 could disguise the name."),
        ("de", Self.spoofed, "Der Name ist nicht erlaubt: Das Textrichtungszeichen U+202E an Position 8 könnte den Namen verfälschen."),
        ("zh-Hans", Self.spoofed, "不允许使用此名称：第 8 个字符是文字方向控制符 U+202E，可能使名称显示失真。"),
        ("de", " .docx", "Der Name ist nicht erlaubt: „.docx“ ist nur eine Dateiendung; davor muss ein Name stehen."),
        ("zh-Hans", ".docx", "不允许使用此名称：“.docx”只有扩展名，请在前面加上名称。"),
        ("de", "Q3<plan.docx", "Der Name ist nicht erlaubt: Das Zeichen „&lt;“ an Position 3 ist in Office für iOS nicht erlaubt."),
        ("zh-Hans", "Q3<plan.docx", "不允许使用此名称：第 3 个字符“&lt;”不能在 iOS 版 Office 中使用。"),
    ])
    func webFront(language: String, name: String, message: String) async throws {
        try await WebFrontHTTPTests.withUser { host, user in
            let file = try await host.addFile("Plan.docx", Data("p".utf8), owner: user)
            var visitor = WebFrontHTTPTests.Visitor(host: host)
            _ = try await visitor.signIn()
            let page = try await visitor.send(.GET, "/?lang=\(language)")
            let csrf = try #require(WebFrontHTTPTests.Visitor.csrf(in: page))
            let renamed = try await visitor.send(.POST, "/files/\(file.id.rawValue)/rename", form: [("csrf", csrf), ("name", name)])
            #expect(renamed.status == 400)
            #expect(renamed.html.contains(#"<p class="error" role="alert" id="error">\#(message)</p>"#), "\(renamed.html)")
            #expect(try await host.folder.store.file(id: file.id)?.name == "Plan.docx")
            // A folder may start with a dot, but never hold a direction control.
            let create = "/folders/\(user.rootContainerID.rawValue)/create"
            #expect(try await visitor.send(.POST, create, form: [("csrf", csrf), ("name", "Q\u{202E}4")]).status == 400)
            #expect(try await visitor.send(.POST, create, form: [("csrf", csrf), ("name", ".config")]).status == 303)
        }
    }
}
