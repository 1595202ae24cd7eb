import Foundation
import Testing

/// `wopi simulate --scenario …` on real processes, against `wopi serve` (with sign-in and with
/// `--access-token`), and against WOPI hosts that are not WOPIKit's code.
@Suite(.serialized) struct ScenarioCLITests {
    /// `wopi` with the long timeout a whole scenario run may need.
    static func run(_ arguments: [String], timeout: Double = 600) async throws -> WopiProcess.Result {
        try await WopiProcess.run(arguments, timeout: timeout)
    }

    /// The `scenario <name>: <word> (…)` summary lines of `--scenario all`, by scenario.
    static func summaries(_ stdout: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in RoundTripTests.lines(stdout) where line.hasPrefix("scenario ") {
            let rest = line.dropFirst("scenario ".count)
            guard let colon = rest.firstIndex(of: ":") else { continue }
            result[String(rest[..<colon])] = String(rest[rest.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        return result
    }

    static let allScenarios = ["open-edit-save", "browse", "create", "save-as", "rename", "conflict", "token-refresh", "upload-pending"]
    /// The order `--scenario all` plays them in: rename last.
    static let playOrder = allScenarios.filter { $0 != "rename" } + ["rename"]

    @Test("every scenario passes against wopi serve with the web sign-in", .timeLimit(.minutes(10)))
    func allScenariosAgainstWopiServe() async throws {
        let fixture = try await RoundTripTests.makeFixture(mode: "edit")
        defer { fixture.stop() }
        let run = try await Self.run([
            "simulate", fixture.invokeURI, "--bootstrapper", fixture.bootstrapper, "--username", RoundTripTests.username,
            "--password", RoundTripTests.password, "--client-id", RoundTripTests.clientID, "--client-secret", RoundTripTests.clientSecret,
            "--scenario", "all",
        ])
        #expect(run.exitCode == 0, "simulate failed:\n\(run.stdout)\n\(run.stderr)\nserver log:\n\(fixture.server.log)")
        let summaries = Self.summaries(run.stdout)
        for scenario in Self.allScenarios {
            #expect(summaries[scenario]?.hasPrefix("passed") == true, "\(scenario): \(summaries[scenario] ?? "no summary line")\n\(run.stdout)")
        }
        let lines = RoundTripTests.lines(run.stdout)
        #expect(lines.contains { $0.hasPrefix("[ok]   Lock while another device holds the lock:") && $0.contains("locked by another user") })
        #expect(lines.contains { $0.hasPrefix("[ok]   Refresh-token grant:") })
        #expect(lines.contains { $0.hasPrefix("[ok]   CheckFileInfo of a listed file:") && $0.contains("Quarterly report.docx") })
        let pending = try #require(lines.first { $0.hasPrefix("[ok]   Passback while the upload is pending:") })
        #expect(pending.contains("|z|yes|"))
        // The upload-pending scenario ends with the final passback, before the summary lines.
        let finalPassback = try #require(lines.last { $0.hasPrefix("clouddrive:") })
        #expect(finalPassback.contains("|z|no|"))

        let after = try await RoundTripTests.stored(fixture)
        #expect(after.lock == "", "every scenario releases its lock")
        #expect(after.content.suffix(40) == Data("Edited by the WOPIKit Office simulator.\n".utf8))
        let listed = try await Self.run(["files", "list", "--owner", RoundTripTests.username, "--data", fixture.data.path], timeout: 60)
        #expect(listed.stdout.contains("New document.docx"), "create's file: \(listed.stdout)")
        #expect(listed.stdout.contains("(saved as on iOS).docx"), "save-as's file: \(listed.stdout)")
        #expect(!listed.stdout.contains("renamed on iOS"), "rename puts the name back: \(listed.stdout)")
        #expect(listed.stdout.contains("\"Quarterly report.docx\""), "rename puts the name back: \(listed.stdout)")
    }

    @Test("--access-token skips the sign-in against wopi serve; browse and token-refresh are skipped", .timeLimit(.minutes(10)))
    func accessTokenAgainstWopiServe() async throws {
        let fixture = try await RoundTripTests.makeFixture(mode: "edit")
        defer { fixture.stop() }
        let token = try RoundTripTests.json(try await Self.run(["token", "--user", RoundTripTests.username, "--file", fixture.fileID,
                                                                "--data", fixture.data.path], timeout: 60), "token")
        let accessToken = try #require(token["access_token"] as? String)
        let run = try await Self.run(["simulate", fixture.invokeURI, "--access-token", accessToken, "--scenario", "all"])
        #expect(run.exitCode == 0, "simulate failed:\n\(run.stdout)\n\(run.stderr)\nserver log:\n\(fixture.server.log)")
        let summaries = Self.summaries(run.stdout)
        for scenario in ["open-edit-save", "create", "save-as", "rename", "conflict", "upload-pending"] {
            #expect(summaries[scenario]?.hasPrefix("passed") == true, "\(scenario): \(summaries[scenario] ?? "none")\n\(run.stdout)")
        }
        for scenario in ["browse", "token-refresh"] {
            #expect(summaries[scenario]?.hasPrefix("skipped") == true, "\(scenario): \(summaries[scenario] ?? "none")")
        }
        #expect(!run.stdout.contains("Bootstrapper challenge") && run.stdout.contains("Given access token"))
        #expect(try await RoundTripTests.stored(fixture).lock == "")
    }

    @Test("--access-token against a WOPI host that is not WOPIKit's: the file scenarios pass", .timeLimit(.minutes(10)))
    func accessTokenAgainstStandInHost() async throws {
        try await FaultyWOPIHost.withRunning(fault: .noContainers) { host in
            let original = await host.storage.files["F1"]?.bytes ?? Data()
            let run = try await Self.run(["simulate", host.invokeURI, "--access-token", FaultyWOPIHost.token, "--scenario", "all"])
            #expect(run.exitCode == 0, "simulate failed:\n\(run.stdout)\n\(run.stderr)")
            let summaries = Self.summaries(run.stdout)
            for scenario in ["open-edit-save", "save-as", "rename", "conflict", "upload-pending"] {
                #expect(summaries[scenario]?.hasPrefix("passed") == true, "\(scenario): \(summaries[scenario] ?? "none")\n\(run.stdout)")
            }
            #expect(summaries["create"]?.contains("SupportsContainers") == true, "create: \(summaries["create"] ?? "none")")
            #expect(summaries["browse"]?.hasPrefix("skipped") == true && summaries["token-refresh"]?.hasPrefix("skipped") == true)

            let file = try #require(await host.storage.files["F1"])
            #expect(file.name == "Plan.docx", "rename puts the name back")
            #expect(file.lock == nil)
            #expect(file.bytes.count > original.count && file.bytes.starts(with: original))
            #expect(await host.storage.names.contains("Plan (saved as on iOS).docx"))
        }
    }

    @Test("--scenario all --json: every line is a JSON object, each scenario starts and ends with a summary object", .timeLimit(.minutes(5)))
    func allScenariosAsJSON() async throws {
        try await FaultyWOPIHost.withRunning(fault: .noContainers) { host in
            let run = try await Self.run(["simulate", host.invokeURI, "--access-token", FaultyWOPIHost.token, "--scenario", "all", "--json"])
            #expect(run.exitCode == 0, "\(run.stdout)\n\(run.stderr)")
            let objects = try RoundTripTests.lines(run.stdout).map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON line: \(line)")
            }
            let starts = objects.filter { $0["event"] as? String == "start" }.compactMap { $0["scenario"] as? String }
            #expect(starts == Self.playOrder)
            let summaries = objects.suffix(Self.playOrder.count)
            #expect(summaries.map { $0["scenario"] as? String ?? "" } == Self.playOrder)
            #expect(summaries.first { $0["scenario"] as? String == "conflict" }?["outcome"] as? String == "passed")
            #expect(summaries.first { $0["scenario"] as? String == "browse" }?["outcome"] as? String == "skipped")
            #expect(objects.contains { $0["step"] as? String == "pending-passback" && ($0["detail"] as? String)?.contains("|z|yes") == true })
        }
    }

    @Test("--scenario all keeps going: a missing IsEduUser fails open-edit-save, and the scenarios that do not read it still run",
          .timeLimit(.minutes(5)))
    func allKeepsGoingAfterAFailure() async throws {
        try await FaultyWOPIHost.withRunning(fault: .missingIsEduUser) { host in
            let run = try await Self.run(["simulate", host.invokeURI, "--access-token", FaultyWOPIHost.token, "--scenario", "all"])
            #expect(run.exitCode == 1, "\(run.stdout)\n\(run.stderr)")
            let summaries = Self.summaries(run.stdout)
            #expect(summaries.keys.sorted() == Self.allScenarios.sorted(), "one summary line per scenario:\n\(run.stdout)")
            let openEditSave = try #require(summaries["open-edit-save"])
            #expect(openEditSave.hasPrefix("FAILED") && openEditSave.contains("IsEduUser is missing"), "\(openEditSave)")
            for scenario in ["create", "save-as", "rename", "conflict", "upload-pending"] {
                #expect(summaries[scenario]?.hasPrefix("passed") == true, "\(scenario): \(summaries[scenario] ?? "none")\n\(run.stdout)")
            }
        }
    }

    @Test("conflict on a file another client has locked: that lock plays the other device and stays; exit 0", .timeLimit(.minutes(5)))
    func conflictWithAForeignLock() async throws {
        try await FaultyWOPIHost.withRunning(fault: nil) { host in
            let foreign = "lock-of-another-client-\(UUID().uuidString)"
            await host.storage.lockAsAnotherClient("F1", foreign)
            let before = try #require(await host.storage.files["F1"])
            let run = try await Self.run(["simulate", host.invokeURI, "--access-token", FaultyWOPIHost.token, "--scenario", "conflict"])
            #expect(run.exitCode == 0, "\(run.stdout)\n\(run.stderr)")
            let lines = RoundTripTests.lines(run.stdout)
            #expect(lines.contains { $0.hasPrefix("[ok]   Another device locks the file:") && $0.contains("already locked by another client ('\(foreign)')") },
                    "\(run.stdout)")
            #expect(lines.contains { $0.hasPrefix("[ok]   Lock while another device holds the lock: 409 with X-WOPI-Lock '\(foreign)'") })
            #expect(lines.contains { $0.hasPrefix("[ok]   PutFile while another device holds the lock: 409 with X-WOPI-Lock '\(foreign)'") })
            #expect(lines.contains { $0.hasPrefix("[skip] Another device unlocks the file:") && $0.contains("left in place") })
            let after = try #require(await host.storage.files["F1"])
            #expect(after.lock == foreign, "the foreign lock is untouched")
            #expect(after.bytes == before.bytes && after.revision == before.revision, "the content is untouched")
        }
    }

    @Test("conflict on an unlocked file takes the other device's lock itself and releases it", .timeLimit(.minutes(5)))
    func conflictOnAnUnlockedFile() async throws {
        try await FaultyWOPIHost.withRunning(fault: nil) { host in
            let run = try await Self.run(["simulate", host.invokeURI, "--access-token", FaultyWOPIHost.token, "--scenario", "conflict"])
            #expect(run.exitCode == 0, "\(run.stdout)\n\(run.stderr)")
            #expect(run.stdout.contains("[ok]   Another device unlocks the file:"))
            #expect(await host.storage.files["F1"]?.lock == nil)
        }
    }

    @Test("bad scenario input exits 2 with one line on stderr")
    func invalidInput() async throws {
        let uri = "ms-word:ofe|u|http://127.0.0.1:1/wopi/files/x|d|S|e|U|n|a.docx|a|App"
        let cases: [([String], String)] = [
            (["simulate", uri, "--access-token", "t", "--scenario", "browse"], "--scenario browse"),
            (["simulate", uri, "--access-token", "t", "--scenario", "teleport"], "--scenario"),
            (["simulate", uri, "--username", "a", "--password", "b"], "--bootstrapper"),
            (["simulate", uri, "--access-token", "", "--scenario", "rename"], "--access-token"),
            (["simulate", uri, "--access-token", "t", "--bootstrapper", "http://127.0.0.1:1/wopibootstrapper"], "--access-token"),
        ]
        for (arguments, mentioned) in cases {
            let run = try await Self.run(arguments, timeout: 30)
            #expect(run.exitCode == 2, "\(arguments): exit \(run.exitCode), stderr \(run.stderr)")
            #expect(run.stderrLines.count == 1 && run.stderr.contains(mentioned), "\(arguments): stderr \(run.stderr)")
        }
    }
}
