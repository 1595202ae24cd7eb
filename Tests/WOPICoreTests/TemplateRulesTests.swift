import Testing
import WOPICore

@Suite struct TemplateRulesTests {
    @Test(arguments: [
        ("Letter.dotx", "Letter.docx"), ("Macros.DOTM", "Macros.docm"), ("Budget.xltx", "Budget.xlsx"), ("Budget.xltm", "Budget.xlsm"),
        ("Deck.potx", "Deck.pptx"), ("Deck.potm", "Deck.pptm"), ("Letter.ott", "Letter.odt"), ("Sheet.ots", "Sheet.ods"),
        ("Slides.otp", "Slides.odp"), ("Drawing.otg", "Drawing.odg"), ("Q3 plan.v2.Ott", "Q3 plan.v2.odt"),
    ])
    func templatesMakeTheirDocumentType(_ template: String, _ document: String) {
        #expect(TemplateRules.documentName(forTemplateNamed: template) == document)
    }

    @Test(arguments: ["Letter.docx", "notes.txt", "odt", ".ott", "Letter.", "Letter", "Letter.ott.bak", "Letter.dot"])
    func otherFilesAreNoTemplates(_ name: String) {
        #expect(TemplateRules.documentName(forTemplateNamed: name) == nil)
        #expect(TemplateRules.documentExtension(forTemplateNamed: name) == nil)
    }

    @Test func theTemplateIsOfferedOnlyToAnEmptyDocumentMadeFromItWhoseCallerCanReadIt() {
        #expect(TemplateRules.includesTemplateSource(madeFromTemplate: true, fileSize: 0, callerCanReadTemplate: true))
        #expect(!TemplateRules.includesTemplateSource(madeFromTemplate: true, fileSize: 1, callerCanReadTemplate: true), "saved once: gone")
        #expect(!TemplateRules.includesTemplateSource(madeFromTemplate: false, fileSize: 0, callerCanReadTemplate: true))
        #expect(!TemplateRules.includesTemplateSource(madeFromTemplate: true, fileSize: 0, callerCanReadTemplate: false))
    }
}
