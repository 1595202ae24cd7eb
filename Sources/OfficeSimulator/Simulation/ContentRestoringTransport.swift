import Foundation
import WOPIHTTPClient

/// A transport that notes the file's content as a session first reads it and whether the session sent a
/// write to it, so that afterwards ``putBack(naming:)`` can give the file its content back
/// (``SimulationOptions/putsContentBack``).
///
/// Watching the requests, rather than each scenario's steps, catches every write: saves, dropped uploads, and a
/// write a faulty host accepted although it should have refused it.
struct ContentRestoringTransport: HTTPTransport {
    let inner: any HTTPTransport
    private let record: Record

    /// Watches the file at `wopiSrc`; with `nil`, the first file whose content the session reads or writes.
    init(_ inner: any HTTPTransport, watching wopiSrc: URL?) {
        self.inner = inner
        record = Record(watched: wopiSrc.flatMap { Self.contentsKey(of: $0, appending: "/contents") })
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        // Noted before sending: a write that ends without an answer may still have reached the file.
        await record.noteSending(request)
        let response = try await inner.send(request)
        await record.noteAnswer(response, to: request)
        return response
    }

    func sendDroppingConnection(_ request: TransportRequest, after byteCount: Int) async throws -> TransportResponse? {
        await record.noteSending(request)
        return try await inner.sendDroppingConnection(request, after: byteCount)
    }

    /// When the session sent a write to the file and its content is not what the session first read, writes
    /// that content back under a lock of its own (Lock, PutFile, Unlock). Returns what could not be put back,
    /// in one sentence, or `nil` when the file holds its first content. `name` names the file in that sentence;
    /// by default its WOPISrc.
    func putBack(naming name: String? = nil) async -> String? {
        guard let written = await record.written else { return nil }
        let name = name ?? OfficeSimulator.redacted(Self.wopiSrc(ofContents: written))
        guard let first = await record.firstContent, let wopi = WOPIRequests(pointer: Self.wopiSrc(ofContents: first.url).absoluteString) else {
            return "\(name) holds what the session wrote; what it held before was never read, so it was not put back"
        }
        let now = try? await inner.send(wopi.getFile)
        if let now, now.status == 200, now.body == first.bytes { return nil }
        let failed: (String) -> String = { why in
            "\(name) holds what the session wrote, not the \(first.bytes.count) bytes it held before: putting them back failed (\(why)); "
                + "put its content back on the host"
        }
        let lock = "WOPIKit-simulator-restore-" + UUID().uuidString
        let locked: TransportResponse
        do {
            locked = try await inner.send(wopi.lockOperation("LOCK", lock: lock))
        } catch {
            return failed("Lock had no answer: \(error)")
        }
        guard locked.status == 200 else {
            let holder = locked.header("X-WOPI-Lock").flatMap { $0.isEmpty ? nil : ", locked by '\($0.prefix(100))'" } ?? ""
            return failed("Lock answered HTTP \(locked.status)\(holder)")
        }
        var problem: String?
        do {
            let put = try await inner.send(wopi.putFile(first.bytes, lock: lock))
            if put.status != 200 { problem = "PutFile answered HTTP \(put.status)" }
        } catch {
            problem = "PutFile had no answer: \(error)"
        }
        let unlocked = try? await inner.send(wopi.lockOperation("UNLOCK", lock: lock))
        let stillLocked = unlocked?.status == 200 ? nil : "still locked by '\(lock)': Unlock failed; it expires within 30 minutes"
        switch (problem, stillLocked) {
        case (nil, nil): return nil
        case (nil, let stillLocked?): return "\(name) has its content back but is \(stillLocked)"
        case (let problem?, nil): return failed(problem)
        case (let problem?, let stillLocked?): return failed(problem) + "; it is \(stillLocked)"
        }
    }

    /// `host:port/path` of a file's `…/contents` URL, which GetFile and PutFile are sent to.
    static func contentsKey(of url: URL, appending suffix: String = "") -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true), let host = components.host else { return nil }
        return "\(host.lowercased()):\(components.port.map(String.init) ?? "")\(components.percentEncodedPath)\(suffix)"
    }

    /// The file's URL, query (and so its `access_token`) kept, for a URL of its content.
    static func wopiSrc(ofContents url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true), components.percentEncodedPath.hasSuffix("/contents") else {
            return url
        }
        components.percentEncodedPath.removeLast("/contents".count)
        return components.url ?? url
    }

    /// What the session did to the watched file.
    private actor Record {
        /// The watched file's content key; found with the first GetFile or PutFile when not given.
        private var watched: String?
        /// The content the first GetFile of the file answered with, and the URL it was read from.
        private(set) var firstContent: (url: URL, bytes: Data)?
        /// The URL of a write sent to the file, if any was.
        private(set) var written: URL?

        init(watched: String?) {
            self.watched = watched
        }

        func noteSending(_ request: TransportRequest) {
            let isPutFile = request.method == "POST"
                && request.headers.contains { $0.name.caseInsensitiveCompare("X-WOPI-Override") == .orderedSame && $0.value == "PUT" }
            guard isPutFile, isWatched(request.url) else { return }
            written = written ?? request.url
        }

        func noteAnswer(_ response: TransportResponse, to request: TransportRequest) {
            guard firstContent == nil, request.method == "GET", response.status == 200, isWatched(request.url) else { return }
            firstContent = (request.url, response.body)
        }

        /// Whether `url` is the watched file's content; the first content URL seen is, when none was given.
        private func isWatched(_ url: URL) -> Bool {
            guard let key = ContentRestoringTransport.contentsKey(of: url), key.hasSuffix("/contents") else { return false }
            if watched == nil { watched = key }
            return key == watched
        }
    }
}
