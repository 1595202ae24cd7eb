import Foundation
import OfficeURLScheme
import Testing

/// A fake `URLOpening` that answers from a set of installed schemes and records what was opened.
@MainActor
final class FakeOpener: URLOpening {
    var installedSchemes: Set<String>
    var openSucceeds = true
    private(set) var queried: [String] = []
    private(set) var opened: [URL] = []

    init(installed: Set<String>) { installedSchemes = installed }

    func canOpen(_ url: URL) -> Bool {
        queried.append(url.absoluteString)
        return url.scheme.map(installedSchemes.contains) ?? false
    }

    func open(_ url: URL) async -> Bool {
        opened.append(url)
        return openSucceeds && canOpen(url)
    }
}

@MainActor
@Suite struct DetectionTests {
    @Test func detectsInstalledAndWOPISupport() {
        let fake = FakeOpener(installed: ["ms-word", "ms-word-wopi-support-1605", "ms-excel"])
        let detector = OfficeAppDetector(opener: fake)
        #expect(detector.isInstalled(.word) && detector.supportsWOPI(.word))
        #expect(detector.isInstalled(.excel) && !detector.supportsWOPI(.excel))
        #expect(!detector.isInstalled(.powerpoint))
        #expect(!detector.supportsWOPI(.onenote))
        #expect(fake.queried.contains("ms-word-wopi-support-1605:"))
    }

    @Test func opensTheEncodedURLWhenInstalled() async throws {
        let fake = FakeOpener(installed: ["ms-word", "ms-word-wopi-support-1605"])
        let invoke = try OfficeInvokeURI(string: InvokeURITests.seedWOPI)
        let result = await OfficeAppDetector(opener: fake).open(invoke)
        #expect(result == .opened)
        #expect(fake.opened.map(\.absoluteString) == [invoke.percentEncodedString])
        // The check scheme is only ever queried, never opened.
        #expect(!fake.opened.contains { $0.scheme == "ms-word-wopi-support-1605" })
    }

    @Test func offersTheRightStoreProduct() async throws {
        let fake = FakeOpener(installed: [])
        let detector = OfficeAppDetector(opener: fake)
        let onenote = try OfficeInvokeURI(app: .onenote, documentURL: "https://h/n.one")
        #expect(await detector.open(onenote, device: .iPad) == .notInstalled(.onenote, AppStoreProduct(id: 478_105_721, device: .iPad)))
        #expect(await detector.open(onenote, device: .iPhone) == .notInstalled(.onenote, AppStoreProduct(id: 410_395_246, device: .iPhone)))
        #expect(detector.storeProduct(for: .word, device: .iPhone)?.id == 586_447_913)
        #expect(fake.opened.isEmpty)
    }

    @Test func reportsOldAppsAndFailedOpens() async throws {
        let fake = FakeOpener(installed: ["ms-excel"])
        let detector = OfficeAppDetector(opener: fake)
        let wopi = try OfficeInvokeURI(app: .excel, documentURL: "https://h/wopi/files/1", fileName: "a.xlsx")
        let result = await detector.open(wopi)
        #expect(result == .needsUpdate(.excel, AppStoreProduct(id: 586_683_407, device: .universal)))
        #expect(result.userMessage(language: "de")?.contains("Microsoft Excel") == true)
        let plain = try OfficeInvokeURI(app: .excel, documentURL: "https://h/a.xlsx")
        fake.openSucceeds = false
        let failed = await detector.open(plain)
        #expect(failed == .failedToOpen(.excel))
        #expect(failed.userMessage(language: "en") == "Could not open the document in Microsoft Excel.")
        #expect(OfficeLaunchResult.opened.userMessage(language: "en") == nil)
    }
}
