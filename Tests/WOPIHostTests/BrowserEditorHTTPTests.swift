import Foundation
import NIOHTTP1
import Testing
import WOPICore
@testable import WOPIHost

/// What browser editors ask of the host, over real HTTP: the CheckFileInfo fields, Collabora
/// Online's save timestamp and its answer, PutRelativeFile's host URLs, and proof checks per client.
@Suite("Browser editors over HTTP")
struct BrowserEditorHTTPTests {
    /// A Collabora-style discovery (by MIME type, no proof keys) and an Office-style one with `signer`'s keys.
    static func clients(officeSigner: ProofKeySigner? = nil, collabora: Bool = true) async throws -> WebClients {
        var documents: [String: Data] = [:]
        var specs: [WebClientSpec] = []
        if collabora {
            documents["collabora.test"] = Data("""
                <wopi-discovery><net-zone name="external-http">
                <app name="application/vnd.openxmlformats-officedocument.wordprocessingml.document">
                <action default="true" ext="" name="edit" urlsrc="http://collabora.test:9980/browser/1/cool.html?"/></app>
                </net-zone></wopi-discovery>
                """.utf8)
            specs.append(try WebClientSpec(name: "collabora", discoveryURL: "http://collabora.test/hosting/discovery"))
        }
        if let officeSigner {
            var document = officeSigner.discoveryDocument()
            document.actions = [.init(appName: "Word", name: "edit", fileExtension: "docx", urlSource: "https://word.test/we/edit.aspx?<ui=UI_LLCC&>")]
            documents["office.test"] = Data(document.xmlString.utf8)
            specs.append(try WebClientSpec(name: "office", discoveryURL: "https://office.test/hosting/discovery"))
        }
        let served = documents
        return try await WebClients(specs) { url in
            guard let data = served[url.host ?? ""] else { throw DiscoveryLoadError.httpStatus(404) }
            return data
        }
    }

    /// Whether `text` is an ISO 8601 time in UTC to the second, as WOPI's `LastModifiedTime` is.
    static func isISO8601UTC(_ text: String) -> Bool {
        text.wholeMatch(of: #/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/#) != nil
    }

    @Test("CheckFileInfo carries PostMessageOrigin, the host URLs and Collabora's fields only when browser editors are configured")
    func checkFileInfoFields() async throws {
        try await TestHost.run(webClients: try await Self.clients()) { host in
            let doc = try await host.document("Report.docx")
            let info = try await host.checkFileInfo(doc.id, token: doc.token)
            expectStatus(info, 200)
            let json = try info.json()
            #expect(json["PostMessageOrigin"]?.string == "https://wopi.invalid")
            #expect(json["HostViewUrl"]?.string == "https://wopi.invalid/open/\(doc.id)?action=view")
            #expect(json["HostEditUrl"]?.string == "https://wopi.invalid/open/\(doc.id)?action=edit")
            #expect(json["FileSharingUrl"]?.string == "https://wopi.invalid/folders/\(doc.file.containerID.rawValue)")
            #expect(json["DownloadUrl"]?.string == "https://wopi.invalid/files/\(doc.id)/download")
            #expect(json["EnableOwnerTermination"]?.bool == true)
            #expect(json["UserExtraInfo"]?.object?.isEmpty == true)
            let modified = try #require(json["LastModifiedTime"]?.string)
            #expect(Self.isISO8601UTC(modified), "\(modified)")
        }
        try await TestHost.run { host in
            let doc = try await host.document("Report.docx")
            let json = try await host.checkFileInfo(doc.id, token: doc.token).json()
            #expect(json["PostMessageOrigin"] == nil)
            #expect(json["HostEditUrl"] == nil)
            #expect(json["BaseFileName"]?.string == "Report.docx")
        }
    }

    @Test("Collabora's PutFile: a stale X-COOL-/X-LOOL-WOPI-Timestamp gets 409 with COOLStatusCode 1010 and saves nothing; the retry without it saves")
    func saveTimestamp() async throws {
        try await TestHost.run(webClients: try await Self.clients()) { host in
            let doc = try await host.document("Report.docx", Data("v1".utf8))
            let seen = try #require(try await host.checkFileInfo(doc.id, token: doc.token).json()["LastModifiedTime"]?.string)
            let lock = "cool-session-1"
            expectStatus(try await host.lock(doc.id, token: doc.token, lock), 200)

            // An autosave with the time the editor saw: saved, answered with the new time.
            host.clock.advance(by: 5, after: try #require(ISO8601DateFormatter().date(from: seen)))
            let first = try await host.putFile(doc.id, token: doc.token, lock: lock, Data("v2".utf8), [("X-COOL-WOPI-Timestamp", seen)])
            expectStatus(first, 200, "\(seen) \(String(decoding: first.body, as: UTF8.self))")
            let afterFirst = try #require(try first.json()["LastModifiedTime"]?.string)
            #expect(afterFirst != seen)
            #expect(Self.isISO8601UTC(afterFirst))
            #expect(try await host.checkFileInfo(doc.id, token: doc.token).json()["LastModifiedTime"]?.string == afterFirst)

            // Another save changes the file meanwhile (here under the same lock, as a second editor session would).
            host.clock.advance(by: 5)
            let other = try await host.putFile(doc.id, token: doc.token, lock: lock, Data("other".utf8))
            expectStatus(other, 200, "\(other.headers) \(String(decoding: other.body, as: UTF8.self))")

            // The editor's next autosave still carries the time it knew: refused, nothing changes.
            for header in ["X-COOL-WOPI-Timestamp", "X-LOOL-WOPI-Timestamp"] {
                let stale = try await host.putFile(doc.id, token: doc.token, lock: lock, Data("v3".utf8), [(header, afterFirst)])
                expectStatus(stale, 409, header)
                #expect(try stale.json()["COOLStatusCode"]?.int == 1010, "\(header)")
                #expect(try stale.json()["LOOLStatusCode"]?.int == 1010, "\(header): the name older releases read")
                #expect(try await host.getFile(doc.id, token: doc.token).body == Data("other".utf8))
            }

            // "Overwrite": the retry without the header saves.
            let overwrite = try await host.putFile(doc.id, token: doc.token, lock: lock, Data("v3".utf8))
            expectStatus(overwrite, 200)
            #expect(try overwrite.json()["LastModifiedTime"]?.string != nil)
            #expect(try await host.getFile(doc.id, token: doc.token).body == Data("v3".utf8))
        }
    }

    @Test("PutRelativeFile answers the new file's HostViewUrl and HostEditUrl")
    func putRelativeHostURLs() async throws {
        try await TestHost.run(webClients: try await Self.clients()) { host in
            let doc = try await host.document("Report.docx")
            let response = try await host.putRelativeFile(doc.id, token: doc.token, suggested: "Copy.docx", Data("copy".utf8))
            expectStatus(response, 200)
            let json = try response.json()
            let copy = try #require(try await host.folder.store.file(named: "Copy.docx", in: doc.user.rootContainerID))
            #expect(json["HostViewUrl"]?.string == "https://wopi.invalid/open/\(copy.id.rawValue)?action=view")
            #expect(json["HostEditUrl"]?.string == "https://wopi.invalid/open/\(copy.id.rawValue)?action=edit")
        }
    }

    @Test("Proofs: a client without proof keys lets unsigned requests through; with only keyed clients they get 500; a keyed client's proof verifies")
    func proofChecksPerClient() async throws {
        let signer = try ProofKeySigner.generate()
        // Office (keys) and Collabora (none): unsigned passes, a forged proof does not.
        try await TestHost.run(webClients: try await Self.clients(officeSigner: signer)) { host in
            let doc = try await host.document()
            let path = TestHost.filePath(doc.id)
            expectStatus(try await host.send(.GET, path, token: doc.token), 200, "unsigned, Collabora has proof checks off")
            let forged = try ProofKeySigner.generate().sign(accessToken: doc.token, url: "\(TestHost.publicURL)\(path)?access_token=\(TestHost.queryEscaped(doc.token))",
                                                             at: Date())
            expectStatus(try await host.send(.GET, path, token: doc.token, headers: forged.fields.map { ($0.name, $0.value) }), 500, "forged proof")
        }
        // Collabora only: no keys anywhere, so nothing is checked, not even a proof some other client sent.
        try await TestHost.run(webClients: try await Self.clients()) { host in
            let doc = try await host.document()
            let path = TestHost.filePath(doc.id)
            let proof = try signer.sign(accessToken: doc.token, url: "\(TestHost.publicURL)\(path)?access_token=\(TestHost.queryEscaped(doc.token))", at: Date())
            expectStatus(try await host.send(.GET, path, token: doc.token, headers: proof.fields.map { ($0.name, $0.value) }), 200, "no keys to check")
        }
        // Office only: unsigned is refused, Office's proof verifies.
        try await TestHost.run(webClients: try await Self.clients(officeSigner: signer, collabora: false)) { host in
            let doc = try await host.document()
            let path = TestHost.filePath(doc.id)
            expectStatus(try await host.send(.GET, path, token: doc.token), 500, "unsigned")
            let proof = try signer.sign(accessToken: doc.token, url: "\(TestHost.publicURL)\(path)?access_token=\(TestHost.queryEscaped(doc.token))", at: Date())
            expectStatus(try await host.send(.GET, path, token: doc.token, headers: proof.fields.map { ($0.name, $0.value) }), 200, "Office's proof")
        }
    }

    @Test("The host page: signed out goes to sign-in; no-cache; a CSP that lets the form and frame reach the editor's origin only; view for a viewer; 404 without a client")
    func hostPageOverHTTP() async throws {
        try await TestHost.run(webClients: try await Self.clients()) { host in
            _ = try await host.folder.store.createUser(name: "carol", displayName: "Carol",
                                                       passwordHash: PasswordHash(hashing: WebFrontHTTPTests.password, logN: 10))
            let carol = try #require(try await host.folder.store.user(named: "carol"))
            let report = try await host.addFile("Report.docx", Data("r".utf8), owner: carol)
            let notes = try await host.addFile("Notes.txt", Data("n".utf8), owner: carol)
            var visitor = WebFrontHTTPTests.Visitor(host: host)
            let signedOut = try await visitor.send(.GET, "/open/\(report.id.rawValue)?action=edit")
            #expect(signedOut.status == 303 && signedOut.header("Location") == "/")
            _ = try await visitor.signIn()

            let page = try await visitor.send(.GET, "/open/\(report.id.rawValue)?action=edit&client=collabora")
            expectStatus(page, 200)
            #expect(page.header("Cache-Control") == "no-cache, no-store")
            #expect(page.header("Content-Security-Policy") == "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self'; "
                    + "frame-src http://collabora.test:9980; form-action http://collabora.test:9980; frame-ancestors 'none'; base-uri 'none'")
            #expect(page.html.contains("action=\"http://collabora.test:9980/browser/1/cool.html?WOPISrc=https%3A%2F%2Fwopi.invalid%2Fwopi%2Ffiles%2F\(report.id.rawValue)\""))
            #expect(page.html.contains("name=\"access_token_ttl\""))
            #expect(page.html.contains("<script src=\"/assets/host-page.js\" defer></script>"))
            #expect(!page.html.contains("<script>"), "no inline script")
            let script = try await visitor.send(.GET, "/assets/host-page.js")
            #expect(script.status == 200 && script.html.contains("Host_PostmessageReady"))

            // No client opens a .txt file; an unknown client name opens nothing.
            expectStatus(try await visitor.send(.GET, "/open/\(notes.id.rawValue)?action=view"), 404)
            expectStatus(try await visitor.send(.GET, "/open/\(report.id.rawValue)?client=nobody"), 404)
            expectStatus(try await visitor.send(.GET, "/open/\(ResourceID.random().rawValue)"), 404)
        }
    }

    /// Discovery documents a test can change while the host runs.
    final class Published: @unchecked Sendable {
        private let lock = NSLock()
        private var document: Data?
        private(set) var fetches = 0
        init(_ document: Data?) { self.document = document }
        func set(_ document: Data?) { lock.withLock { self.document = document } }
        func fetch() throws -> Data {
            try lock.withLock {
                fetches += 1
                guard let document else { throw DiscoveryLoadError.httpStatus(503) }
                return document
            }
        }
        var fetchCount: Int { lock.withLock { fetches } }
    }

    @Test("Rotated keys: a proof by the new key fails, discovery is read again (at most once a minute) and the proof then verifies; a failed refresh keeps the cached document")
    func refreshAfterProofFailure() async throws {
        let old = try ProofKeySigner.generate()
        let published = Published(Data(old.discoveryDocument().xmlString.utf8))
        let spec = try WebClientSpec(name: "office", discoveryURL: "https://office.test/hosting/discovery")
        let clients = try await WebClients([spec]) { _ in try published.fetch() }
        try await TestHost.run(webClients: clients) { host in
            let doc = try await host.document()
            let path = TestHost.filePath(doc.id)
            func proof(_ signer: ProofKeySigner) throws -> [(String, String)] {
                try signer.sign(accessToken: doc.token, url: "\(TestHost.publicURL)\(path)?access_token=\(TestHost.queryEscaped(doc.token))", at: Date())
                    .fields.map { ($0.name, $0.value) }
            }
            expectStatus(try await host.send(.GET, path, token: doc.token, headers: try proof(old)), 200)
            // The client rotates: its new discovery has the new key as current and the old one as old.
            let rotated = try ProofKeySigner.generate()
            var document = rotated.discoveryDocument()
            document.proofKeys = ProofKeyPair(current: try #require(document.proofKeys).current, old: try #require(old.discoveryDocument().proofKeys).current)
            published.set(Data(document.xmlString.utf8))
            let before = published.fetchCount
            expectStatus(try await host.send(.GET, path, token: doc.token, headers: try proof(rotated)), 200, "verified after re-reading discovery")
            #expect(published.fetchCount == before + 1)
            // A forged proof right after does not make the host read discovery again within the minute.
            expectStatus(try await host.send(.GET, path, token: doc.token, headers: try proof(try ProofKeySigner.generate())), 500)
            #expect(published.fetchCount == before + 1)
        }
        // A refresh that fails keeps what was read.
        published.set(nil)
        #expect(await clients.refreshAll() == false)
        #expect(await clients.proofKeys.count == 1)
        #expect(await clients.client(named: "office") != nil)
        // The periodic refresh (12 hours in `wopi serve`) reads every discovery again on its own.
        let rotatedAgain = try ProofKeySigner.generate()
        published.set(Data(rotatedAgain.discoveryDocument().xmlString.utf8))
        let refresher = Task { await clients.keepFresh(every: .milliseconds(20)) }
        defer { refresher.cancel() }
        let deadline = Date().addingTimeInterval(30)
        while await clients.proofKeys.first != rotatedAgain.discoveryDocument().proofKeys, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await clients.proofKeys.first == rotatedAgain.discoveryDocument().proofKeys)
    }

    @Test("A discovery that cannot be read stops the start with an error naming the client")
    func unreadableDiscovery() async throws {
        let spec = try WebClientSpec(name: "broken", discoveryURL: "http://broken.test/hosting/discovery")
        await #expect(throws: WebClientError.self) {
            _ = try await WebClients([spec]) { _ in Data("<html>not discovery</html>".utf8) }
        }
        do {
            _ = try await WebClients([spec]) { _ in Data("<html>not discovery</html>".utf8) }
        } catch {
            #expect(error.description.contains("broken"))
            #expect(error.description.contains("not a WOPI discovery document"))
        }
        #expect(throws: WebClientError.self) { try WebClientSpec(argument: "no-equals-sign") }
        #expect(throws: WebClientError.self) { try WebClientSpec(argument: "bad name=http://x.test/") }
        #expect(throws: WebClientError.self) { try WebClientSpec(argument: "ftp=ftp://x.test/") }
    }
}
