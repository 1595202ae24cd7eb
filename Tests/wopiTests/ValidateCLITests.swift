import Foundation
import TestSupport
import Testing
import WOPIValidator

/// `wopi validate` and the validator family of `wopi check-host` against hosts that are not WOPIKit's
/// (``FaultyWOPIHost`` with `given.wopitest`, claiming a RenameFile it does not do), one planted fault
/// per test, through the real binary.
@Suite(.serialized) struct ValidateCLITests {
    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    @Test("validate: CheckFileInfo without OwnerId fails the prerequisite once, names what it kept from running, exits 1",
          .timeLimit(.minutes(5)))
    func missingOwnerIdIsAFailure() async throws {
        let testcases = try await ConformanceTests.testCasesURL().path
        try await FaultyWOPIHost.withRunning(faults: [.missingOwnerId, .renameNotImplemented], options: .validatorTestFile) { host in
            let run = try await ScenarioCLITests.run(["validate", "--wopi-src", host.wopiSrc("F2"), "--access-token", FaultyWOPIHost.token,
                                                      "--testcases", testcases], timeout: 300)
            #expect(run.exitCode == 1, "\(run.stdout)\n\(run.stderr)")
            let lines = Self.lines(run.stdout)
            let reasons = lines.filter { $0.contains("OwnerId") }
            #expect(reasons.count == 1, "the reason is printed once:\n\(run.stdout)")
            #expect(reasons.first?.hasPrefix("FAIL prerequisite WopiValidatorPrereq: CheckFileInfo request failed. [HTTP 200]") == true,
                    "\(reasons)")
            #expect(lines.contains("WopiValidatorPrereq failed: 123 cases not run"), "\(run.stdout)")
            #expect(lines.filter { $0.hasPrefix("SKIP ") }.allSatisfy { $0.hasSuffix(": Prerequisites failed: WopiValidatorPrereq") })
            #expect(lines.last == "0 passed, 1 failed, 123 skipped")
            #expect(await host.storage.names == ["Plan.docx", "given.wopitest"], "nothing ran past the prerequisite")
        }
    }

    @Test("check-host: a validator run that executed nothing is not ready, and its scratch file is deleted", .timeLimit(.minutes(10)))
    func checkHostRefusesAnEmptyValidatorRun() async throws {
        let testcases = try await ConformanceTests.testCasesURL().path
        try await FaultyWOPIHost.withRunning(faults: [.missingOwnerId, .renameNotImplemented], options: .validatorTestFile) { host in
            let run = try await ScenarioCLITests.run(["check-host", "--wopi-src", host.wopiSrc("F1"), "--access-token", FaultyWOPIHost.token,
                                                      "--testcases", testcases], timeout: 600)
            #expect(run.exitCode == 1, "\(run.stdout)\n\(run.stderr)")
            let lines = Self.lines(run.stdout)
            #expect(lines.contains { $0.hasPrefix("[FAIL] validator prerequisite/WopiValidatorPrereq: CheckFileInfo request failed. [HTTP 200]") },
                    "\(run.stdout)")
            #expect(lines.contains("[FAIL] validator ran: no case could vouch for the host: WopiValidatorPrereq failed: 123 cases not run "
                + "(see validator prerequisite/WopiValidatorPrereq)"), "\(run.stdout)")
            #expect(lines.filter { $0.contains("OwnerId") && $0.hasPrefix("[FAIL] validator") }.count == 1, "\(run.stdout)")
            #expect(lines.last?.hasPrefix("verdict: not ready") == true)
            let names = await host.storage.names
            #expect(!names.contains { $0.hasPrefix("check-host-") }, "\(names)")
        }
    }

    @Test("check-host: without PutRelativeFile the failure shows status and body; --scratch-file runs the cases on the given file",
          .timeLimit(.minutes(10)))
    func scratchFileForHostsWithoutPutRelativeFile() async throws {
        let testcases = try await ConformanceTests.testCasesURL().path
        try await FaultyWOPIHost.withRunning(faults: [.putRelativeNotImplemented, .renameNotImplemented], options: .validatorTestFile) { host in
            let base = ["check-host", "--wopi-src", host.wopiSrc("F1"), "--access-token", FaultyWOPIHost.token, "--testcases", testcases]
            let refused = try await ScenarioCLITests.run(base, timeout: 600)
            let scratchLine = try #require(Self.lines(refused.stdout).first { $0.contains("validator scratch-file") }, "\(refused.stdout)")
            #expect(scratchLine.hasPrefix("[FAIL] validator scratch-file: PutRelativeFile gave no scratch file check-host-"), "\(scratchLine)")
            #expect(scratchLine.contains("(HTTP 501, body: unsupported operation PUT_RELATIVE for POST /wopi/files/F1?access_token=[redacted]"),
                    "\(scratchLine)")
            #expect(scratchLine.contains("--scratch-file and --scratch-token"))
            #expect(!refused.stdout.contains(FaultyWOPIHost.token))

            let given = try await ScenarioCLITests.run(base + ["--scratch-file", host.wopiSrc("F2"), "--scratch-token", FaultyWOPIHost.token],
                                                       timeout: 600)
            let lines = Self.lines(given.stdout)
            #expect(lines.contains("[ok]   validator scratch-file: using the given \(host.wopiSrc("F2"))"), "\(given.stdout)")
            let passed = lines.filter { $0.hasPrefix("[ok]   validator ") && $0.contains("/") }
            #expect(passed.count >= 20, "the validator's cases ran on the given file:\n\(given.stdout)")
            #expect(lines.contains { $0.hasPrefix("[ok]   validator Locks/") }, "\(given.stdout)")
            // It ran (the stand-in has no OfficeNativeClient feature, which the family then names).
            let ran = try #require(lines.first { $0.contains(" validator ran: ") }, "\(given.stdout)")
            #expect(ran.contains(" passed, ") && !ran.contains("no case could vouch"), "\(ran)")
            // Every failure line carries the status and the start of the (masked) body.
            let failures = Self.failedValidatorRequests(in: lines)
            #expect(!failures.isEmpty, "\(given.stdout)")
            #expect(failures.allSatisfy(Self.showsAnswer), "\(failures)")
            #expect(await host.storage.names.contains("given.wopitest"), "the given file is the user's: never deleted")
        }
    }

    @Test("a distinctive token is in no artifact: stdout, stderr, --json, --junit", .timeLimit(.minutes(10)))
    func tokenInNoArtifact() async throws {
        let testcases = try await ConformanceTests.testCasesURL().path
        let token = FaultyWOPIHost.token
        try await FaultyWOPIHost.withRunning(faults: [.renameNotImplemented], options: .validatorTestFile) { host in
            let json = try await ScenarioCLITests.run(["validate", "--wopi-src", host.wopiSrc("F2"), "--access-token", token,
                                                       "--testcases", testcases, "--json"], timeout: 300)
            #expect(json.exitCode == 1, "the stand-in claims renames it does not do: \(json.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
            #expect((report["results"] as? [Any])?.isEmpty == false)
            // The host echoed the token: the failure lines show the echo, masked.
            #expect(json.stderr.contains("your token [redacted] is fine") && json.stderr.contains("access_token=[redacted]"), "\(json.stderr)")
            #expect(json.stdout.contains("Bearer [redacted]"), "the request records keep the Authorization header, masked")

            let junit = FileManager.default.temporaryDirectory.appendingPathComponent("check-host-\(UUID().uuidString).xml")
            defer { try? FileManager.default.removeItem(at: junit) }
            let checked = try await ScenarioCLITests.run(["check-host", "--wopi-src", host.wopiSrc("F1"), "--access-token", token,
                                                          "--testcases", testcases, "--junit", junit.path], timeout: 600)
            let xml = try String(contentsOf: junit, encoding: .utf8)
            #expect(xml.contains("your token [redacted] is fine"), "the JUnit XML carries the masked echo")
            for (artifact, text) in [("validate stdout", json.stdout), ("validate stderr", json.stderr), ("check-host stdout", checked.stdout),
                                     ("check-host stderr", checked.stderr), ("JUnit XML", xml)] {
                #expect(!text.contains(token), "\(artifact) holds the token")
                #expect(!text.contains(String(token.suffix(36))), "\(artifact) holds part of the token (its UUID)")
            }
        }
    }

    @Test("validate gives Microsoft's verdict on a host without X-WOPI-ItemVersion; --strict-item-version opts in; --junit as check-host's",
          .timeLimit(.minutes(5)))
    func itemVersionVerdictAndJUnit() async throws {
        let testcases = try await ConformanceTests.testCasesURL().path
        try await FaultyWOPIHost.withRunning(faults: [.missingItemVersion], options: .validatorTestFile) { host in
            let junit = FileManager.default.temporaryDirectory.appendingPathComponent("validate-\(UUID().uuidString).xml")
            defer { try? FileManager.default.removeItem(at: junit) }
            let base = ["validate", "--wopi-src", host.wopiSrc("F2"), "--access-token", FaultyWOPIHost.token, "--testcases", testcases,
                        "--group", "FileVersion"]
            let lenient = try await ScenarioCLITests.run(base + ["--junit", junit.path], timeout: 300)
            #expect(lenient.exitCode == 0, "\(lenient.stdout)\n\(lenient.stderr)")
            let totals = try #require(Self.lines(lenient.stdout).last)
            #expect(totals.hasSuffix(" 0 failed, 0 skipped") && !totals.hasPrefix("0 passed"), "\(totals)")

            let xml = try String(contentsOf: junit, encoding: .utf8)
            #expect(xml.hasPrefix("<?xml") && xml.contains("<testsuites name=\"wopi validate\""), "\(xml)")
            #expect(xml.contains("<testsuite name=\"validator\""))
            #expect(xml.contains("<testcase classname=\"validate.validator\" name=\"FileVersion/"), "\(xml)")
            #expect(!xml.contains("<failure") && !xml.contains(FaultyWOPIHost.token))

            let strict = try await ScenarioCLITests.run(base + ["--strict-item-version", "--junit", junit.path], timeout: 300)
            #expect(strict.exitCode == 1, "\(strict.stdout)\n\(strict.stderr)")
            #expect(Self.lines(strict.stdout).contains { $0.hasPrefix("FAIL FileVersion/") && $0.contains("X-WOPI-ItemVersion") }, "\(strict.stdout)")
            #expect(try String(contentsOf: junit, encoding: .utf8).contains("<failure "))
        }
    }

    @Test("validate | head -1: the run ends quietly, without a crash or a signal", .timeLimit(.minutes(5)))
    func closedStdoutValidate() async throws {
        let testcases = try await ConformanceTests.testCasesURL().path
        try await FaultyWOPIHost.withRunning(faults: [.renameNotImplemented], options: .validatorTestFile) { host in
            let run = try await Self.pipeline([
                "validate", "--wopi-src", host.wopiSrc("F2"), "--access-token", FaultyWOPIHost.token, "--testcases", testcases,
            ], into: "head -1")
            #expect(run.status == 1, "exit \(run.status) (a signal shows as 128+n); stderr:\n\(run.stderr)")
            #expect(run.stderr.isEmpty, "quiet: \(run.stderr)")
            #expect(Self.lines(run.stdout).count == 1)
        }
    }

    @Test("check-host | (reader that leaves after the scratch file): quiet end, scratch file deleted", .timeLimit(.minutes(5)))
    func closedStdoutCheckHost() async throws {
        let testcases = try await ConformanceTests.testCasesURL().path
        try await FaultyWOPIHost.withRunning(faults: [.renameNotImplemented], options: .validatorTestFile) { host in
            let run = try await Self.pipeline([
                "check-host", "--wopi-src", host.wopiSrc("F1"), "--access-token", FaultyWOPIHost.token, "--testcases", testcases,
            ], into: "awk '/validator scratch-file/ { print; exit }'")
            #expect(run.status == 1, "exit \(run.status) (a signal shows as 128+n); stderr:\n\(run.stderr)")
            #expect(run.stderr.isEmpty, "quiet: \(run.stderr)")
            #expect(run.stdout.hasPrefix("[ok]   validator scratch-file: created check-host-"), "\(run.stdout)")
            let names = await host.storage.names
            #expect(!names.contains { $0.hasPrefix("check-host-") }, "the scratch file is left on the host: \(names)")
            #expect(await host.storage.deleted.contains { $0.hasPrefix("check-host-") })
        }
    }

    @Test("check-host interrupted (SIGINT, SIGTERM) while the validator runs: scratch file deleted, exit 128+n",
          .timeLimit(.minutes(5)), arguments: [SIGINT, SIGTERM])
    func interruptedCheckHost(signal: Int32) async throws {
        let testcases = try await ConformanceTests.testCasesURL().path
        try await FaultyWOPIHost.withRunning(faults: [.renameNotImplemented], options: [.validatorTestFile, .holdsDownloadsOfCreatedFiles]) { host in
            let process = ChildProcess()
            process.executableURL = try WopiProcess.executableURL()
            process.arguments = ["check-host", "--wopi-src", host.wopiSrc("F1"), "--access-token", FaultyWOPIHost.token, "--testcases", testcases]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // The validator is at work on the scratch file when its GetFile waits in the host.
            let deadline = Date().addingTimeInterval(60)
            while await host.storage.heldCount == 0, process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(await host.storage.heldCount > 0, "the validator never reached the scratch file")
            #expect(await host.storage.names.contains { $0.hasPrefix("check-host-") })
            kill(process.processIdentifier, signal)
            let exitDeadline = Date().addingTimeInterval(30)
            while process.isRunning, Date() < exitDeadline { try await Task.sleep(for: .milliseconds(20)) }
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            #expect(process.terminationReason == .exit && process.terminationStatus == 128 + signal,
                    "\(process.terminationReason == .exit ? "exit" : "signal") \(process.terminationStatus)")
            let names = await host.storage.names
            #expect(!names.contains { $0.hasPrefix("check-host-") }, "the scratch file is left on the host: \(names)")
        }
    }

    /// check-host's validator lines for a case whose request failed.
    static func failedValidatorRequests(in lines: [String]) -> [String] {
        var found: [String] = []
        for line in lines where line.hasPrefix("[FAIL] validator ") && line.contains("request failed.") {
            found.append(line)
        }
        return found
    }

    /// Whether a failure line shows the HTTP status and the start of the body.
    static func showsAnswer(_ line: String) -> Bool {
        line.contains("[HTTP ") && line.contains(" body: ")
    }

    /// `wopi <arguments> | <reader>` in bash: the reader's stdout, wopi's stderr and wopi's exit status.
    static func pipeline(_ arguments: [String], into reader: String) async throws -> (status: Int32, stdout: String, stderr: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-pipe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let quoted = ([try WopiProcess.executableURL().path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let script = "\(quoted.joined(separator: " ")) 2>\"$1/stderr\" | \(reader); echo \"${PIPESTATUS[0]}\" > \"$1/status\""
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script, "bash", folder.path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let stdout = try await offPool { out.fileHandleForReading.readDataToEndOfFile() }
        process.waitUntilExit()
        let status = try String(contentsOf: folder.appendingPathComponent("status"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return (Int32(status) ?? -1, String(decoding: stdout, as: UTF8.self),
                (try? String(contentsOf: folder.appendingPathComponent("stderr"), encoding: .utf8)) ?? "")
    }
}
