import Foundation
import OfficeSimulator
import Testing
import WOPIHTTPClient

/// The Collabora profile with a new document made from a template: CheckFileInfo names a
/// `TemplateSource`, the editor reads it instead of GetFile and saves it as its first autosave.
/// Played against an in-memory stand-in host, once well-behaved and once with a TemplateSource it cannot serve.
@Suite("Collabora profile with TemplateSource")
struct TemplateSourceProfileTests {
    static let wopiSrc = URL(string: "http://stand-in.test/wopi/files/F1")!
    static let template = Data("the template's bytes".utf8)

    /// One empty document made from a template, no locks (no `SupportsLocks`), Collabora's save timestamp checked.
    actor StandIn: HTTPTransport {
        let servesTemplate: Bool
        private(set) var content = Data()
        private(set) var saves: [Data] = []
        private(set) var templateReads = 0
        private(set) var getFiles = 0
        private var modified = Date(timeIntervalSince1970: 1_767_225_600) // 2026-01-01T00:00:00Z

        init(servesTemplate: Bool) { self.servesTemplate = servesTemplate }

        var lastModifiedTime: String { modified.formatted(.iso8601) }

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            switch (request.method, request.url.path) {
            case ("GET", "/templates/T1"):
                guard request.url.query == "access_token=template-token" else { return TransportResponse(status: 401) }
                templateReads += 1
                return TransportResponse(status: servesTemplate ? 200 : 404, body: servesTemplate ? TemplateSourceProfileTests.template : Data())
            case ("GET", "/wopi/files/F1"):
                var info: [String: Any] = [
                    "BaseFileName": "Letter.odt", "OwnerId": "u1", "UserId": "u1", "Version": "v\(saves.count)", "Size": content.count,
                    "UserCanWrite": true, "LastModifiedTime": lastModifiedTime, "PostMessageOrigin": "http://stand-in.test",
                    "HostViewUrl": "http://stand-in.test/open/F1?action=view", "HostEditUrl": "http://stand-in.test/open/F1?action=edit",
                ]
                if content.isEmpty { info["TemplateSource"] = "http://stand-in.test/templates/T1?access_token=template-token" }
                return TransportResponse(status: 200, body: try JSONSerialization.data(withJSONObject: info))
            case ("GET", "/wopi/files/F1/contents"):
                getFiles += 1
                return TransportResponse(status: 200, body: content)
            case ("POST", "/wopi/files/F1/contents"):
                let header = { (name: String) in request.headers.first { $0.name.lowercased() == name.lowercased() }?.value }
                if let seen = header("X-COOL-WOPI-Timestamp"), seen != lastModifiedTime {
                    return TransportResponse(status: 409, body: Data(#"{"COOLStatusCode":1010}"#.utf8))
                }
                content = request.body ?? Data()
                saves.append(content)
                modified = modified.addingTimeInterval(1)
                return TransportResponse(status: 200, body: Data(#"{"LastModifiedTime":"\#(lastModifiedTime)"}"#.utf8))
            default:
                return TransportResponse(status: 404)
            }
        }
    }

    static func simulate(_ host: StandIn) async -> (Result<SimulationResult, SimulationFailure>, [SimulationStep.Name]) {
        let options = WebClientSimulationOptions(client: .collabora, wopiSrc: wopiSrc, accessToken: "document-token")
        let recorder = Names()
        do throws(SimulationFailure) {
            return (.success(try await WebClientSimulator(options: options, transport: host).run { recorder.append($0.name) }), recorder.names)
        } catch {
            return (.failure(error), recorder.names)
        }
    }

    final class Names: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [SimulationStep.Name] = []
        func append(_ name: SimulationStep.Name) { lock.withLock { list.append(name) } }
        var names: [SimulationStep.Name] { lock.withLock { list } }
    }

    @Test("the template is read instead of GetFile and is the first autosave; the session then runs as for any document")
    func templateIsTheFirstAutosave() async throws {
        let host = StandIn(servesTemplate: true)
        let (outcome, names) = await Self.simulate(host)
        let result = try outcome.get()
        #expect(names.prefix(5) == [.givenAccessToken, .checkFileInfo, .lock, .templateSource, .autosave], "\(names)")
        #expect(!names.contains(.getFile), "no GetFile for a document made from a template")
        #expect(await host.templateReads == 1)
        let saves = await host.saves
        #expect(saves.first == Self.template, "the first autosave is the document made from the template")
        #expect(result.savedContent == saves.last)
        let detail = try #require(result.steps.first { $0.name == .templateSource }?.detail)
        #expect(detail.hasPrefix("\(Self.template.count) bytes of template"))
    }

    @Test("a TemplateSource the host cannot serve stops the session at that step, with nothing saved")
    func unreadableTemplate() async throws {
        let host = StandIn(servesTemplate: false)
        let (outcome, names) = await Self.simulate(host)
        guard case .failure(let failure) = outcome else {
            Issue.record("the session passed without the template")
            return
        }
        #expect(failure.step == .templateSource && failure.reason.contains("must answer 200"), "\(failure)")
        #expect(names.last == .templateSource)
        #expect(await host.saves.isEmpty)
        #expect(await host.getFiles == 0)
    }
}
