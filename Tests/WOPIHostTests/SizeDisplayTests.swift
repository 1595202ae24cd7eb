import Foundation
import NIOHTTP1
import Testing
@testable import WOPIAuthorization
@testable import WOPIHost

/// The configured upload limit is shown as the operator wrote it: `--max-file-size` reads `M` as
/// 2^20 bytes, so 512M is "512 MiB", never a rounded decimal "536.9 MB".
@Suite("Size display")
struct SizeDisplayTests {
    @Test("sizes are shown in the unit the operator wrote, exactly")
    func sizeDisplay() {
        #expect(ByteSizeText.exact(512 * 1024 * 1024) == "512 MiB")
        #expect(ByteSizeText.exact(1 << 30) == "1 GiB")
        #expect(ByteSizeText.exact(3 << 30) == "3 GiB")
        #expect(ByteSizeText.exact(1536 * 1024 * 1024) == "1536 MiB")
        #expect(ByteSizeText.exact(1024) == "1 KiB")
        #expect(ByteSizeText.exact(1000) == "1000 B")
        #expect(ByteSizeText.exact(1) == "1 B")
        #expect(ByteSizeText.exact(0) == "0 B")
    }

    @Test("the folder page states the limit in the unit it was configured in")
    func sizeLimitOnPage() async throws {
        try await WebFrontHTTPTests.withUser(maximumFileSize: 512 * 1024 * 1024) { host, _ in
            var visitor = WebFrontHTTPTests.Visitor(host: host)
            _ = try await visitor.signIn()
            let root = try await visitor.send(.GET, "/")
            #expect(root.html.contains(#"<p class="muted" id="limit">Files up to 512 MiB each.</p>"#))
            #expect(!root.html.contains("536.9") && !root.html.contains("512 MB"))
        }
    }
}
