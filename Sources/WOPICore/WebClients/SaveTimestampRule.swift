import Foundation

/// Collabora Online's guard against overwriting a change made elsewhere (`wsd/reference.md`,
/// "X-COOL-WOPI-Timestamp"; the older `X-LOOL-WOPI-Timestamp` spelling means the same).
///
/// A PutFile carrying the header holds the `LastModifiedTime` the client last saw. When the file
/// changed since, the host must not save and answers 409 with `{"COOLStatusCode":1010}`; Collabora
/// then asks the user, and an "overwrite" retry comes without the header, which always saves.
/// Times compare to the whole second, the precision of WOPI's `LastModifiedTime`.
public enum SaveTimestampRule {
    /// What the host does with the PutFile.
    public enum Decision: Sendable, Hashable {
        /// Save it.
        case save
        /// Refuse with 409 and `COOLStatusCode` 1010: the document changed in storage.
        case documentChanged
    }

    /// The status code Collabora expects in the 409's JSON body.
    public static let documentChangedStatusCode = 1010

    /// The decision for a PutFile whose timestamp header is `header` (`nil` when absent) on a file
    /// last modified at `storedModifiedTime`. A header that is not an ISO 8601 time cannot match.
    public static func evaluate(header: String?, storedModifiedTime: Date) -> Decision {
        guard let header = header?.trimmingCharacters(in: .whitespaces), !header.isEmpty else { return .save }
        guard let seen = parse(header) else { return .documentChanged }
        return seen.timeIntervalSince1970.rounded(.down) == storedModifiedTime.timeIntervalSince1970.rounded(.down) ? .save : .documentChanged
    }

    private static func parse(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
