/// Microsoft's validator definitions at the commit WOPIKit is tested with, and each file's SHA-256.
///
/// `wopi validator fetch` downloads exactly these files from a copy of the
/// [microsoft/wopi-validator-core](https://github.com/microsoft/wopi-validator-core) repository and refuses
/// any whose digest differs. The list is fixed here because a plain HTTP server offers no directory listing.
public enum PinnedDefinitions {
    /// The GitHub repository the definitions come from.
    public static let repository = "microsoft/wopi-validator-core"
    /// The pinned commit (tag v2.0.6).
    public static let commit = "6ca021a87d2cf776d302891010405b4c099a17d7"
    /// The pinned commit's release tag.
    public static let version = "v2.0.6"

    /// One file of the definitions.
    public struct File: Sendable, Hashable {
        /// The path inside the repository, e.g. `src/WopiValidator.Core/JsonSchemas/CoauthTableSchema.json`.
        public let repositoryPath: String
        /// The path inside an installed definitions folder, e.g. `JsonSchemas/CoauthTableSchema.json`.
        public let installedPath: String
        /// The file's SHA-256 at ``PinnedDefinitions/commit``, lower-case hex.
        public let sha256: String

        init(_ repositoryPath: String, _ installedPath: String, _ sha256: String) {
            self.repositoryPath = repositoryPath
            self.installedPath = installedPath
            self.sha256 = sha256
        }
    }

    /// Every file a run needs: TestCases.xml, its XSD, and the JSON schemas it names (`JsonSchemas/` beside it).
    public static let files: [File] = [
        File("TestCases.xml", "TestCases.xml", "d02770c82dde85bc394f733de37bb97eb29f2a0c3fed58cb02d53bb424b56d16"),
        File("TestCases.xsd", "TestCases.xsd", "5c6adb9d0b749c80ffea26b3a270c3e3d8dcc5629dd550733faba6691497223a"),
        schema("CoauthTableSchema", "b1bf47fb1fee0adc3c45eb57d2e3310b22c0a0098bb6aa1a13e3889b62d07d1b"),
        schema("CsppCheckFileInfoSchema", "5b248eb056d033227e3db12c5012674d8fa4fd0dda47e1de7f0cc6ad8a1c7c5d"),
        schema("CsppPlusCheckFileInfoSchema", "40770eb08081fe825f5682df2e4901360609f90b88c29cf822e4f908a7558139"),
        schema("GetChunkedFileRequestSchema", "7ef052470cb1ae103b9326c5e06b1bad291b8c3eee97c83d25725f488e08cf2e"),
        schema("GetChunkedFileResponseSchema", "45b1ef620cd32211ef769c8f5e1f56f4993a356dc2cd1c88f2f82b18c2f9de0d"),
        schema("PutChunkedFileRequestSchema", "ca936b0e9263d2d383c5c9ea2e2f768ce399812cd6056146ccc223e2eef26cc3"),
    ]

    /// The file in which an installed folder records the commit it was fetched from.
    public static let commitFileName = "COMMIT"

    /// GitHub's raw-content URL of the repository at `ref`, the default source.
    public static func defaultBaseURL(ref: String = commit) -> String {
        "https://raw.githubusercontent.com/\(repository)/\(ref)"
    }

    private static func schema(_ name: String, _ sha256: String) -> File {
        File("src/WopiValidator.Core/JsonSchemas/\(name).json", "JsonSchemas/\(name).json", sha256)
    }
}
