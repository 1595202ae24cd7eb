import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// Downloads Microsoft's validator definitions (``PinnedDefinitions/files``) from a copy of the
/// wopi-validator-core repository and installs them into a folder all at once.
///
/// Every file is streamed to a staging folder beside the destination while its SHA-256 is computed; any
/// digest that differs from the table aborts the fetch and removes the staging folder, leaving the
/// destination as it was. When all files are good, the staging folder takes the destination's place by
/// rename. For a ref other than the pinned commit there is no table: such a fetch is refused unless
/// checksums are explicitly skipped (`--insecure-skip-checksums`).
public struct DefinitionsFetcher: Sendable {
    /// The repository's root at the ref, e.g. `https://raw.githubusercontent.com/microsoft/wopi-validator-core/<ref>`.
    public let baseURL: String
    /// The commit (or tag) being fetched; recorded in the installed folder.
    public let ref: String
    /// Whether digests are checked; only a non-pinned ref may turn this off.
    public let verifiesChecksums: Bool

    /// Largest file accepted: TestCases.xml is a few hundred kilobytes.
    public static let maximumFileSize = 16 << 20

    /// Creates a fetcher; throws when `ref` is not the pinned commit and checksums are not skipped.
    public init(baseURL: String? = nil, ref: String = PinnedDefinitions.commit, skipsChecksums: Bool = false) throws(FetchError) {
        let trimmed = (baseURL ?? PinnedDefinitions.defaultBaseURL(ref: ref)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard let url = URL(string: trimmed), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw FetchError("--from '\(baseURL ?? "")' is not an http(s) URL")
        }
        guard !ref.isEmpty, ref.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else {
            throw FetchError("--ref '\(ref)' is not a commit or tag name")
        }
        if ref != PinnedDefinitions.commit && !skipsChecksums {
            throw FetchError("--ref \(ref): WOPIKit has SHA-256 checksums only for \(PinnedDefinitions.commit) (\(PinnedDefinitions.version)); "
                + "add --insecure-skip-checksums to install unverified files")
        }
        self.baseURL = trimmed.hasSuffix("/") ? String(trimmed.dropLast()) : trimmed
        self.ref = ref
        verifiesChecksums = ref == PinnedDefinitions.commit || !skipsChecksums
    }

    /// Downloads every file and installs them into `destination`; returns the installed paths.
    public func install(into destination: URL) async throws(FetchError) -> [URL] {
        let fileManager = FileManager.default
        let parent = destination.deletingLastPathComponent()
        do {
            try fileManager.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw FetchError("cannot create \(parent.path): \(error.localizedDescription)")
        }
        let staging = parent.appendingPathComponent(".\(destination.lastPathComponent)-staging-\(UUID().uuidString)", isDirectory: true)
        defer { try? fileManager.removeItem(at: staging) }
        do {
            try fileManager.createDirectory(at: staging.appendingPathComponent("JsonSchemas"), withIntermediateDirectories: true)
        } catch {
            throw FetchError("cannot create \(staging.path): \(error.localizedDescription)")
        }
        try await download(into: staging)
        do {
            try Data((ref + "\n").utf8).write(to: staging.appendingPathComponent(PinnedDefinitions.commitFileName))
        } catch {
            throw FetchError("cannot write \(staging.path): \(error.localizedDescription)")
        }
        try Self.replace(destination, with: staging)
        return PinnedDefinitions.files.map { destination.appendingPathComponent($0.installedPath) }
    }

    private func download(into staging: URL) async throws(FetchError) {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        configuration.timeout.connect = .seconds(10)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            for file in PinnedDefinitions.files {
                try await download(file, to: staging.appendingPathComponent(file.installedPath), client: client)
            }
        } catch {
            try? await client.shutdown()
            throw error
        }
        try? await client.shutdown()
    }

    private func download(_ file: PinnedDefinitions.File, to target: URL, client: HTTPClient) async throws(FetchError) {
        let url = baseURL + "/" + file.repositoryPath
        guard FileManager.default.createFile(atPath: target.path, contents: nil),
              let handle = try? FileHandle(forWritingTo: target) else {
            throw FetchError("cannot write \(target.path)")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        do {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
            guard response.status == .ok else { throw FetchError("\(url) answered HTTP \(response.status.code)") }
            var size = 0
            for try await buffer in response.body {
                size += buffer.readableBytes
                guard size <= Self.maximumFileSize else { throw FetchError("\(url) is larger than \(Self.maximumFileSize >> 20) MiB") }
                try buffer.withUnsafeReadableBytes { bytes in
                    hasher.update(bufferPointer: bytes)
                    try handle.write(contentsOf: bytes)
                }
            }
        } catch let error as FetchError {
            throw error
        } catch {
            throw FetchError("\(url): \(error)")
        }
        let digest = DefinitionsVerifier.hex(hasher.finalize())
        if verifiesChecksums && digest != file.sha256 {
            throw FetchError("\(url) has SHA-256 \(digest), not \(file.sha256) as at \(PinnedDefinitions.commit); nothing was installed")
        }
    }

    /// Puts `staging` at `destination`: a rename when there is nothing there yet, otherwise the old folder is
    /// moved aside first and removed after.
    private static func replace(_ destination: URL, with staging: URL) throws(FetchError) {
        let fileManager = FileManager.default
        let aside = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent)-old-\(UUID().uuidString)", isDirectory: true)
        let hadOld = fileManager.fileExists(atPath: destination.path)
        do {
            if hadOld { try fileManager.moveItem(at: destination, to: aside) }
            try fileManager.moveItem(at: staging, to: destination)
        } catch {
            if hadOld, !fileManager.fileExists(atPath: destination.path) { try? fileManager.moveItem(at: aside, to: destination) }
            throw FetchError("cannot install into \(destination.path): \(error.localizedDescription)")
        }
        if hadOld { try? fileManager.removeItem(at: aside) }
    }

    /// Why a fetch did not install anything.
    public struct FetchError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What went wrong, naming the file or option.
        public let description: String

        init(_ description: String) {
            self.description = description
        }
    }
}
