import Foundation

/// Fixed files over HTTP on 127.0.0.1, served by a child process (Python's `http.server`).
///
/// For documents a `wopi` child must fetch within its own timeout (a browser editor's discovery): a server
/// inside the test process answers only when a thread of Swift's cooperative pool is free, and the full
/// parallel suite can keep every one of them busy for longer than that.
public enum StaticFileServer {
    /// Serves `files` (path → bytes; paths without a leading `/`) for the duration of `body`, which gets the
    /// base URL (`http://127.0.0.1:<port>`); stops the server and removes the files afterwards.
    public static func serve<T>(_ files: [String: Data], _ body: (URL) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-static-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (path, data) in files {
            let file = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: file)
        }
        // The port is chosen before the server binds it: when another test takes it in between, the server exits
        // and another port is tried.
        var port = 0
        var server: ChildProcess?
        defer { _ = server?.stop(grace: 5) }
        for attempt in 1...3 {
            port = try LocalPort.free()
            let child = ChildProcess()
            child.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            child.arguments = ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", folder.path]
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            server = child
            let listening = try await offPool { [port] in
                let deadline = Date().addingTimeInterval(60)
                while child.isRunning {
                    if LocalPort.isListening(port, processID: child.processIdentifier) { return true }
                    guard Date() < deadline else { throw NotListening(reason: "python3 -m http.server did not listen within 60 s") }
                    Thread.sleep(forTimeInterval: 0.05)
                }
                return false
            }
            if listening { break }
            guard attempt < 3 else { throw NotListening(reason: "python3 -m http.server exited before listening, three times") }
        }
        return try await body(URL(string: "http://127.0.0.1:\(port)")!)
    }

    /// Why the server could not be used.
    struct NotListening: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }
}
