import Foundation
import Testing
import WOPIValidator

/// `wopi check-host` says "ready" for `wopi serve` and names the exact rule a host with a planted
/// fault breaks; `wopi onboarding` fills Microsoft's form from the data folder or from any host.
@Suite(.serialized) struct CheckHostCLITests {
    @Test("check-host: wopi serve is ready; every family runs; the JUnit XML has no failure", .timeLimit(.minutes(15)))
    func wopiServeIsReady() async throws {
        let fixture = try await RoundTripTests.makeFixture(mode: "edit")
        defer { fixture.stop() }
        let token = try RoundTripTests.json(try await ScenarioCLITests.run(["token", "--user", RoundTripTests.username, "--file", fixture.fileID,
                                                                             "--data", fixture.data.path], timeout: 60), "token")
        let accessToken = try #require(token["access_token"] as? String)
        let junit = fixture.data.appendingPathComponent("check-host.xml")
        let run = try await ScenarioCLITests.run([
            "check-host", "--wopi-src", fixture.wopiSrc, "--access-token", accessToken, "--bootstrapper", fixture.bootstrapper,
            "--username", RoundTripTests.username, "--password", RoundTripTests.password,
            "--client-id", RoundTripTests.clientID, "--client-secret", RoundTripTests.clientSecret,
            "--testcases", try await ConformanceTests.testCasesURL().path, "--junit", junit.path,
        ], timeout: 900)
        #expect(run.exitCode == 0, "check-host failed:\n\(run.stdout)\n\(run.stderr)\nserver log:\n\(fixture.server.log)")
        let lines = RoundTripTests.lines(run.stdout)
        #expect(lines.last?.hasPrefix("verdict: ready") == true, "\(lines.last ?? "")")
        for rule in ["checkfileinfo.required-properties", "checkfileinfo.property-types", "checkfileinfo.licensing-properties",
                     "checkfileinfo.refused-characters", "checkfileinfo.containers-and-delete", "licensing.file-equals-folder",
                     "bootstrapper.challenge-format", "transport.https"] {
            #expect(lines.contains { $0.hasPrefix("[ok]   rule \(rule):") }, "no passed rule \(rule) in:\n\(run.stdout)")
        }
        for scenario in ScenarioCLITests.allScenarios {
            #expect(lines.contains { $0.hasPrefix("[ok]   scenario \(scenario):") }, "scenario \(scenario) did not pass:\n\(run.stdout)")
        }
        #expect(lines.filter { $0.hasPrefix("[ok]   validator ") }.count > 50, "the validator ran:\n\(run.stdout)")
        #expect(!lines.contains { $0.hasPrefix("[FAIL]") })

        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.hasPrefix("<?xml") && xml.contains("<testsuites name=\"wopi check-host\""))
        for suite in ["rule", "validator", "scenario"] {
            #expect(xml.contains("<testsuite name=\"\(suite)\""), "no \(suite) suite in the JUnit XML")
        }
        #expect(!xml.contains("<failure"))
        #expect(xml.contains("<testcase classname=\"check-host.scenario\" name=\"upload-pending\">"))
    }

    @Test("check-host: a host with IsEduUser as a string is not ready, and the line names the rule", .timeLimit(.minutes(10)))
    func plantedFaultIsNamed() async throws {
        try await FaultyWOPIHost.withRunning(faults: [.isEduUserAsString, .noContainers]) { host in
            let junit = FileManager.default.temporaryDirectory.appendingPathComponent("check-host-\(UUID().uuidString).xml")
            defer { try? FileManager.default.removeItem(at: junit) }
            let run = try await ScenarioCLITests.run([
                "check-host", "--wopi-src", host.wopiSrc, "--access-token", FaultyWOPIHost.token,
                "--testcases", try await ConformanceTests.testCasesURL().path, "--junit", junit.path,
            ], timeout: 600)
            #expect(run.exitCode == 1, "\(run.stdout)\n\(run.stderr)")
            let lines = RoundTripTests.lines(run.stdout)
            #expect(lines.contains("[FAIL] rule checkfileinfo.property-types: IsEduUser is a string (\"no\"), not a Boolean"), "\(run.stdout)")
            #expect(lines.contains { $0.hasPrefix("[ok]   rule checkfileinfo.required-properties:") })
            let verdict = try #require(lines.last)
            #expect(verdict.hasPrefix("verdict: not ready:") && verdict.contains("rule checkfileinfo.property-types"), "\(verdict)")
            let xml = try String(contentsOf: junit, encoding: .utf8)
            #expect(xml.contains("<testcase classname=\"check-host.rule\" name=\"checkfileinfo.property-types\">\n      <failure message=\"IsEduUser is a string (&quot;no&quot;), not a Boolean\">"))
        }
    }

    @Test("check-host --client: a CheckFileInfo without PostMessageOrigin fails each browser editor's rule with a line naming the property",
          .timeLimit(.minutes(5)))
    func browserEditorPropertyIsNamed() async throws {
        try await FaultyWOPIHost.withRunning(fault: .missingPostMessageOrigin) { host in
            let run = try await FaultCorpusTests.checkHost(host, ["--client", "office-web", "--client", "collabora"])
            #expect(run.exitCode == 1, "\(run.stdout)\n\(run.stderr)")
            let lines = RoundTripTests.lines(run.stdout)
            #expect(lines.contains { $0.hasPrefix("[FAIL] rule checkfileinfo.office-web-properties: PostMessageOrigin is missing; Office for the web needs it: "
                                   + "Office for the web sends its PostMessage to that origin (online/postmessage.rst)") }, "\(run.stdout)")
            // Collabora Online reads it as optional: a warning naming the source, and its scenario runs to the end.
            #expect(lines.contains { $0.hasPrefix("[warn] rule checkfileinfo.collabora-properties: PostMessageOrigin is missing; Collabora Online works without it")
                && $0.hasSuffix("(Collabora Online: Collabora Online's wsd/reference.md and wsd/wopi/CheckFileInfo.cpp)") }, "\(run.stdout)")
            #expect(lines.contains { $0.hasPrefix("[ok]   scenario collabora:") }, "\(run.stdout)")
            #expect(lines.contains { $0.hasPrefix("[FAIL] scenario office-web: CheckFileInfo failed: PostMessageOrigin is missing") }, "\(run.stdout)")
            // The mobile rules do not ask for it: Office for iOS never reads it.
            #expect(lines.contains { $0.hasPrefix("[ok]   rule checkfileinfo.required-properties:") })
            let verdict = try #require(lines.last)
            #expect(verdict.contains("rule checkfileinfo.office-web-properties") && verdict.contains("rule checkfileinfo.collabora-properties"), "\(verdict)")
        }
    }

    @Test("check-host: content a scenario cannot put back is said in one line at the end", .timeLimit(.minutes(10)))
    func contentLeftIsSaid() async throws {
        // Another client holds the file's lock, and the host writes with the wrong lock: the write the conflict
        // scenario expects to be refused goes through, and the file cannot be locked to write its content back.
        try await FaultyWOPIHost.withRunning(fault: .putWithWrongLockAnswers200) { host in
            let content = try #require(await host.storage.files["F1"]?.bytes)
            await host.storage.lockAsAnotherClient("F1", "another-client-lock")
            let run = try await FaultCorpusTests.checkHost(host)
            #expect(run.exitCode == 1, "\(run.stdout)\n\(run.stderr)")
            let lines = RoundTripTests.lines(run.stdout)
            #expect(lines.contains { $0.hasPrefix("[FAIL] scenario conflict:") }, "\(run.stdout)")
            let left = lines.filter { $0.hasPrefix("left on the host:") }
            #expect(left == ["left on the host: scenario conflict: '\(FaultyWOPIHost.fileName)' holds what the session wrote, not the \(content.count) bytes "
                                + "it held before: putting them back failed (Lock answered HTTP 409, locked by 'another-client-lock'); "
                                + "put its content back on the host"], "\(run.stdout)")
            #expect(lines.firstIndex { $0.hasPrefix("left on the host:") } == lines.count - 2, "said at the end, before the verdict:\n\(run.stdout)")
            #expect(await host.storage.files["F1"]?.bytes != content, "the line tells the truth: the content is not the first one")
        }
    }

    @Test("check-host: the same host without the planted fault passes that rule", .timeLimit(.minutes(10)))
    func withoutThePlantedFault() async throws {
        try await FaultyWOPIHost.withRunning(fault: .noContainers) { host in
            let run = try await ScenarioCLITests.run([
                "check-host", "--wopi-src", host.wopiSrc, "--access-token", FaultyWOPIHost.token,
                "--testcases", try await ConformanceTests.testCasesURL().path,
            ], timeout: 600)
            let lines = RoundTripTests.lines(run.stdout)
            #expect(lines.contains { $0.hasPrefix("[ok]   rule checkfileinfo.property-types:") }, "\(run.stdout)")
            #expect(lines.contains { $0.hasPrefix("[ok]   rule checkfileinfo.licensing-properties:") }, "\(run.stdout)")
            // The stand-in implements files only, which Office for iOS does not accept: the containers rule says so.
            #expect(lines.contains("[FAIL] rule checkfileinfo.containers-and-delete: SupportsContainers is not true; Office for iOS needs the container operations"))
            #expect(lines.contains { $0.hasPrefix("[ok]   scenario conflict:") } && lines.contains { $0.hasPrefix("[ok]   scenario upload-pending:") })
            #expect(run.exitCode == 1)
        }
    }

    @Test("check-host: bad input exits 2 with one line on stderr")
    func invalidInput() async throws {
        // Each input is refused before the definitions are looked for: this test needs none installed.
        // Found where they are, never fetched for it.
        let testcases = (try? DefinitionsLocation.find(environment: ProcessInfo.processInfo.environment).testCasesURL.path) ?? "/nonexistent/TestCases.xml"
        let cases: [([String], String)] = [
            (["check-host", "--wopi-src", "ftp://x/wopi/files/1", "--access-token", "t", "--testcases", testcases], "--wopi-src"),
            (["check-host", "--wopi-src", "http://127.0.0.1:1/wopi/files/1", "--access-token", "", "--testcases", testcases], "--access-token"),
            (["check-host", "--wopi-src", "http://127.0.0.1:1/wopi/files/1", "--access-token", "t", "--username", "a", "--password", "b",
              "--testcases", testcases], "--bootstrapper"),
            (["check-host", "--wopi-src", "http://127.0.0.1:1/wopi/files/1", "--access-token", "t", "--junit", "/nonexistent-folder/x.xml",
              "--testcases", testcases], "--junit"),
        ]
        for (arguments, mentioned) in cases {
            let run = try await ScenarioCLITests.run(arguments, timeout: 30)
            #expect(run.exitCode == 2, "\(arguments): exit \(run.exitCode), stderr \(run.stderr)")
            #expect(run.stderrLines.count == 1 && run.stderr.contains(mentioned), "\(arguments): stderr \(run.stderr)")
        }
    }

    @Test("onboarding: the form filled from the data folder, with the http: bootstrapper named as a problem", .timeLimit(.minutes(5)))
    func onboarding() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-onboarding-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: data) }

        // Before wopi serve ever ran: the fields are missing.
        let empty = try RoundTripTests.json(try await ScenarioCLITests.run(["onboarding", "--data", data.path], timeout: 60), "onboarding")
        #expect((empty["missing"] as? [String])?.contains("BootstrapUrl") == true)
        #expect((empty["missing"] as? [String])?.contains("ClientId") == true)

        let server = try await WopiServer.start(data: data, extraArguments: ["--office-client-id", "contoso-office", "--office-client-secret", "s3cret-value"])
        let port = server.port
        server.stop()
        let local = try RoundTripTests.json(try await ScenarioCLITests.run(["onboarding", "--data", data.path], timeout: 60), "onboarding")
        #expect(local["BootstrapUrl"] as? String == "http://127.0.0.1:\(port)/wopibootstrapper")
        #expect(local["ClientId"] as? String == "contoso-office")
        #expect(local["RedirectUri"] as? String == "https://localhost")
        #expect(local["SupportRefresh"] as? Bool == true && local["ClientAppName"] as? String == "Office")
        #expect(local["AuthUriDomains"] as? String == "127.0.0.1")
        let problems = try #require(local["problems"] as? [[String: String]])
        #expect(problems.contains { $0["field"] == "BootstrapUrl" && $0["problem"]?.contains("http: URL") == true }, "\(problems)")
        #expect(!(try #require(String(data: try JSONSerialization.data(withJSONObject: local), encoding: .utf8))).contains("s3cret-value"))

        let secure = try await WopiServer.start(data: data, extraArguments: ["--public-url", "https://wopi.contoso.test", "--provider-id", "TP_CONTOSO"])
        secure.stop()
        let https = try RoundTripTests.json(try await ScenarioCLITests.run(["onboarding", "--data", data.path], timeout: 60), "onboarding")
        #expect(https["BootstrapUrl"] as? String == "https://wopi.contoso.test/wopibootstrapper")
        #expect((https["problems"] as? [[String: String]])?.isEmpty == true, "\(https)")
        #expect(https["ProviderId"] as? String == "TP_CONTOSO" && https["AuthUriDomains"] as? String == "wopi.contoso.test")
        #expect((https["missing"] as? [String]) == ["LocalizedProviderName", "IconLocations", "ProviderDescription"])
    }

    @Test("onboarding for any host: the form from what the stand-in and its bootstrapper answer, with missing and problems",
          .timeLimit(.minutes(5)))
    func onboardingForAnyHost() async throws {
        try await FaultyWOPIHost.withRunning(fault: nil) { host in
            let run = try await ScenarioCLITests.run(["onboarding", "--wopi-src", host.wopiSrc, "--access-token", FaultyWOPIHost.token,
                                                      "--bootstrapper", host.bootstrapper], timeout: 60)
            let form = try RoundTripTests.json(run, "onboarding")
            #expect(form["BootstrapUrl"] as? String == host.bootstrapper)
            #expect(form["ProviderId"] as? String == "TP_STANDIN")
            #expect(form["AuthUriDomains"] as? String == "login.standin.test")
            #expect(form["LocalizedProviderName"] as? String == "Stand-in Drive", "from BreadcrumbBrandName")
            #expect(form["ClientAppName"] as? String == "Office")
            let missing = try #require(form["missing"] as? [String])
            for field in ["ClientId", "ClientSecret", "RedirectUri", "IconLocations"] { #expect(missing.contains(field), "\(missing)") }
            #expect(!missing.contains("BootstrapUrl") && !missing.contains("ProviderId") && !missing.contains("AuthUriDomains"))
            let problems = try #require(form["problems"] as? [[String: String]])
            #expect(problems.contains { $0["field"] == "BootstrapUrl" && $0["problem"]?.contains("http: URL") == true }, "\(problems)")
            #expect(problems.contains { $0["field"] == "WOPISrc" && $0["problem"]?.contains("http: URL") == true }, "\(problems)")
            #expect(!run.stdout.contains(FaultyWOPIHost.token))

            // Without a bootstrapper, and with a token the host refuses: what is missing, and the refusal as a problem.
            let refused = try RoundTripTests.json(try await ScenarioCLITests.run(
                ["onboarding", "--wopi-src", host.wopiSrc, "--access-token", "not-the-token"], timeout: 60), "onboarding")
            #expect((refused["missing"] as? [String])?.contains("BootstrapUrl") == true)
            let refusals = try #require(refused["problems"] as? [[String: String]])
            #expect(refusals.contains { $0["field"] == "WOPISrc" && $0["problem"]?.contains("HTTP 401") == true }, "\(refusals)")
        }
    }

    @Test("onboarding: a data folder that does not exist is exit 2 and nothing is created")
    func onboardingWithoutDataFolder() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-onboarding-none-\(UUID().uuidString)/data")
        let run = try await ScenarioCLITests.run(["onboarding", "--data", missing.path], timeout: 30)
        #expect(run.exitCode == 2, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stderrLines.count == 1 && run.stderr.contains(missing.path), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing.deletingLastPathComponent().path))
        let wrong = try await ScenarioCLITests.run(["onboarding", "--wopi-src", "http://127.0.0.1:1/wopi/files/F1"], timeout: 30)
        #expect(wrong.exitCode == 2 && wrong.stderr.contains("--access-token"), "\(wrong.stderr)")
    }
}
