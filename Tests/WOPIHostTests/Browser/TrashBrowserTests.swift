import Foundation
import Testing
import WOPICore
@testable import WOPIHost

/// The trash in headless Chromium, as a person uses it: a delete asks first (a page of its own, no
/// script needed), then says "Moved to Trash" with Undo; the Trash page restores a file and a folder
/// with its contents. Every page is checked like the other browser pages.
@Suite("Trash in a browser", .serialized)
struct TrashBrowserTests {
    @Test("delete asks first, Undo brings the file back; the Trash page restores a file and a folder with its contents")
    func deleteConfirmUndoAndRestore() async throws {
        try await BrowserHost.run { host in
            let store = host.folder.store
            let archive = try await store.createContainer(named: "Archive", in: host.user.rootContainerID)
            let kept = try await host.folder.importFile(data: Data("old notes".utf8), as: "Notes.docx", into: archive.id)
            try await HeadlessChromium.run { driver in
                let pages = PageChecks(driver: driver)
                let browser = Browser(driver: driver)
                try await driver.navigate(host.baseURL + "/")
                try await browser.signIn(password: BrowserHost.password)
                try await browser.waitFor("the file list") { try await driver.elements("#listing").count == 1 }
                let row = "li[data-name='Report.docx']"

                // The first step only asks; Cancel changes nothing.
                try await driver.click(try await driver.element("\(row) summary"))
                try await driver.click(try await driver.element("\(row) button.delete"))
                try await browser.waitFor("the confirmation") { try await driver.elements("#confirm-delete").count == 1 }
                #expect(try await driver.text(try await driver.element("h1")) == "Move “Report.docx” to the Trash?")
                try await pages.check("trash-01-confirm")
                try await driver.click(try await driver.element("#cancel-delete"))
                try await browser.waitFor("the folder again") { try await driver.elements("#listing").count == 1 }
                #expect(try await browser.names().contains("Report.docx"))
                #expect(try await store.file(id: host.report.id) != nil)

                // Confirmed: moved to the Trash, gone for the store's lookups, and the notice offers Undo.
                try await driver.click(try await driver.element("\(row) summary"))
                try await driver.click(try await driver.element("\(row) button.delete"))
                try await browser.waitFor("the confirmation") { try await driver.elements("#confirm-delete").count == 1 }
                try await driver.click(try await driver.element("#confirm-delete"))
                try await browser.waitFor("the notice") { try await driver.elements("#moved").count == 1 }
                #expect(try await driver.text(try await driver.element("#moved p")) == "Moved to Trash: “Report.docx”")
                #expect(try await Self.trashNames(driver) == ["Report.docx"])
                #expect(try await store.file(id: host.report.id) == nil)
                try await pages.check("trash-02-moved")

                // Undo: back in its folder with the same id and content.
                try await driver.click(try await driver.element("#undo"))
                try await browser.waitFor("the folder with the file back") { try await browser.names().contains("Report.docx") }
                let restored = try #require(try await store.file(id: host.report.id))
                #expect(restored.blobKey == host.report.blobKey && restored.containerID == host.user.rootContainerID)
                #expect(try await store.trashedItems(ownedBy: host.user.id).isEmpty)

                // A folder goes with its contents; the Trash page, reached from the folder page, restores it.
                let folderRow = "li[data-name='Archive']"
                try await driver.click(try await driver.element("\(folderRow) summary"))
                try await driver.click(try await driver.element("\(folderRow) button.delete"))
                try await browser.waitFor("the confirmation") { try await driver.elements("#confirm-delete").count == 1 }
                try await driver.click(try await driver.element("#confirm-delete"))
                try await browser.waitFor("the notice") { try await driver.elements("#moved").count == 1 }
                #expect(try await store.file(id: kept.id) == nil, "the folder's file went with it")
                try await driver.navigate(host.baseURL + "/")
                try await browser.waitFor("the folder list") { try await driver.elements("#trash-link").count == 1 }
                #expect(!(try await browser.names().contains("Archive")))
                try await driver.click(try await driver.element("#trash-link"))
                try await browser.waitFor("the Trash page") { try await driver.elements("#trash").count == 1 }
                #expect(try await driver.elements("#moved").isEmpty, "no notice without a delete")
                #expect(try await Self.trashNames(driver) == ["Archive"])
                try await pages.check("trash-03-page")
                try await driver.click(try await driver.element("#trash li[data-name='Archive'] button.restore"))
                try await browser.waitFor("the folder back") { try await browser.names().contains("Archive") }
                #expect(try await store.file(id: kept.id)?.containerID == archive.id)

                // The Trash page speaks the chosen language, and says when it is empty.
                try await driver.navigate(host.baseURL + "/trash?lang=de")
                try await browser.waitFor("the German Trash page") { try await driver.text(try await driver.element("h1")) == "Papierkorb" }
                #expect(try await driver.text(try await driver.element("#trash")) == "Der Papierkorb ist leer.")
                try await pages.check("trash-04-empty-de")
                try await driver.navigate(host.baseURL + "/?lang=en")
            }
        }
    }

    @Test("Delete forever and Empty Trash ask first on a page of their own, then remove for good")
    func deleteForeverAndEmpty() async throws {
        try await BrowserHost.run { host in
            let store = host.folder.store
            let notes = try await host.folder.importFile(data: Data("notes".utf8), as: "Notes.docx", into: host.user.rootContainerID)
            _ = try await store.trashFile(host.report.id, lock: nil, now: Date())
            _ = try await store.trashFile(notes.id, lock: nil, now: Date().addingTimeInterval(1))
            try await HeadlessChromium.run { driver in
                let pages = PageChecks(driver: driver)
                let browser = Browser(driver: driver)
                try await driver.navigate(host.baseURL + "/")
                try await browser.signIn(password: BrowserHost.password)
                try await browser.waitFor("the file list") { try await driver.elements("#listing").count == 1 }
                try await driver.navigate(host.baseURL + "/trash")
                try await browser.waitFor("the Trash page") { try await driver.elements("#trash").count == 1 }
                #expect(try await Self.trashNames(driver) == ["Notes.docx", "Report.docx"])

                // Delete forever: Cancel changes nothing; confirmed, the item is gone for good.
                try await driver.click(try await driver.element("#trash li[data-name='Report.docx'] a.purge"))
                try await browser.waitFor("the confirmation") { try await driver.elements("#confirm-delete").count == 1 }
                #expect(try await driver.text(try await driver.element("h1")) == "Delete “Report.docx” forever?")
                try await pages.check("trash-05-delete-forever")
                try await driver.click(try await driver.element("#cancel-delete"))
                try await browser.waitFor("the Trash page again") { try await driver.elements("#trash").count == 1 }
                #expect(try await Self.trashNames(driver) == ["Notes.docx", "Report.docx"])
                try await driver.click(try await driver.element("#trash li[data-name='Report.docx'] a.purge"))
                try await browser.waitFor("the confirmation") { try await driver.elements("#confirm-delete").count == 1 }
                try await driver.click(try await driver.element("#confirm-delete"))
                try await browser.waitFor("the Trash without it") { try await Self.trashNames(driver) == ["Notes.docx"] }
                await #expect(throws: WOPIStoreError.notFound) { try await store.restoreFromTrash(host.report.id, as: nil) }

                // Empty Trash, in German.
                try await driver.navigate(host.baseURL + "/trash?lang=de")
                try await browser.waitFor("the German Trash page") { try await driver.elements("#empty-trash").count == 1 }
                try await driver.click(try await driver.element("#empty-trash"))
                try await browser.waitFor("the confirmation") { try await driver.elements("#confirm-delete").count == 1 }
                #expect(try await driver.text(try await driver.element("h1")) == "Papierkorb leeren?")
                #expect(try await driver.text(try await driver.element("#confirm-delete")) == "Papierkorb leeren")
                try await pages.check("trash-06-empty-confirm-de")
                try await driver.click(try await driver.element("#confirm-delete"))
                try await browser.waitFor("the empty Trash") { try await driver.elements("#trash li[data-name]").isEmpty }
                #expect(try await driver.text(try await driver.element("#trash")) == "Der Papierkorb ist leer.")
                #expect(try await driver.elements("#empty-trash").isEmpty, "nothing left to empty")
                #expect(try await store.trashedItems(ownedBy: host.user.id).isEmpty)
                try await driver.navigate(host.baseURL + "/?lang=en")
            }
        }
    }

    /// The names on the Trash page, in order.
    static func trashNames(_ driver: WebDriverClient) async throws -> [String] {
        try await driver.execute("""
            return Array.prototype.map.call(document.querySelectorAll('#trash li[data-name]'), function (li) { return li.getAttribute('data-name'); });
            """) as? [String] ?? []
    }
}
