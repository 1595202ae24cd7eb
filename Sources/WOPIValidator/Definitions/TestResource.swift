/// A file TestCases.xml declares in `<Resources>` for PutFile, PutRelativeFile and content checks.
///
/// The validator repository does not ship the files' bytes, and neither does this project: Microsoft's runner
/// itself never reads them — it uploads, as UTF-8, the text `Id + FilePath + Name` (and nothing for
/// `ZeroByteFile.wopitest`) and later compares downloads with the same bytes. ``content`` reproduces that
/// rule, so every resource id has deterministic stand-in bytes and a run is byte-for-byte what the original sends.
public struct TestResource: Sendable, Hashable {
    /// The `Id` attribute, referenced by `ResourceId=` / `ExpectedResourceId=`.
    public let id: String
    /// The `Name` attribute (a file name).
    public let name: String
    /// The `FilePath` attribute.
    public let filePath: String

    /// Creates a resource.
    public init(id: String, name: String, filePath: String) {
        self.id = id
        self.name = name
        self.filePath = filePath
    }

    /// The bytes uploaded for this resource and expected back from GetFile.
    public var content: [UInt8] {
        name == "ZeroByteFile.wopitest" ? [] : Array((id + filePath + name).utf8)
    }
}
