import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import TestSupport
import WOPIHistory

/// Drives concurrent clients through WOPI hosts with Lock, RefreshLock, PutFile, GetFile, CheckFileInfo,
/// RenameFile, DeleteFile (while the client holds the lock, so the host must refuse it) and Unlock on a few files,
/// choosing each step from a seeded generator, and records every request as a ``HistoryEvent`` for ``HistoryChecker``.
///
/// Every PutFile sends a body no other request sends, so a body read names the save it came from.
struct HistoryRecorder: Sendable {
    /// A file the clients work on, with an access token that works on every host.
    struct Target: Sendable {
        let id: String
        let token: String
    }

    let files: [Target]
    /// The hosts' base URLs as they are now: a restarted host may listen on another port.
    let hosts: @Sendable () -> [String]
    var clients = 16
    var operationsPerClient = 60
    /// Whether clients should stop, once each has sent ``minimumOperations``; it hears how many requests succeeded so far.
    var isFinished: @Sendable (Tally) -> Bool = { _ in false }
    /// How many requests each client sends at least, however slowly a busy machine answers them.
    var minimumOperations = 0
    /// The most a client waits between two requests (a random time up to it): people and apps pause, and a
    /// client that never does makes a test of two cores a load test.
    var thinkTime: Duration = .milliseconds(40)
    /// How long a client waits for an answer before it gives up (the request becomes indeterminate).
    var timeout: Duration = .seconds(6)
    var seed: UInt64 = 1

    /// A client that reports a refused connection at once, as Office does, instead of retrying it until the
    /// request's deadline (AsyncHTTPClient's default).
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(2)))
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 32
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// How many saves, reads and lock grants succeeded so far, over all clients.
    struct Tally: Sendable {
        var saves = 0, reads = 0, grants = 0
    }
    /// The counts as the clients go (a class: the recorder is a value its clients share).
    private final class Counts: Sendable {
        let tally = Mutex(Tally())
    }
    private let counts = Counts()

    /// The SHA-256 of `bytes`, as the history's body digest.
    static func digest(_ bytes: some Sequence<UInt8>) -> BodyDigest {
        BodyDigest(SHA256.hash(data: Array(bytes)).map { String(format: "%02x", $0) }.joined())
    }

    /// Runs every client to the end and returns what they recorded; `start` is the clock's zero.
    func record(from start: ContinuousClock.Instant) async -> [HistoryEvent] {
        await withTaskGroup(of: [HistoryEvent].self) { group in
            for client in 0..<clients {
                group.addTask { await self.run(client: client, start: start) }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
    }

    private func run(client: Int, start: ContinuousClock.Instant) async -> [HistoryEvent] {
        var random = SplitMix64(seed: seed &* 1_000_003 &+ UInt64(client))
        var held: [String: String] = [:]  // file id → the lock id this client believes it holds
        var events: [HistoryEvent] = []
        for step in 0..<operationsPerClient {
            if step >= minimumOperations, isFinished(counts.tally.withLock { $0 }) { break }
            try? await Task.sleep(for: thinkTime * Double(random.next() % 1000) / 1000)
            let file = files[Int(random.next() % UInt64(files.count))]
            let hostList = hosts()
            let host = hostList[Int(random.next() % UInt64(hostList.count))]
            let roll = Int(random.next() % 100)
            var body: [UInt8]?
            func save(under lock: String?) -> HistoryOperation {
                let bytes = Array("history seed \(seed) client \(client) step \(step) ".utf8)
                    + Array(repeating: UInt8(ascii: "x"), count: Int(random.next() % 2048))
                body = bytes
                return .putFile(lock: lock, body: Self.digest(bytes))
            }
            let operation: HistoryOperation
            if let lock = held[file.id] {
                switch roll {
                case ..<30: operation = save(under: lock)
                case ..<40: operation = .refreshLock(lock)
                case ..<65: operation = .unlock(lock)
                case ..<70: operation = .renameFile("History c\(client) s\(step)")
                case ..<72: operation = .deleteFile
                case ..<82: operation = .getFile
                default: operation = .checkFileInfo
                }
            } else {
                switch roll {
                case ..<35: operation = .lock("c\(client)-s\(step)")
                case ..<65: operation = .getFile
                case ..<85: operation = .checkFileInfo
                default: operation = save(under: nil)
                }
            }
            let invoked = start.duration(to: .now)
            let outcome = await send(operation, body: body, file: file, host: host, heldLock: held[file.id])
            events.append(HistoryEvent(client: client, file: file.id, operation: operation, invoked: invoked,
                                       completed: start.duration(to: .now), outcome: outcome))
            if case .succeeded = outcome {
                counts.tally.withLock { tally in
                    switch operation {
                    case .putFile: tally.saves += 1
                    case .getFile: tally.reads += 1
                    case .lock: tally.grants += 1
                    default: break
                    }
                }
            }
            // What the client believes it holds next.
            switch (operation, outcome) {
            case (.lock(let lock), .succeeded), (.lock(let lock), .indeterminate): held[file.id] = lock
            case (.unlock, _): held[file.id] = nil
            // Refused because of the lock this client holds, as the host must: the lock is still held.
            case (.deleteFile, .failed(409)): break
            case (_, .failed(409)) where held[file.id] != nil: held[file.id] = nil
            default: break
            }
        }
        return events
    }

    /// Sends one request; RenameFile goes under `heldLock`.
    private func send(_ operation: HistoryOperation, body: [UInt8]?, file: Target, host: String, heldLock: String?) async -> HistoryOutcome {
        let path = "\(host)/wopi/files/\(file.id)"
        var request: HTTPClientRequest
        switch operation {
        case .getFile: request = HTTPClientRequest(url: "\(path)/contents?access_token=\(file.token)")
        case .checkFileInfo: request = HTTPClientRequest(url: "\(path)?access_token=\(file.token)")
        case .putFile(let lock, _):
            request = HTTPClientRequest(url: "\(path)/contents?access_token=\(file.token)")
            request.method = .POST
            request.headers.add(name: "X-WOPI-Override", value: "PUT")
            if let lock { request.headers.add(name: "X-WOPI-Lock", value: lock) }
            request.body = .bytes(ByteBuffer(bytes: body ?? []))
        default:
            request = HTTPClientRequest(url: "\(path)?access_token=\(file.token)")
            request.method = .POST
            request.headers.add(name: "Content-Length", value: "0")
            switch operation {
            case .lock(let lock): request.headers.add(name: "X-WOPI-Override", value: "LOCK"); request.headers.add(name: "X-WOPI-Lock", value: lock)
            case .refreshLock(let lock):
                request.headers.add(name: "X-WOPI-Override", value: "REFRESH_LOCK"); request.headers.add(name: "X-WOPI-Lock", value: lock)
            case .unlock(let lock): request.headers.add(name: "X-WOPI-Override", value: "UNLOCK"); request.headers.add(name: "X-WOPI-Lock", value: lock)
            case .renameFile(let name):
                request.headers.add(name: "X-WOPI-Override", value: "RENAME_FILE")
                request.headers.add(name: "X-WOPI-RequestedName", value: name)
                if let heldLock { request.headers.add(name: "X-WOPI-Lock", value: heldLock) }
            case .deleteFile: request.headers.add(name: "X-WOPI-Override", value: "DELETE")
            default: break
            }
        }
        do {
            let response = try await Self.client.execute(request, timeout: TimeAmount(timeout))
            let bytes = try await response.body.collect(upTo: 16 * 1024 * 1024)
            let status = Int(response.status.code)
            guard (200..<300).contains(status) else {
                // A server error to a change does not say whether the change was made: a statement the database had
                // already received still runs after the host gave up on it (a frozen server that thaws, say). So, as
                // Jepsen counts a timeout, it may or may not have taken effect.
                if status >= 500, operation.changesTheFile { return .indeterminate }
                return .failed(status: status)
            }
            switch operation {
            case .getFile:
                return .succeeded(HistoryObservation(body: Self.digest(bytes.readableBytesView),
                                                     version: response.headers.first(name: "X-WOPI-ItemVersion")))
            case .checkFileInfo:
                let info = try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any]
                return .succeeded(HistoryObservation(version: info?["Version"] as? String))
            default:
                return .succeeded(.nothing)
            }
        } catch {
            return Self.isRefused(error) ? .failed(status: 0) : .indeterminate
        }
    }

    /// Whether `error` says the connection was refused: nothing was delivered.
    static func isRefused(_ error: any Error) -> Bool {
        if let error = error as? NIOConnectionError {
            return error.connectionErrors.contains { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }
        }
        if let error = error as? IOError { return error.errnoCode == ECONNREFUSED }
        return String(describing: error).contains("Connection refused")
    }
}

private extension HistoryOperation {
    /// Whether the request asks the host to change the file (its body, lock, name or existence).
    var changesTheFile: Bool {
        switch self {
        case .getFile, .checkFileInfo: false
        case .lock, .refreshLock, .unlock, .unlockAndRelock, .putFile, .renameFile, .deleteFile: true
        }
    }
}
