import Foundation
import OfficeURLScheme
import Testing

@Suite struct OfficeAppTests {
    @Test func schemesAndStoreIDsMatchTheSeeds() {
        #expect(OfficeApp.word.scheme == "ms-word")
        #expect(OfficeApp.onenote.scheme == "onenote")
        #expect(OfficeApp.spd.scheme == "ms-spd")
        #expect(OfficeApp.word.appStoreProducts.map(\.id) == [586_447_913])
        #expect(OfficeApp.excel.appStoreProducts.map(\.id) == [586_683_407])
        #expect(OfficeApp.powerpoint.appStoreProducts.map(\.id) == [586_449_534])
        #expect(OfficeApp.onenote.appStoreProduct(for: .iPhone)?.id == 410_395_246)
        #expect(OfficeApp.onenote.appStoreProduct(for: .iPad)?.id == 478_105_721)
        #expect(OfficeApp.visio.appStoreProducts.isEmpty)
        #expect(OfficeApp.word.appStoreProduct(for: .iPad)?.storeURL.absoluteString == "https://apps.apple.com/app/id586447913")
    }

    @Test func checkAndSignInSchemes() {
        #expect(OfficeApp.word.wopiSupportCheckScheme == "ms-word-wopi-support-1605")
        #expect(OfficeApp.excel.wopiSupportCheckScheme == "ms-excel-wopi-support-1605")
        #expect(OfficeApp.powerpoint.wopiSupportCheckScheme == "ms-powerpoint-wopi-support-1605")
        #expect(OfficeApp.onenote.wopiSupportCheckScheme == nil)
        #expect(OfficeApp.word.signInReturnScheme == "ms-word-tp")
        #expect(OfficeApp.excel.signInReturnScheme == "ms-excel-tp")
        #expect(OfficeApp.powerpoint.signInReturnScheme == "ms-powerpoint-tp")
        #expect(OfficeApp.allSignInReturnSchemes.contains("ms-officemobile-tp"))
    }

    @Test func lookups() {
        #expect(OfficeApp(fileExtension: "budget.xlsx") == .excel)
        #expect(OfficeApp(fileExtension: "XLSX") == .excel)
        #expect(OfficeApp(fileExtension: "https://contoso/a/deck.pptx?x=1") == .powerpoint)
        #expect(OfficeApp(fileExtension: "notes.txt") == nil)
        #expect(OfficeApp(fileExtension: "") == nil)
        #expect(OfficeApp(scheme: "MS-WORD") == .word)
        #expect(OfficeApp(scheme: "clouddrive") == nil)
        #expect(OfficeApp.excel.maximumDocumentURLLength == 216)
        #expect(OfficeApp.word.maximumDocumentURLLength == 256)
        #expect(!OfficeApp.infopath.supportsNewFromTemplate)
        // Every app has a distinct scheme, so parsing is unambiguous.
        #expect(Set(OfficeApp.allCases.map(\.scheme)).count == OfficeApp.allCases.count)
    }
}
