import Foundation
import Testing
@testable import WOPIValidator

@Suite("Parsing Microsoft's TestCases.xml")
struct DefinitionsTests {
    var definitions: ValidatorDefinitions {
        get async throws { try await Fixtures.definitions() }
    }

    @Test("the real file parses into its groups, prereqs, resources and schemas")
    func realFileShape() async throws {
        let definitions = try await self.definitions
        #expect(definitions.groups.count == 33)
        #expect(definitions.prerequisiteCases.count == 27)
        #expect(definitions.resources.count == 19)
        #expect(Set(definitions.schemas.keys) == [
            "CoauthTableSchema", "CsppCheckFileInfoSchema", "CsppPlusCheckFileInfoSchema",
            "GetChunkedFileRequestSchema", "GetChunkedFileResponseSchema", "PutChunkedFileRequestSchema",
        ])
        let cases = definitions.groups.flatMap(\.cases)
        #expect(cases.count == 224)
        var perCategory: [TestCategory: Int] = [:]
        for testCase in cases { perCategory[testCase.category, default: 0] += 1 }
        #expect(perCategory == [.wopiCore: 121, .wopiCoauth: 92, .officeOnline: 9, .officeNativeClient: 2])
    }

    @Test("group sizes and prerequisites match the file")
    func groupDetails() async throws {
        let definitions = try await self.definitions
        let locks = try #require(definitions.group(named: "Locks"))
        #expect(locks.cases.count == 13)
        #expect(locks.prerequisiteNames == ["WopiValidatorPrereq", "FileEditingPrereq", "LocksPrereq"])
        let expiration = try #require(definitions.group(named: "CoauthLockExpiration"))
        #expect(expiration.hasDelay)
        #expect(try #require(definitions.group(named: "AddActivities")).cases.count == 17)
        #expect(try #require(definitions.group(named: "CreateChildFileAndDeleteFile")).cases.count == 14)
    }

    @Test("every request element in the file is understood")
    func everyRequestKindParsed() async throws {
        let definitions = try await self.definitions
        // Count request elements in the raw XML, independently of the parser, and compare.
        let xml = try String(contentsOf: await Fixtures.testCasesURL(), encoding: .utf8)
        var rawCounts: [String: Int] = [:]
        for kind in RequestKind.allCases {
            rawCounts[kind.rawValue] = xml.components(separatedBy: "<\(kind.rawValue) ").count - 1
                + xml.components(separatedBy: "<\(kind.rawValue)>").count - 1
                + xml.components(separatedBy: "<\(kind.rawValue)/>").count - 1
        }
        var parsedCounts: [String: Int] = [:]
        for testCase in definitions.prerequisiteCases + definitions.groups.flatMap(\.cases) {
            for request in testCase.requests + testCase.cleanupRequests { parsedCounts[request.kind.rawValue, default: 0] += 1 }
        }
        for (name, count) in rawCounts where count > 0 {
            #expect(parsedCounts[name] == count, "\(name): \(count) in the XML, \(parsedCounts[name] ?? 0) parsed")
        }
        #expect(parsedCounts["CheckFileInfo"] == 84)
        #expect(parsedCounts["PutRelativeFile"] == 31)
        #expect(parsedCounts["GetFromFileUrl"] == 2)
        let kinds = Set(parsedCounts.keys)
        #expect(kinds.isSuperset(of: ["Lock", "Unlock", "RefreshLock", "UnlockAndRelock", "GetLock", "PutFile", "GetFile", "RenameFile",
                                      "DeleteFile", "PutUserInfo", "EnumerateChildren", "EnumerateAncestors", "CheckContainerInfo",
                                      "CreateChildFile", "CreateChildContainer", "GetShareUrl", "GetEcosystem", "CheckEcosystem",
                                      "GetRootContainer", "RenameContainer", "DeleteContainer", "AddActivities", "Delay"]))
    }

    @Test("validators and state savers come through with their attributes")
    func validatorDetails() async throws {
        let definitions = try await self.definitions
        let prereq = try #require(definitions.prerequisiteCase(named: "WopiValidatorPrereq"))
        let validators = try #require(prereq.requests[0].validators)
        #expect(validators.count == 2)
        guard case .or(let alternatives) = validators[0] else { Issue.record("expected <Or>"); return }
        #expect(alternatives == [.jsonSchema("CsppCheckFileInfoSchema"), .jsonSchema("CsppPlusCheckFileInfoSchema")])
        guard case .jsonContent(true, let properties) = validators[1] else { Issue.record("expected JSON content"); return }
        #expect(properties == [JSONPropertyCheck(kind: .string, name: "BaseFileName", isRequired: true, endsWith: ".wopitest", ignoreCase: true)])

        let savers = definitions.groups.flatMap(\.cases).flatMap(\.requests).flatMap(\.stateSavers)
        #expect(savers.contains(StateSaver(name: "SecondVersion", source: .header("X-WOPI-ItemVersion"))))
        #expect(savers.contains(StateSaver(name: "OriginalVersion", source: .jsonBody("Version"))))
        #expect(savers.contains { $0.source == .jsonBody("AncestorsWithRootFirst[-1:].Url") })
    }

    @Test("the WOPIKit selection plans every WopiCore and OfficeNativeClient case outside the excluded groups")
    func plannedSelection() async throws {
        let definitions = try await self.definitions
        let target = try ConformanceTarget(wopiSrc: FakeWOPIHost.wopiSrc, accessToken: "t")
        let runner = ConformanceRunner(definitions: definitions, target: target, transport: FakeWOPIHost())
        let planned = runner.plannedCases()
        #expect(planned.count == 123)
        #expect(!planned.contains { ["CoauthLocks", "ProofKeys", "IncrementalFileTransferErrorCases"].contains($0.group.name) })
        #expect(planned.filter { $0.testCase.category == .officeNativeClient }.count == 2)
        #expect(!planned.contains { $0.testCase.category == .officeOnline })
    }

    @Test("an unknown request element is an error naming it")
    func unknownRequest() {
        #expect {
            try ValidatorDefinitions(xml: Fixtures.xml(requests: "<CheckFileInfo /><Teleport />"), schemas: [:])
        } throws: { error in
            (error as? DefinitionError)?.reason.contains("<Teleport>") == true
        }
    }

    @Test("an unknown validator, child element or property kind is an error")
    func unknownValidatorPieces() {
        let documents = [
            "<CheckFileInfo><Validators><MagicValidator /></Validators></CheckFileInfo>",
            "<CheckFileInfo><Extras /></CheckFileInfo>",
            "<CheckFileInfo><Validators><JsonResponseContentValidator><FloatProperty Name=\"X\" /></JsonResponseContentValidator></Validators></CheckFileInfo>",
            "<CheckFileInfo><Validators><JsonSchemaValidator Schema=\"Nope\" /></Validators></CheckFileInfo>",
            "<PutFile ResourceId=\"Missing\" />",
            "<PutRelativeFile PutRelativeFileMode=\"Sideways\" Name=\"a.wopitest\" ResourceId=\"Doc\" />",
            "<CheckFileInfo><Validators><ResponseCodeValidator ExpectedCode=\"OK\" /></Validators></CheckFileInfo>",
        ]
        for document in documents {
            #expect(throws: DefinitionError.self, "\(document)") {
                try ValidatorDefinitions(xml: Fixtures.xml(requests: document), schemas: [:])
            }
        }
    }

    @Test("resource stand-in bytes follow the original runner's rule")
    func resourceContent() async throws {
        let definitions = try await self.definitions
        let word = try #require(definitions.resource(id: "WordSimpleDocument"))
        #expect(word.content == Array("WordSimpleDocumentResources\\WordSimpleDocument.docxWordSimpleDocument.docx".utf8))
        #expect(try #require(definitions.resource(id: "ZeroByteFile")).content.isEmpty)
        #expect(try #require(definitions.resource(id: "WordZeroByteDocument")).content.isEmpty == false)
    }
}

/// Inputs the `validator-definitions` fuzz target (Fuzz/) found.
extension DefinitionsTests {
    /// A property element whose name the fuzzer broke with two 0xFF bytes (not UTF-8); Foundation's
    /// XMLParser trapped on it, so a damaged TestCases.xml stopped `wopi validate`.
    @Test("definitions whose element names are not UTF-8 are refused with an error, not a crash")
    func elementNamesThatAreNotUTF8AreRefused() {
        let xml = Data("<WopiValidation><Resources/><TestGroup Name=\"G\"><TestCases><TestCase Name=\"C\"><Requests><CheckFileInfo><Validators><JsonResponseContentValidator><StringR".utf8)
            + Data([0xFF, 0xFF]) + Data("egexProperty Name=\"BaseFileName\" ExpectedValue=\"x\" IsRequired=\"true\"/></JsonResponseContentValidator></Validators></CheckFileInfo></Requests></TestCase></TestCases></TestGroup></WopiValidation>".utf8)
        #expect {
            _ = try ValidatorDefinitions(xml: xml, schemas: [:])
        } throws: { error in
            (error as? DefinitionError)?.reason == "malformed XML: the document is not UTF-8"
        }
    }

    /// The fuzzer's input: a processing instruction without data (`<?lxm?>`), which Foundation's XMLParser on Linux
    /// read through a null pointer.
    @Test("definitions with a processing instruction are refused with an error, not a crash")
    func processingInstructionsAreRefused() {
        let xml = Data("<?lxm?>\n<WopiValidation>\n  <ources>\n          <Validators><ReDocument.do1cx\" FilaPaon=\"1ere".utf8)
        #expect {
            _ = try ValidatorDefinitions(xml: xml, schemas: [:])
        } throws: { error in
            (error as? DefinitionError)?.reason == "malformed XML: the document has a processing instruction"
        }
    }
}
