import Foundation
import WOPIBlobStoreS3

/// Where a storage's document bodies live, as `--blobs` names it and the database records it: a folder, or a bucket
/// and prefix on an S3 endpoint. It never holds credentials, so its text is safe to record and print.
enum BlobStoreAddress: Hashable, CustomStringConvertible {
    /// A folder, absolute and standardized.
    case folder(URL)
    /// A bucket, with the endpoint's user and password (if someone wrote any) left out.
    case bucket(S3Location)

    /// Parses a `--blobs` value: `s3://…` is a bucket, anything else a folder (relative to the working directory).
    /// The error names what is wrong.
    init(parsing text: String) throws {
        if text.lowercased().hasPrefix("s3://") {
            self = .bucket(Self.withoutUserInfo(try S3Location(parsing: text)))
        } else {
            guard !text.isEmpty else { throw S3BlobStoreError.invalidLocation("a folder or an s3:// URL is needed, not an empty value") }
            self = .folder(URL(fileURLWithPath: text, isDirectory: true).standardizedFileURL)
        }
    }

    /// Reads back the text ``recorded(dataFolder:)`` made; `dataFolder` as given there.
    init(recorded text: String, dataFolder: URL?) throws {
        if let dataFolder, !text.hasPrefix("/"), !text.lowercased().hasPrefix("s3://") {
            self = .folder(dataFolder.appendingPathComponent(text, isDirectory: true).standardizedFileURL)
        } else {
            try self.init(parsing: text)
        }
    }

    /// The text the database records. With `dataFolder` (SQLite's, which holds the database), a folder inside it is
    /// recorded relative to it, so a data folder moved or mounted elsewhere whole still opens; any other folder as
    /// its absolute path, and a bucket as its normalized `s3://` URL.
    func recorded(dataFolder: URL?) -> String {
        switch self {
        case .folder(let url):
            if let dataFolder {
                let base = dataFolder.standardizedFileURL.path
                let path = url.path
                if path.hasPrefix(base.hasSuffix("/") ? base : base + "/") { return String(path.dropFirst(base.count).drop { $0 == "/" }) }
            }
            return url.path
        case .bucket(let location):
            return location.description
        }
    }

    /// Whether two addresses name the same store: a folder by its path with symbolic links resolved, a bucket by its
    /// normalized URL.
    func isSame(as other: BlobStoreAddress) -> Bool {
        switch (self, other) {
        case (.folder(let one), .folder(let two)):
            one.path == two.path || one.resolvingSymlinksInPath().path == two.resolvingSymlinksInPath().path
        case (.bucket(let one), .bucket(let two)):
            one.description == two.description
        default:
            false
        }
    }

    /// The folder's path or the bucket's URL.
    var description: String { recorded(dataFolder: nil) }

    /// `location` with a lower-case scheme and host and no user, password or path in its endpoint: an endpoint
    /// written with credentials in it must not put them in the database.
    private static func withoutUserInfo(_ location: S3Location) -> S3Location {
        guard var components = URLComponents(url: location.endpoint, resolvingAgainstBaseURL: false) else { return location }
        components.user = nil
        components.password = nil
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        components.path = ""
        var location = location
        location.endpoint = components.url ?? location.endpoint
        return location
    }
}
