/// One problem ``InfoPlistCheck`` found, with the change that fixes it.
public struct InfoPlistFinding: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// An Office scheme is missing from `LSApplicationQueriesSchemes`, so `canOpenURL` answers `false`.
        case missingQueriedScheme
        /// `LSApplicationQueriesSchemes` has more than 50 entries; iOS ignores the rest.
        case tooManyQueriedSchemes
        /// Your passback or sign-in scheme is not under `CFBundleURLTypes`, so Office cannot return to you.
        case unregisteredURLScheme
        /// A key has the wrong type, for example `LSApplicationQueriesSchemes` is not an array of strings.
        case malformedKey
    }

    /// What kind of problem it is.
    public let kind: Kind
    /// The scheme or key concerned.
    public let subject: String
    /// What is wrong, in one sentence.
    public let problem: String
    /// The change to the Info.plist that fixes it.
    public let fix: String

    /// Creates a finding.
    public init(kind: Kind, subject: String, problem: String, fix: String) {
        self.kind = kind
        self.subject = subject
        self.problem = problem
        self.fix = fix
    }

    /// `problem — fix: …`, one line.
    public var description: String { "\(problem) Fix: \(fix)" }
}
