import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

/// `wopi serve` with browser editors, as an operator starts it: discovery documents served by a
/// stand-in HTTP server, the clients given in the config file or with `--wopi-client`.
@Suite(.serialized) struct BrowserEditorCLITests {
    /// Collabora Online's form: apps named by MIME type, no proof keys.
    static let collaboraDiscovery = """
        <?xml version="1.0" encoding="utf-8"?>
        <wopi-discovery><net-zone name="external-http">
        <app name="application/vnd.openxmlformats-officedocument.wordprocessingml.document">
        <action default="true" ext="" name="edit" urlsrc="http://127.0.0.1:9980/browser/1/cool.html?"/></app>
        </net-zone></wopi-discovery>
        """

    static func temporaryFolder(_ name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("the banner names each client and says where proof checks are off; CheckFileInfo and Collabora's PutFile over HTTP",
          .timeLimit(.minutes(4)))
    func serveWithClients() async throws {
        let folder = try Self.temporaryFolder("browser-editors")
        defer { try? FileManager.default.removeItem(at: folder) }
        // Office's discovery: a key pair made by `wopi proof keygen`, with one Word action added.
        let keygen = try await WopiProcess.run(["proof", "keygen", "--private-key", folder.appendingPathComponent("office.pem").path,
                                          "--discovery", folder.appendingPathComponent("office.xml").path])
        #expect(keygen.exitCode == 0, "\(keygen.stderr)")
        let keyed = try String(contentsOf: folder.appendingPathComponent("office.xml"), encoding: .utf8)
        let officeDiscovery = keyed.replacingOccurrences(of: "<wopi-discovery>", with: """
            <wopi-discovery><net-zone name="external-https"><app name="Word" favIconUrl="https://word.test/word.ico">\
            <action name="edit" ext="docx" urlsrc="https://word.test/we/edit.aspx?&lt;ui=UI_LLCC&amp;&gt;&lt;wopisrc=WOPI_SOURCE&amp;&gt;"/>\
            </app></net-zone>
            """)
        #expect(officeDiscovery.contains("proof-key") && officeDiscovery.contains("ext=\"docx\""))

        try await StaticFileServer.serve(["collabora/hosting/discovery": Data(Self.collaboraDiscovery.utf8),
                                          "office/hosting/discovery": Data(officeDiscovery.utf8)]) { base in
            let collabora = "\(base.absoluteString)/collabora/hosting/discovery"
            let office = "\(base.absoluteString)/office/hosting/discovery"
            // The clients come from the config file, as every serve option can.
            let config = folder.appendingPathComponent("serve.json")
            try JSONSerialization.data(withJSONObject: ["wopi-client": ["collabora=\(collabora)", "office=\(office)"]]).write(to: config)
            let data = folder.appendingPathComponent("data")
            let server = try await WopiServer.start(data: data, extraArguments: ["--config", config.path])
            defer { _ = server.stop() }
            let log = server.log
            #expect(log.contains("Browser editor collabora: \(collabora)   (0 extension(s), 1 MIME type(s); proof keys off: its discovery has none)"), "\(log)")
            #expect(log.contains("Browser editor office: \(office)   (1 extension(s), 0 MIME type(s); proof keys checked)"), "\(log)")

            let id = try #require(log.firstMatch(of: /\S.*\.docx +id ([0-9a-f]{32})/)?.1)
            let minted = try await WopiProcess.run(["token", "--user", "demo", "--file", String(id), "--data", data.path])
            let object = try JSONSerialization.jsonObject(with: Data(minted.stdout.utf8)) as? [String: Any]
            let token = try #require(object?["access_token"] as? String)
            let source = "\(server.baseURL)/wopi/files/\(id)"

            // Unsigned requests pass: Collabora's discovery has no proof keys.
            let info = try await Self.json(try await Self.send(.GET, "\(source)?access_token=\(token)"))
            #expect(info.status == 200)
            #expect(info.object["PostMessageOrigin"] as? String == server.baseURL)
            #expect(info.object["HostEditUrl"] as? String == "\(server.baseURL)/open/\(id)?action=edit")
            let seen = try #require(info.object["LastModifiedTime"] as? String)

            // Collabora's autosave: lock, a stale timestamp is refused with 1010, the one CheckFileInfo gave saves.
            let contents = "\(source)/contents?access_token=\(token)"
            let lock = try await Self.send(.POST, "\(source)?access_token=\(token)", headers: ["X-WOPI-Override": "LOCK", "X-WOPI-Lock": "cool-1"])
            #expect(lock.status == 200)
            let stale = try await Self.json(try await Self.send(.POST, contents, headers: [
                "X-WOPI-Override": "PUT", "X-WOPI-Lock": "cool-1", "X-COOL-WOPI-Timestamp": "2001-01-01T00:00:00Z",
            ], body: "stale"))
            #expect(stale.status == 409)
            #expect(stale.object["COOLStatusCode"] as? Int == 1010)
            let saved = try await Self.json(try await Self.send(.POST, contents, headers: [
                "X-WOPI-Override": "PUT", "X-WOPI-Lock": "cool-1", "X-COOL-WOPI-IsModifiedByUser": "true", "X-COOL-WOPI-IsAutosave": "true",
                "X-COOL-WOPI-Timestamp": seen,
            ], body: "saved"))
            #expect(saved.status == 200)
            #expect(saved.object["LastModifiedTime"] is String)
            let body = try await Self.send(.GET, contents)
            #expect(String(buffer: body.body) == "saved")
            let exit = try await Self.send(.POST, contents, headers: [
                "X-WOPI-Override": "PUT", "X-WOPI-Lock": "cool-1", "X-LOOL-WOPI-IsModifiedByUser": "false", "X-COOL-WOPI-IsExitSave": "true",
            ], body: "closed")
            #expect(exit.status == 200)

            // The history tells the kinds of save apart; the imported sample has none.
            let history = try await WopiProcess.run(["files", "history", String(id), "--data", data.path])
            #expect(history.exitCode == 0, "\(history.stderr)")
            let versions = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]])
            #expect(versions.count == 3)
            #expect(versions.map { $0["save"] as? [String] } == [["exit-save"], ["modified-by-user", "autosave"], nil])
            #expect(try await offPool { server.stop() } == 0)
        }
    }

    @Test("a discovery that cannot be fetched stops the start naming the client (exit 1); a malformed --wopi-client is exit 2",
          .timeLimit(.minutes(10)))
    func unusableClients() async throws {
        let folder = try Self.temporaryFolder("browser-editors-bad")
        defer { try? FileManager.default.removeItem(at: folder) }
        let closed = try LocalPort.free() // nothing listens there
        let unreachable = try await WopiProcess.run(["serve", "--port", String(try LocalPort.free()), "--data", folder.path,
                                               "--wopi-client", "collabora=http://127.0.0.1:\(closed)/hosting/discovery"], timeout: 60)
        #expect(unreachable.exitCode == 1, "\(unreachable.stderr)")
        #expect(unreachable.stderr.contains("browser editor 'collabora': cannot read its discovery at http://127.0.0.1:\(closed)/hosting/discovery"),
                "\(unreachable.stderr)")
        let malformed = try await WopiProcess.run(["serve", "--data", folder.path, "--wopi-client", "collabora"])
        #expect(malformed.exitCode == 2)
        #expect(malformed.stderr.contains("--wopi-client 'collabora': expected NAME=DISCOVERY_URL"), "\(malformed.stderr)")
    }

    /// A response: status and the whole body.
    struct Reply: Sendable {
        var status: Int
        var body: ByteBuffer
    }

    static func send(_ method: HTTPMethod, _ url: String, headers: [String: String] = [:], body: String? = nil) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        return Reply(status: Int(response.status.code), body: try await response.body.collect(upTo: 1 << 20))
    }

    static func json(_ reply: Reply) async throws -> (status: Int, object: [String: Any]) {
        let object = (try? JSONSerialization.jsonObject(with: Data(reply.body.readableBytesView))) as? [String: Any] ?? [:]
        return (reply.status, object)
    }
}
