import Foundation
import NIOHTTP1
import Testing
import TestSupport
import WOPICore
@testable import WOPIAuthorization
@testable import WOPIHost

/// The share-link pages over raw HTTP: the visitor's language, the invalid-link page, `HEAD`, and
/// the download's headers, as a browser or `curl -I` sees them on the wire.
@Suite("Share pages over HTTP")
struct SharePageHTTPTests {
    static let content = Data("Quarterly figures".utf8)

    /// A file shared by link, and the link's path.
    func sharedFile(_ host: TestHost) async throws -> (file: FileRecord, path: String) {
        let alice = try await host.makeUser("alice", displayName: "Alice Example")
        let file = try await host.addFile("Report.docx", Self.content, owner: alice)
        let link = try #require(URL(string: host.backend.shareLink(user: alice.id, item: file.id, isContainer: false)))
        return (file, link.path)
    }

    func get(_ host: TestHost, _ path: String, method: String = "GET", headers: [String] = []) async throws -> RawHTTPResponse {
        let outcome = try await RawHTTPConnection.exchange(port: host.port, head: ["\(method) \(path) HTTP/1.1", "Host: 127.0.0.1",
                                                                                  "Connection: close"] + headers)
        return try #require(outcome.response, "no answer to \(method) \(path)")
    }

    @Test("a share page speaks the Accept-Language of the visitor, or ?lang=, with a localized date that cannot wrap")
    func language() async throws {
        try await TestHost.run { host in
            let (file, path) = try await sharedFile(host)
            let german = try await get(host, path, headers: ["Accept-Language: de-DE,de;q=0.9,en;q=0.5"])
            #expect(german.status == 200)
            let html = String(decoding: german.body, as: UTF8.self)
            #expect(html.hasPrefix(#"<!doctype html><html lang="de"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">"#))
            #expect(html.contains("<title>Report.docx · Geteilte Datei · WOPIKit</title>"))
            #expect(html.contains("Geteilt von Alice Example · nur lesen"))
            #expect(html.contains(">Herunterladen</a>"))
            #expect(html.contains(#"<span class="size">17 Byte</span>"#), "the size in German too")
            let date = PageLanguage.german.dateTime(file.modifiedAt)
            #expect(html.contains(#"<time class="nowrap" datetime="\#(file.modifiedAt.formatted(.iso8601))">\#(date)</time>"#))
            // German writes the day first, with a dot, and its own month names: not the ISO form the page used to show.
            let parts = Calendar(identifier: .gregorian).dateComponents(in: .gmt, from: file.modifiedAt)
            let months = ["Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.", "Nov.", "Dez."]
            #expect(date.hasPrefix("\(parts.day!). \(months[parts.month! - 1]) \(parts.year!)"), "\(date)")

            let chinese = try await get(host, path + "?lang=zh-Hans", headers: ["Accept-Language: de"])
            let chineseHTML = String(decoding: chinese.body, as: UTF8.self)
            #expect(chineseHTML.contains(#"<html lang="zh-Hans">"#))
            #expect(chineseHTML.contains("<title>Report.docx · 共享文件 · WOPIKit</title>"))
            #expect(chineseHTML.contains("\(parts.year!)年\(parts.month!)月\(parts.day!)日"))
            #expect(chinese.header("Set-Cookie")?.hasPrefix("wopi_lang=zh-Hans") == true, "the switch is remembered as on the web front")
            // The language switch of the web front's frame leads back to this page.
            #expect(chineseHTML.contains(#"href="\#(path)?lang=en""#))
        }
    }

    @Test("an invalid, forged or expired link gets an HTML 404 page in the visitor's language, for GET and HEAD")
    func invalidLink() async throws {
        try await TestHost.run { host in
            let (file, path) = try await sharedFile(host)
            let owner = try #require(try await host.folder.store.user(named: "alice"))
            let expired = try #require(URL(string: host.backend.shareLink(user: owner.id, item: file.id, isContainer: false,
                                                                         notAfter: host.clock.now().addingTimeInterval(60))))
            host.clock.advance(by: 120)
            for bad in ["/share/not-a-token", path.tampered(), expired.path, expired.path + "/content"] {
                let page = try await get(host, String(bad), headers: ["Accept-Language: de"])
                #expect(page.status == 404, "\(bad)")
                #expect(page.header("Content-Type") == "text/html; charset=utf-8")
                #expect(page.header("X-Content-Type-Options") == "nosniff")
                let html = String(decoding: page.body, as: UTF8.self)
                #expect(html.contains(#"<html lang="de">"#) && html.contains(#"<meta name="viewport""#))
                #expect(html.contains("<title>Link ungültig · WOPIKit</title>"))
                #expect(html.contains("Dieser Link ist ungültig oder abgelaufen."))
            }
            let chinese = String(decoding: try await get(host, "/share/not-a-token?lang=zh-Hans").body, as: UTF8.self)
            #expect(chinese.contains("<title>链接无效 · WOPIKit</title>"))

            let head = try await get(host, "/share/not-a-token", method: "HEAD")
            #expect(head.status == 404)
            #expect(head.header("Content-Type") == "text/html; charset=utf-8")
            #expect(head.body.isEmpty)
        }
    }

    @Test("HEAD answers the share page and the download with GET's headers and no body")
    func head() async throws {
        try await TestHost.run { host in
            let (_, path) = try await sharedFile(host)
            let page = try await get(host, path)
            let pageHead = try await get(host, path, method: "HEAD")
            #expect(page.status == 200 && pageHead.status == 200)
            for name in ["Content-Type", "Content-Security-Policy", "X-Content-Type-Options", "Cache-Control", "X-Frame-Options"] {
                #expect(pageHead.header(name) != nil && pageHead.header(name) == page.header(name), "\(name)")
            }
            #expect(pageHead.header("Content-Length") == String(page.body.count))
            #expect(pageHead.body.isEmpty)

            let download = try await get(host, path + "/content")
            let downloadHead = try await get(host, path + "/content", method: "HEAD")
            #expect(download.status == 200 && downloadHead.status == 200)
            #expect(download.body == Self.content)
            for name in ["Content-Type", "Content-Disposition", "X-Content-Type-Options", "Cache-Control", "Content-Length"] {
                #expect(downloadHead.header(name) != nil && downloadHead.header(name) == download.header(name), "\(name)")
            }
            #expect(downloadHead.header("Content-Length") == String(Self.content.count))
            #expect(downloadHead.body.isEmpty)
        }
    }

    @Test("the share download is an attachment that browsers must not sniff")
    func downloadHeaders() async throws {
        try await TestHost.run { host in
            let (_, path) = try await sharedFile(host)
            let download = try await get(host, path + "/content")
            #expect(download.status == 200)
            #expect(download.header("X-Content-Type-Options") == "nosniff")
            #expect(download.header("Content-Type") == "application/octet-stream")
            #expect(download.header("Content-Disposition") == "attachment; filename*=UTF-8''Report%2Edocx")
        }
    }

    @Test("the web front's share-link page gives the expiry as the page's language writes a date")
    func shareLinkExpiry() async throws {
        try await WebFrontHTTPTests.withUser { host, user in
            let file = try await host.addFile("Plan.docx", Data("p".utf8), owner: user)
            var visitor = WebFrontHTTPTests.Visitor(host: host)
            _ = try await visitor.signIn()
            let csrf = try #require(WebFrontHTTPTests.Visitor.csrf(in: try await visitor.send(.GET, "/?lang=de")))
            let page = try await visitor.send(.POST, "/files/\(file.id.rawValue)/share", form: [("csrf", csrf)])
            #expect(page.status == 200)
            let expiry = host.clock.now().addingTimeInterval(host.backend.configuration.shareLinkLifetime)
            #expect(page.html.contains("Alle mit diesem Link können Plan.docx bis \(PageLanguage.german.dateTime(expiry)) ansehen (nur lesen)."),
                    "\(page.html)")
        }
    }
}
