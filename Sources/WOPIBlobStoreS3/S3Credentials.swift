import Foundation

/// An access key pair for S3. Its description never shows the secret.
public struct S3Credentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The access key ID (`AKIA…`); not secret, it names the key.
    public var accessKeyID: String
    /// The secret access key.
    public var secretAccessKey: String

    /// A key pair.
    public init(accessKeyID: String, secretAccessKey: String) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
    }

    /// The key ID only.
    public var description: String { "S3 access key \(accessKeyID)" }

    /// The key ID only.
    public var debugDescription: String { description }

    /// The key ID only, so `dump` and debuggers do not show the secret either.
    public var customMirror: Mirror { Mirror(self, children: ["accessKeyID": accessKeyID], displayStyle: .struct) }

    /// `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`; `nil` when either is unset or empty.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> S3Credentials? {
        guard let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty,
              let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else { return nil }
        return S3Credentials(accessKeyID: id, secretAccessKey: secret)
    }

    /// Reads a credentials file in the AWS shared-credentials format: `aws_access_key_id = …` and
    /// `aws_secret_access_key = …` lines, from the `[default]` section or from a file without sections.
    /// `#` and `;` start comment lines. Errors name the file and the problem, never a value.
    public static func load(file path: String) throws -> S3Credentials {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw S3BlobStoreError.badCredentials("cannot read the S3 credentials file '\(path)'")
        }
        var section: String?
        var values: [String: String] = [:]
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                section = line.trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
                continue
            }
            guard section == nil || section == "default", let equals = line.firstIndex(of: "=") else { continue }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            values[name] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        guard let id = values["aws_access_key_id"], !id.isEmpty else {
            throw S3BlobStoreError.badCredentials("the S3 credentials file '\(path)' has no aws_access_key_id in [default]")
        }
        guard let secret = values["aws_secret_access_key"], !secret.isEmpty else {
            throw S3BlobStoreError.badCredentials("the S3 credentials file '\(path)' has no aws_secret_access_key in [default]")
        }
        return S3Credentials(accessKeyID: id, secretAccessKey: secret)
    }
}
