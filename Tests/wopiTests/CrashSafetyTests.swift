import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A server killed with SIGKILL in the middle of a PutFile: after a
/// restart on the same data folder the file holds exactly its old or its new content, never a
/// mix, and its Version and SHA256 match those bytes. Once a PutFile has been answered 200, the
/// new content must survive the kill.
@Suite("Crash safety of PutFile (SIGKILL)", .serialized)
struct CrashSafetyTests {
    /// When the server dies.
    enum Moment: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Half of the body sent, and the host seen writing a staging file in `tmp/`.
        case midBody
        /// The whole body sent; killed at once, while the host may be syncing, renaming or committing.
        case rightAfterBody
        /// The whole body sent; killed 20 ms later.
        case shortlyAfterBody
        /// After the host answered 200: the new content must be there.
        case afterResponse

        var testDescription: String { rawValue }
    }

    static let oldSize = 3 * 1024 * 1024 + 17
    static let newSize = 48 * 1024 * 1024
    static let lock = "crash-safety-lock"

    @Test("SIGKILL during a 48 MiB PutFile leaves exactly the old or the new content, with matching Version and SHA256",
          .timeLimit(.minutes(5)), arguments: Moment.allCases)
    func killDuringPutFile(_ moment: Moment) async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-crash-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let data = work.appendingPathComponent("data")
        let oldFile = work.appendingPathComponent("Survivor.docx")
        let newFile = work.appendingPathComponent("new.bin")
        let old = Self.pattern(count: Self.oldSize, seed: 0x01D)
        let new = Self.pattern(count: Self.newSize, seed: 0x0E3)
        try old.write(to: oldFile)
        try new.write(to: newFile)
        let oldHash = try await offPool { try Self.sha256Base64(of: oldFile) }
        let newHash = try await offPool { try Self.sha256Base64(of: newFile) }

        // Set up with the CLI, as an operator would.
        let user = try await WopiProcess.run(["users", "add", "crash", "--password", "crash-safety-pw", "--data", data.path])
        try #require(user.exitCode == 0, "users add: \(user.stderr)")
        let added = try await WopiProcess.run(["files", "add", oldFile.path, "--owner", "crash", "--data", data.path])
        try #require(added.exitCode == 0, "files add: \(added.stderr)")
        let id = try #require(try Self.json(added.stdout)["id"] as? String)
        let minted = try await WopiProcess.run(["token", "--user", "crash", "--file", id, "--data", data.path])
        try #require(minted.exitCode == 0, "token: \(minted.stderr)")
        let token = try #require(try Self.json(minted.stdout)["access_token"] as? String)
        let path = "/wopi/files/\(id)"

        let first = try await offPool { try KillableServer(data: data) }
        defer { first.kill() }
        let before = try await first.request("GET", "\(path)?access_token=\(token)")
        try #require(before.status == 200, "CheckFileInfo: \(before)")
        let oldVersion = try #require(try Self.json(before.text)["Version"] as? String)
        #expect(try Self.json(before.text)["SHA256"] as? String == oldHash)
        let locked = try await first.request("POST", "\(path)?access_token=\(token)", ["X-WOPI-Override: LOCK", "X-WOPI-Lock: \(Self.lock)"])
        try #require(locked.status == 200, "Lock: \(locked)")

        // Stream the new body from a raw socket in 256 KiB chunks, and kill the server by PID at the chosen moment.
        let port = first.port
        let staging = data.appendingPathComponent("blobs/.staging")
        let (answer, sawStaging): (Int?, Bool) = try await offPool {
            let socket = try RawHTTPConnection(port: port)
            let head = "POST \(path)/contents?access_token=\(token) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-WOPI-Override: PUT\r\n"
                + "X-WOPI-Lock: \(Self.lock)\r\nContent-Length: \(new.count)\r\n\r\n"
            _ = socket.write(Data(head.utf8))
            let chunk = 256 * 1024
            var offset = 0
            while offset < new.count {
                guard socket.write(new[offset..<min(offset + chunk, new.count)]) else { break }
                offset += chunk
                if moment == .midBody, offset >= new.count / 2 {
                    // Make sure the host really is writing the upload before it dies.
                    let deadline = Date().addingTimeInterval(10)
                    var staged = false
                    while !staged, Date() < deadline {
                        staged = first.isWriting(under: staging)
                        if !staged { Thread.sleep(forTimeInterval: 0.01) }
                    }
                    first.kill()
                    return (nil, staged)
                }
            }
            switch moment {
            case .midBody: return (nil, false)
            case .rightAfterBody: first.kill(); return (nil, false)
            case .shortlyAfterBody: Thread.sleep(forTimeInterval: 0.02); first.kill(); return (nil, false)
            case .afterResponse:
                let status = socket.readResponse()?.status
                first.kill()
                return (status, false)
            }
        }
        #expect(!first.isRunning, "the first server must be dead")
        if moment == .midBody { #expect(sawStaging, "the host never opened a staging file in tmp/, so the kill was not mid-write") }
        if moment == .afterResponse { #expect(answer == 200, "the PutFile before the kill was answered \(answer.map(String.init) ?? "nothing")") }

        // Restart on the same data folder and look.
        let second = try await offPool { try KillableServer(data: data) }
        defer { second.kill() }
        let info = try await second.request("GET", "\(path)?access_token=\(token)")
        try #require(info.status == 200, "CheckFileInfo after restart: \(info)\n\(second.log)")
        let fields = try Self.json(info.text)
        let content = try await second.request("GET", "\(path)/contents?access_token=\(token)")
        try #require(content.status == 200, "GetFile after restart: \(content)")
        let isOld = content.body == old
        let isNew = content.body == new
        #expect(isOld || isNew, "after SIGKILL (\(moment)) the file holds \(content.body.count) bytes that are neither the old (\(old.count)) nor the new (\(new.count)) content")
        #expect(fields["Size"] as? Int == content.body.count, "Size \(fields["Size"] ?? "nil") for \(content.body.count) bytes")
        #expect(fields["SHA256"] as? String == (isNew ? newHash : oldHash), "SHA256 does not match the bytes GetFile returns")
        let version = fields["Version"] as? String
        #expect(content.header("X-WOPI-ItemVersion") == version, "GetFile's X-WOPI-ItemVersion differs from CheckFileInfo's Version")
        if isOld { #expect(version == oldVersion, "old content under a new Version \(version ?? "nil") (was \(oldVersion))") }
        if isNew { #expect(version != oldVersion, "new content under the old Version \(oldVersion)") }
        if moment == .afterResponse { #expect(isNew, "a PutFile answered 200 was lost by the crash") }
        if moment == .midBody { #expect(isOld, "half a body cannot be the new content") }
        let lock = try await second.request("POST", "\(path)?access_token=\(token)", ["X-WOPI-Override: GET_LOCK"])
        #expect(lock.header("X-WOPI-Lock") == Self.lock, "the lock did not survive the crash: \(lock)")

        // The host still works: the next PutFile lands.
        let small = Data("after the crash".utf8)
        let put = try await second.request("POST", "\(path)/contents?access_token=\(token)",
                                           ["X-WOPI-Override: PUT", "X-WOPI-Lock: \(Self.lock)"], body: small)
        #expect(put.status == 200, "PutFile after restart: \(put)")
        #expect(try await second.request("GET", "\(path)/contents?access_token=\(token)").body == small)
    }

    // MARK: Helpers

    /// Deterministic, incompressible bytes (xorshift64*), different for each seed.
    @Test("a PutFile that stalls mid-body is cut off after --idle-timeout; nothing is written and the upload is cleaned up",
          .timeLimit(.minutes(10)))
    func stalledUploadTimesOut() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-idle-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let data = work.appendingPathComponent("data")
        let document = work.appendingPathComponent("Idle.docx")
        try Data("before".utf8).write(to: document)
        try #require(try await WopiProcess.run(["users", "add", "idle", "--password", "idle-timeout-pw", "--data", data.path]).exitCode == 0)
        let added = try await WopiProcess.run(["files", "add", document.path, "--owner", "idle", "--data", data.path])
        let id = try #require(try Self.json(added.stdout)["id"] as? String)
        let token = try #require(try Self.json(try await WopiProcess.run(["token", "--user", "idle", "--file", id, "--data", data.path]).stdout)["access_token"] as? String)
        let path = "/wopi/files/\(id)"

        let server = try await offPool { try KillableServer(data: data, extraArguments: ["--idle-timeout", "2"]) }
        defer { server.kill() }
        try #require(try await server.request("POST", "\(path)?access_token=\(token)", ["X-WOPI-Override: LOCK", "X-WOPI-Lock: idle"]).status == 200)
        let port = server.port
        let staging = data.appendingPathComponent("blobs/.staging")
        let (stagedWhileStalled, answer): (Bool, RawHTTPConnection.Response?) = try await offPool {
            let socket = try RawHTTPConnection(port: port)
            let head = "POST \(path)/contents?access_token=\(token) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-WOPI-Override: PUT\r\n"
                + "X-WOPI-Lock: idle\r\nContent-Length: 1000000\r\n\r\n"
            _ = socket.write(Data(head.utf8) + Data(repeating: 0x41, count: 300_000))
            Thread.sleep(forTimeInterval: 0.5)
            let staged = server.isWriting(under: staging)
            // Then nothing: the server must give up on its own and close the connection (an answer of 4xx, or end of
            // file), not leave it open until the socket's 60 s receive timeout ends the read.
            let answer = socket.readResponse()
            #expect(answer.map { $0.status >= 400 } ?? socket.isClosedByPeer(), "the server held the stalled connection open")
            return (staged, answer)
        }
        #expect(stagedWhileStalled, "the upload had started before the stall")
        #expect(answer == nil || answer!.status >= 400, "a stalled upload must not succeed: \(String(describing: answer))")
        try await Task.sleep(for: .milliseconds(500))
        #expect(!server.isWriting(under: staging), "the staged upload is released")
        let read = try await server.request("GET", "\(path)/contents?access_token=\(token)")
        #expect(read.text == "before")
    }

    static func pattern(count: Int, seed: UInt64) -> Data {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { raw in
            var index = 0
            while index < count {
                state ^= state >> 12
                state ^= state << 25
                state ^= state >> 27
                var word = state &* 0x2545_F491_4F6C_DD1D
                for _ in 0..<8 where index < count {
                    raw[index] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                    index += 1
                }
            }
        }
        return Data(bytes)
    }

    /// SHA-256 of a file, base64 (as CheckFileInfo's SHA256), computed by the system's own tool.
    static func sha256Base64(of file: URL) throws -> String {
        let tool = ["/usr/bin/sha256sum", "/bin/sha256sum"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: tool ?? "/usr/bin/shasum")
        process.arguments = tool == nil ? ["-a", "256", file.path] : [file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = PipeReader.readToEnd(pipe.fileHandleForReading)
        process.waitUntilExit()
        let hex = String(decoding: output, as: UTF8.self).prefix(64)
        var digest = Data()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { throw CrashTestError.badDigest(String(hex)) }
            digest.append(byte)
            index = next
        }
        guard digest.count == 32 else { throw CrashTestError.badDigest(String(hex)) }
        return digest.base64EncodedString()
    }

    static func json(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw CrashTestError.notJSON(text)
        }
        return object
    }
}

private enum CrashTestError: Error, CustomStringConvertible {
    case badDigest(String)
    case notJSON(String)
    case noResponse(String)

    var description: String {
        switch self {
        case .badDigest(let text): "could not read a SHA-256 digest from '\(text)'"
        case .notJSON(let text): "not a JSON object: \(text.prefix(200))"
        case .noResponse(let request): "no response to \(request)"
        }
    }
}

/// Sends SIGKILL to one process.
private func sendKill(_ pid: pid_t) {
    #if canImport(Glibc)
    _ = Glibc.kill(pid, SIGKILL)
    #else
    _ = Darwin.kill(pid, SIGKILL)
    #endif
}

/// A `wopi serve` child process that can be killed with SIGKILL by its PID (``WopiServer`` only stops politely).
private final class KillableServer: @unchecked Sendable {
    let port: Int
    private let process = ChildProcess()
    private let logURL: URL

    init(data: URL, extraArguments: [String] = []) throws {
        port = try WopiServer.freePort()
        logURL = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-crash-serve-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        process.executableURL = try WopiProcess.executableURL()
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", String(port), "--data", data.path, "--max-file-size", "128M"] + extraArguments
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while !LocalPort.isListening(port, processID: process.processIdentifier) {
            guard process.isRunning, Date() < deadline else {
                kill()
                throw WopiServer.Failure.notListening(port: port, seconds: 60, log: self.log)
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    var isRunning: Bool { process.isRunning }

    /// Whether the server has a file open under `folder` (the staged upload). The blob store may stage
    /// through an unnamed temporary file (O_TMPFILE), invisible in a listing, so this reads the
    /// process's open descriptors; where /proc does not exist it answers from the folder listing.
    func isWriting(under folder: URL) -> Bool { WopiServer.isWriting(pid: process.processIdentifier, under: folder) }
    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// SIGKILL to the server's PID, then reaps it. Safe to call more than once.
    func kill() {
        if process.isRunning {
            sendKill(process.processIdentifier)
            process.waitUntilExit()
        }
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: logURL)
    }

    /// One request on its own connection.
    func request(_ method: String, _ target: String, _ headers: [String] = [], body: Data = Data()) async throws -> RawHTTPConnection.Response {
        try await RawHTTPConnection.request(port: port, method, target, headers, body: body)
    }
}

