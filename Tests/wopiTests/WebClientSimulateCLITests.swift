import Foundation
import Hummingbird
import NIOCore
import TestSupport
import Testing

/// `wopi simulate --client office-web|collabora` through the real binary: both profiles pass against
/// `wopi serve` (Collabora's through the host page a signed-in browser opens), and each stops at
/// the step its planted fault breaks on a stand-in host that is not WOPIKit's code.
@Suite(.serialized) struct WebClientSimulateCLITests {
    /// The JSON lines of a `--json` run.
    static func objects(_ run: WopiProcess.Result) throws -> [[String: Any]] {
        try RoundTripTests.lines(run.stdout).map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON line: \(line)")
        }
    }

    /// Office for the web's form of discovery (apps named Word, actions by extension), here without proof keys.
    static let officeDiscovery = """
        <?xml version="1.0" encoding="utf-8"?>
        <wopi-discovery><net-zone name="external-http">
        <app name="Word" favIconUrl="http://127.0.0.1:9981/wv/resources/1033/FavIcon_Word.ico">
        <action name="edit" ext="docx" urlsrc="http://127.0.0.1:9981/we/wordeditorframe.aspx?&lt;ui=UI_LLCC&amp;&gt;&lt;rs=DC_LLCC&amp;&gt;"/></app>
        </net-zone></wopi-discovery>
        """

    /// `wopi serve` with Collabora Online and Office for the web configured from discoveries the test serves, and the
    /// round-trip fixture's file.
    static func withCollaboraServe(serveArguments: [String] = [], _ body: @Sendable (RoundTripTests.Fixture) async throws -> Void) async throws {
        try await StaticFileServer.serve(["collabora/hosting/discovery": Data(BrowserEditorCLITests.collaboraDiscovery.utf8),
                                          "office/hosting/discovery": Data(Self.officeDiscovery.utf8)]) { base in
            let fixture = try await RoundTripTests.makeFixture(mode: "edit", serveArguments: [
                "--wopi-client", "collabora=\(base.absoluteString)/collabora/hosting/discovery",
                "--wopi-client", "office=\(base.absoluteString)/office/hosting/discovery",
            ] + serveArguments)
            defer { fixture.stop() }
            try await body(fixture)
        }
    }

    @Test("both profiles pass against wopi serve, with a token and through the host page; Collabora's saves land in the history",
          .timeLimit(.minutes(5)))
    func bothProfilesAgainstWopiServe() async throws {
        try await Self.withCollaboraServe { fixture in
            let token = try RoundTripTests.json(try await WopiProcess.run(["token", "--user", RoundTripTests.username, "--file", fixture.fileID,
                                                                           "--data", fixture.data.path]), "token")
            let accessToken = try #require(token["access_token"] as? String)
            let office = try await WopiProcess.run(["simulate", "--client", "office-web", "--wopi-src", fixture.wopiSrc, "--access-token", accessToken])
            #expect(office.exitCode == 0, "\(office.stdout)\n\(office.stderr)\n\(fixture.server.log)")
            let officeLines = RoundTripTests.lines(office.stdout)
            #expect(officeLines.contains { $0.hasPrefix("[ok]   CheckFileInfo:") && $0.contains("PostMessageOrigin \(fixture.server.baseURL);") }, "\(office.stdout)")
            for step in ["Lock", "GetFile", "RefreshLock", "PutFile", "CheckFileInfo after PutFile", "Unlock"] {
                #expect(officeLines.contains { $0.hasPrefix("[ok]   \(step):") }, "\(step) in:\n\(office.stdout)")
            }

            // Without a signed-in browser's cookie the host page sends the user to sign in.
            let hostPage = "\(fixture.server.baseURL)/open/\(fixture.fileID)?action=edit&client=collabora"
            let anonymous = try await WopiProcess.run(["simulate", "--client", "collabora", "--host-page", hostPage, "--json"])
            #expect(anonymous.exitCode == 1)
            #expect(try Self.objects(anonymous).last?["step"] as? String == "host-page", "\(anonymous.stdout)")

            let session = try #require(try await UsersSessionsCLITests.signIn(fixture.server, password: RoundTripTests.password))
            let collabora = try await WopiProcess.run(["simulate", "--client", "collabora", "--host-page", hostPage,
                                                       "--host-page-cookie", "wopi_session=\(session)", "--json"])
            #expect(collabora.exitCode == 0, "\(collabora.stdout)\n\(collabora.stderr)\n\(fixture.server.log)")
            let steps = try Self.objects(collabora)
            #expect(steps.map { $0["step"] as? String ?? "" } == [
                "host-page", "check-file-info", "lock", "get-file", "autosave", "refresh-lock", "other-writer", "stale-autosave",
                "content-untouched", "exit-save", "check-file-info-after-save", "unlock",
            ], "\(collabora.stdout)")
            #expect(steps.allSatisfy { $0["outcome"] as? String == "passed" })
            let page = try #require(steps.first?["detail"] as? String)
            #expect(page.contains("WOPISrc \(fixture.wopiSrc)") && page.contains("to http://127.0.0.1:9980"), "\(page)")
            #expect(!collabora.stdout.contains(session), "the session cookie is never printed")

            // Office for the web through its own host page.
            let officePage = "\(fixture.server.baseURL)/open/\(fixture.fileID)?action=edit&client=office"
            let officeThroughPage = try await WopiProcess.run(["simulate", "--client", "office-web", "--host-page", officePage,
                                                               "--host-page-cookie", "wopi_session=\(session)", "--json"])
            #expect(officeThroughPage.exitCode == 0, "\(officeThroughPage.stdout)\n\(officeThroughPage.stderr)")
            let officeSteps = try Self.objects(officeThroughPage)
            #expect(officeSteps.map { $0["step"] as? String ?? "" } == [
                "host-page", "check-file-info", "lock", "get-file", "refresh-lock", "put-file", "check-file-info-after-save", "unlock",
            ], "\(officeThroughPage.stdout)")
            #expect((officeSteps.first?["detail"] as? String)?.contains("to http://127.0.0.1:9981; WOPISrc \(fixture.wopiSrc)") == true,
                    "\(officeThroughPage.stdout)")

            let after = try await RoundTripTests.stored(fixture)
            #expect(after.lock == "", "the editor released its lock")
            #expect(after.content.suffix(40) == Data("Edited by the WOPIKit Office simulator.\n".utf8))
            // Collabora's headers reached the host: the history tells autosaves, the other writer and the exit save apart.
            let history = try await WopiProcess.run(["files", "history", fixture.fileID, "--data", fixture.data.path])
            let versions = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]], "\(history.stderr)")
            let kinds = versions.map { ($0["save"] as? [String]) ?? [] }
            // Newest first: Office for the web's plain save, then Collabora's exit save.
            #expect(Array(kinds.prefix(2)) == [[], ["modified-by-user", "exit-save"]], "\(kinds)")
            #expect(kinds.contains(["modified-by-user", "autosave"]), "\(kinds)")
        }
    }

    @Test("each profile stops at the step its planted fault breaks, names it, exits 1 and leaves no lock", .timeLimit(.minutes(10)),
          arguments: [(HostFault.missingPostMessageOrigin, "check-file-info", "PostMessageOrigin is missing"),
                      (.collaboraTimestampIgnored, "stale-autosave", "overwriting another writer's save"),
                      (.putFileWithoutLastModifiedTime, "autosave", "the answer has no LastModifiedTime"),
                      (.putFileRefusedWithExternalLock, "autosave", "409 naming the lock 'External'")])
    func plantedFault(_ fault: HostFault, _ step: String, _ reason: String) async throws {
        try await FaultyWOPIHost.withRunning(fault: fault) { host in
            let client = try #require(fault.client)
            let run = try await WopiProcess.run(["simulate", "--client", client, "--wopi-src", host.wopiSrc, "--access-token", FaultyWOPIHost.token, "--json"])
            #expect(run.exitCode == 1, "\(fault): \(run.stdout)\n\(run.stderr)")
            let failed = try #require(try Self.objects(run).last)
            #expect(failed["outcome"] as? String == "failed" && failed["step"] as? String == step, "\(fault): \(run.stdout)")
            #expect((failed["reason"] as? String)?.contains(reason) == true, "\(fault): \(failed)")
            #expect(run.stderr.contains("failed: ") && run.stderr.contains(reason), "\(fault): \(run.stderr)")
            #expect(await host.storage.files["F1"]?.lock == nil, "\(fault): the lock is released")
        }
        // The same client passes on the same host without the fault.
        try await FaultyWOPIHost.withRunning(fault: nil) { host in
            let run = try await WopiProcess.run(["simulate", "--client", fault.client ?? "", "--wopi-src", host.wopiSrc, "--access-token", FaultyWOPIHost.token])
            #expect(run.exitCode == 0, "\(fault) without the fault: \(run.stdout)\n\(run.stderr)")
        }
    }

    @Test("Microsoft's OfficeOnline category against wopi serve with a browser editor and proof keys: its 9 cases pass, 0 failed",
          .timeLimit(.minutes(5)))
    func officeOnlineValidatorCategory() async throws {
        let keys = try BrowserEditorCLITests.temporaryFolder("office-online-keys")
        defer { try? FileManager.default.removeItem(at: keys) }
        let (old, current, discovery) = (keys.appendingPathComponent("old.pem").path, keys.appendingPathComponent("current.pem").path,
                                         keys.appendingPathComponent("discovery.xml").path)
        #expect(try await WopiProcess.run(["proof", "keygen", "--private-key", old, "--discovery", "/dev/null"]).exitCode == 0)
        #expect(try await WopiProcess.run(["proof", "keygen", "--private-key", current, "--old-private-key", old, "--discovery", discovery]).exitCode == 0)
        try await Self.withCollaboraServe(serveArguments: ["--discovery", discovery]) { fixture in
            let scratch = fixture.data.appendingPathComponent("office-online.wopitest")
            try Data("x".utf8).write(to: scratch)
            let added = try RoundTripTests.json(try await WopiProcess.run(["files", "add", scratch.path, "--owner", RoundTripTests.username,
                                                                           "--data", fixture.data.path]), "files add")
            let id = try #require(added["id"] as? String)
            let token = try RoundTripTests.json(try await WopiProcess.run(["token", "--user", RoundTripTests.username, "--file", id,
                                                                           "--data", fixture.data.path]), "token")
            let run = try await WopiProcess.run([
                "validate", "--wopi-src", try #require(added["wopiSrc"] as? String), "--access-token", try #require(token["access_token"] as? String),
                "--access-token-ttl", String(try #require(token["access_token_ttl"] as? Int64)), "--testcases", try await ConformanceTests.testCasesURL().path,
                "--category", "OfficeOnline", "--proof-key", current, "--proof-key-old", old,
            ], timeout: 240)
            #expect(run.exitCode == 0, "\(run.stdout)\n\(run.stderr)")
            let lines = RoundTripTests.lines(run.stdout)
            let officeOnline = ["CheckFileInfoSchema/HostUrls", "PutRelativeFile/PutRelativeFile.IncludeHostUrls"] + [
                "CurrentValid.OldValid", "CurrentValid.OldInvalid", "CurrentInvalid.OldValidSignedWithCurrentKey", "CurrentValidSignedWithOldKey.OldInvalid",
                "CurrentInvalid.OldValidSignedWithOldKey", "CurrentInvalid.OldInvalid", "TimestampOlderThan20Min",
            ].map { "ProofKeys/ProofKeys.\($0)" }
            for name in officeOnline {
                #expect(lines.contains("PASS \(name)"), "\(name):\n\(run.stdout)")
            }
            #expect(lines.last?.contains(" passed, 0 failed, ") == true, "\(lines.last ?? "")")
        }
    }

    @Test("bad --client input exits 2 with one line on stderr")
    func invalidInput() async throws {
        let source = "http://127.0.0.1:1/wopi/files/x"
        let cases: [([String], String)] = [
            (["simulate", "--client", "collabora", "--wopi-src", source], "--access-token"),
            (["simulate", "--client", "teams", "--wopi-src", source, "--access-token", "t"], "--client"),
            (["simulate", "--client", "collabora", "--host-page", "http://127.0.0.1:1/open/x", "--access-token", "t"], "--access-token"),
            (["simulate", "--client", "office-web", "--wopi-src", "\(source)?access_token=t", "--access-token", "t"], "--wopi-src"),
            (["simulate", "ms-word:ofe|u|\(source)|d|S|e|U|n|a.docx|a|App", "--client", "office-web", "--wopi-src", source, "--access-token", "t"], "invoke URI"),
            (["simulate", "--wopi-src", source, "--access-token", "t"], "--client"),
        ]
        for (arguments, mentioned) in cases {
            let run = try await WopiProcess.run(arguments, timeout: 30)
            #expect(run.exitCode == 2, "\(arguments): exit \(run.exitCode), stderr \(run.stderr)")
            #expect(run.stderrLines.count == 1 && run.stderr.contains(mentioned), "\(arguments): stderr \(run.stderr)")
        }
    }
}
