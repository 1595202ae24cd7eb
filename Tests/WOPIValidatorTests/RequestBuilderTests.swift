import Foundation
import Testing
import WOPIHTTPClient
@testable import WOPIValidator

@Suite("Building requests and substituting saved state")
struct RequestBuilderTests {
    let builder = RequestBuilder(wopiSrc: "http://h/wopi/files/1", accessToken: "tok en", accessTokenTTL: 1700000000000,
                                 resources: ["Doc": TestResource(id: "Doc", name: "Doc.docx", filePath: "R\\Doc.docx")],
                                 userAgent: nil)
    let state = SavedState(accessToken: "tok en", wopiSrc: "http://h/wopi/files/1")

    @Test("WOPISrc requests carry the encoded token, ttl, override and bearer header")
    func basicShape() throws {
        let lock = try builder.build(RequestDefinition(kind: .lock, attributes: ["Lock": "L1"]), state: state)
        #expect(lock.method == "POST")
        #expect(lock.url.absoluteString == "http://h/wopi/files/1?access_token=tok%20en&access_token_ttl=1700000000000")
        #expect(lock.headers.value(for: "X-WOPI-Lock") == "L1")
        #expect(lock.headers.value(for: "X-WOPI-Override") == "LOCK")
        #expect(lock.headers.value(for: "Authorization") == "Bearer tok en")
        #expect(lock.body == Data())

        let get = try builder.build(RequestDefinition(kind: .getFile), state: state)
        #expect(get.method == "GET" && get.body == nil)
        #expect(get.url.absoluteString.hasPrefix("http://h/wopi/files/1/contents?access_token="))

        let relock = try builder.build(RequestDefinition(kind: .unlockAndRelock, attributes: ["NewLock": "N", "OldLock": "O"]), state: state)
        #expect(relock.headers.value(for: "X-WOPI-Lock") == "N" && relock.headers.value(for: "X-WOPI-OldLock") == "O")
        #expect(relock.headers.value(for: "X-WOPI-Override") == "LOCK")
    }

    @Test("PutFile and PutRelativeFile upload the resource; names are UTF-7 encoded")
    func uploadsAndNames() throws {
        let put = try builder.build(RequestDefinition(kind: .putFile, attributes: ["ResourceId": "Doc", "Lock": "L"]), state: state)
        #expect(put.body == Data("DocR\\Doc.docxDoc.docx".utf8))
        #expect(put.headers.value(for: "X-WOPI-Override") == "PUT")
        let relative = try builder.build(RequestDefinition(kind: .putRelativeFile, attributes: [
            "ResourceId": "Doc", "Name": "madeup_name.wopitestx", "PutRelativeFileMode": "ExactName", "OverwriteRelative": "true",
        ]), state: state)
        #expect(relative.headers.value(for: "X-WOPI-RelativeTarget") == "madeup+AF8-name.wopitestx")
        #expect(relative.headers.value(for: "X-WOPI-OverwriteRelativeTarget") == "True")
        #expect(relative.headers.value(for: "X-WOPI-Size") == "21")
        #expect(relative.headers.value(for: "X-WOPI-SuggestedTarget") == nil)
        let conflicting = try builder.build(RequestDefinition(kind: .putRelativeFile, attributes: [
            "ResourceId": "Doc", "Name": "a.wopitest", "PutRelativeFileMode": "Conflicting",
        ]), state: state)
        #expect(conflicting.headers.value(for: "X-WOPI-RelativeTarget") != nil && conflicting.headers.value(for: "X-WOPI-SuggestedTarget") != nil)
        let rename = try builder.build(RequestDefinition(kind: .renameFile, attributes: ["Name": "new_name"]), state: state)
        #expect(rename.headers.value(for: "X-WOPI-RequestedName") == "new+AF8-name")
        #expect(rename.headers.value(for: "X-WOPI-Lock") == "")
    }

    @Test("$State: URLs replace the WOPISrc, get the path suffix and bring their own token")
    func stateSubstitution() throws {
        var saved = state
        saved.save("http://h/wopi/files/9?access_token=other", for: "NewFileUrl")
        let get = try builder.build(RequestDefinition(kind: .getFile, attributes: ["OverrideUrl": "$State:NewFileUrl"]), state: saved)
        #expect(get.url.absoluteString == "http://h/wopi/files/9/contents?access_token=other")
        #expect(get.headers.value(for: "Authorization") == "Bearer other")

        // Saved without a value: the original falls back to the WOPISrc …
        saved.save(nil, for: "Gone")
        let fallback = try builder.build(RequestDefinition(kind: .checkFileInfo, attributes: ["OverrideUrl": "$State:Gone"]), state: saved)
        #expect(fallback.url.absoluteString.hasPrefix("http://h/wopi/files/1?"))
        // … except for deletes, which never touch the file under test.
        #expect(throws: RequestBuilder.Failure.self) {
            try builder.build(RequestDefinition(kind: .deleteFile, attributes: ["OverrideUrl": "$State:Gone"]), state: saved)
        }
        // Never saved at all: the request cannot be built.
        #expect(throws: RequestBuilder.Failure.self) {
            try builder.build(RequestDefinition(kind: .checkFileInfo, attributes: ["OverrideUrl": "$State:Never"]), state: saved)
        }
    }

    @Test("a saved URL that is not an absolute URL fails its request, naming the OverrideUrl")
    func notAURL() throws {
        var saved = state
        saved.save("wopi/files/9?access_token=other", for: "NewFileUrl")
        let error = #expect(throws: RequestBuilder.Failure.self) {
            try builder.build(RequestDefinition(kind: .checkFileInfo, attributes: ["OverrideUrl": "$State:NewFileUrl"]), state: saved)
        }
        #expect(error?.reason == "CheckFileInfo has no valid URL to request: OverrideUrl '$State:NewFileUrl' resolved to something that is not a URL")
    }

    @Test("the access-token mutator swaps the token in the URL and the bearer header")
    func accessTokenMutator() throws {
        let request = try builder.build(RequestDefinition(kind: .checkFileInfo, mutators: [.accessToken(mutation: "INVALID")]), state: state)
        #expect(request.url.absoluteString == "http://h/wopi/files/1?access_token=INVALID&access_token_ttl=1700000000000")
        #expect(request.headers.value(for: "Authorization") == "Bearer INVALID")
    }

    @Test("state savers read headers and JSON paths, rendering scalars like .NET")
    func stateSavers() {
        let response = ResponseSnapshot(TransportResponse(status: 200, headers: [HeaderField("X-WOPI-ItemVersion", "7")],
                                                          body: Data(#"{"IsEduUser":true,"Anc":[{"Url":"a"},{"Url":"b"}],"Obj":{}}"#.utf8)),
                                        expectsText: true)
        #expect(ConformanceRunner.value(of: StateSaver(name: "v", source: .header("x-wopi-itemversion")), in: response) == "7")
        #expect(ConformanceRunner.value(of: StateSaver(name: "e", source: .jsonBody("IsEduUser")), in: response) == "True")
        #expect(ConformanceRunner.value(of: StateSaver(name: "u", source: .jsonBody("Anc[-1:].Url")), in: response) == "b")
        #expect(ConformanceRunner.value(of: StateSaver(name: "o", source: .jsonBody("Obj")), in: response) == nil)
        #expect(ConformanceRunner.value(of: StateSaver(name: "m", source: .header("Missing")), in: response) == nil)
    }
}
