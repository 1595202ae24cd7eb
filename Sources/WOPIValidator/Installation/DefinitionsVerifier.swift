import Crypto
import Foundation

/// Checks installed definitions against ``PinnedDefinitions``' SHA-256 table.
public enum DefinitionsVerifier {
    /// Installed paths (`TestCases.xml`, `JsonSchemas/…`) that are missing from `folder` or differ from the table.
    public static func mismatches(in folder: URL) -> [String] {
        PinnedDefinitions.files.filter { file in
            sha256(of: folder.appendingPathComponent(file.installedPath)) != file.sha256
        }.map(\.installedPath)
    }

    /// The file's SHA-256 in lower-case hex, read in blocks; `nil` when it cannot be read.
    public static func sha256(of file: URL) -> String? {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        do {
            while let block = try handle.read(upToCount: 1 << 16), !block.isEmpty {
                hasher.update(data: block)
            }
        } catch {
            return nil
        }
        return hex(hasher.finalize())
    }

    static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }
}
