// swift-tools-version:6.0
import PackageDescription

/// Upcoming features every target opts into, so the code stays ready for the next language mode.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "WOPIKit",
    // OfficeURLScheme is the only product meant for iOS apps; the server stack (swift-configuration) needs macOS 15 on a Mac.
    platforms: [.iOS(.v15), .macOS(.v15)],
    products: [
        .library(name: "OfficeURLScheme", targets: ["OfficeURLScheme"]),
        .library(name: "WOPICore", targets: ["WOPICore"]),
        .library(name: "WOPIHost", targets: ["WOPIHost"]),
        .library(name: "WOPIAuthorization", targets: ["WOPIAuthorization"]),
        .library(name: "WOPIOpenIDConnect", targets: ["WOPIOpenIDConnect"]),
        .library(name: "WOPIStoreSQLite", targets: ["WOPIStoreSQLite"]),
        .library(name: "WOPIStorePostgres", targets: ["WOPIStorePostgres"]),
        .library(name: "WOPIBlobStoreS3", targets: ["WOPIBlobStoreS3"]),
        .library(name: "WOPIStoreTesting", targets: ["WOPIStoreTesting"]),
        .library(name: "WOPIHistory", targets: ["WOPIHistory"]),
        .library(name: "WOPIHTTPClient", targets: ["WOPIHTTPClient"]),
        .library(name: "WOPIValidator", targets: ["WOPIValidator"]),
        .library(name: "OfficeSimulator", targets: ["OfficeSimulator"]),
        .executable(name: "wopi", targets: ["wopi"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // The PostgreSQL store: several hosts on one database.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.29.0"),
        // Documentation only: `swift package generate-documentation` (DocC catalogs under Sources/*/Documentation.docc).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // Metrics, configuration file, service lifecycle
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
        // Web front: streaming multipart/form-data parsing for browser uploads.
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
        // Page templates that escape by construction.
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        // The S3 blob store's XML answers (listings, multipart uploads, errors).
        .package(url: "https://github.com/CoreOffice/XMLCoder", from: "0.18.2"),
        // OpenID Connect sign-in: id_token signatures against the provider's JWKS (RS256, PS256, ES256, EdDSA).
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
    ],
    targets: [
        // Office URI grammar, app catalogue, sign-in URLs, Info.plist checks. Foundation only.
        .target(
            name: "OfficeURLScheme",
            resources: [.process("Resources")],
            swiftSettings: strictSettings
        ),
        // Pure WOPI protocol rules: locks, tokens, names, UTF-7, proof keys. No I/O.
        .target(
            name: "WOPICore",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // One C call Swift cannot make (a variadic function): see its header.
        .target(name: "CSQLiteConfig", linkerSettings: [.linkedLibrary("sqlite3")]),
        // The WOPI host: Hummingbird routes over pluggable stores. No database driver: those are the two targets below.
        .target(
            name: "WOPIHost",
            dependencies: [
                "WOPICore",
                "OfficeURLScheme",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            exclude: ["Resources/README.md"],
            // The demo documents, read through `HostResources`.
            resources: [.copy("Resources/SampleDocuments")],
            swiftSettings: strictSettings
        ),
        // Sign-in and the browser's pages, added to the host's router: the OAuth 2.0 authorization server, the bootstrapper,
        // app-to-app and OpenID Connect sign-in, the web front and the share-link pages.
        .target(
            name: "WOPIAuthorization",
            dependencies: [
                "WOPIHost",
                "WOPICore",
                "OfficeURLScheme",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                // Web front: streaming multipart/form-data parsing for browser uploads.
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            exclude: ["Resources/README.md"],
            // The page templates, read through `PageResources`.
            resources: [.copy("Resources/Templates")],
            swiftSettings: strictSettings
        ),
        // Sign-in through the operator's OpenID Connect provider: discovery, JWKS, the code exchange, id_token checks.
        .target(
            name: "WOPIOpenIDConnect",
            dependencies: [
                "WOPIAuthorization",
                "WOPIHost",
                "WOPICore",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The store's rules in SQL both databases run, above a narrow session each driver provides.
        .target(
            name: "WOPIStoreSQL",
            dependencies: ["WOPIHost", "WOPICore"],
            swiftSettings: strictSettings
        ),
        // The embedded default: metadata in one SQLite file, through GRDB.
        .target(
            name: "WOPIStoreSQLite",
            dependencies: [
                "WOPIHost",
                "WOPICore",
                "WOPIStoreSQL",
                "CSQLiteConfig",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        // Several hosts on one PostgreSQL database, through PostgresNIO.
        .target(
            name: "WOPIStorePostgres",
            dependencies: [
                "WOPIHost",
                "WOPICore",
                "WOPIStoreSQL",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        // Document bodies in an S3-compatible bucket: a Signature Version 4 signer and a small S3 client.
        .target(
            name: "WOPIBlobStoreS3",
            dependencies: [
                "WOPIHost",
                "WOPICore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "XMLCoder", package: "XMLCoder"),
            ],
            swiftSettings: strictSettings
        ),
        // Conformance suites a store implementation runs from its own tests (Swift Testing).
        .target(
            name: "WOPIStoreTesting",
            dependencies: [
                "WOPIHost",
                "WOPICore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // The checker of histories of concurrent requests recorded under faults: no dependencies.
        .target(name: "WOPIHistory", swiftSettings: strictSettings),
        // The HTTP client the simulator and the validator judge hosts through: no redirects, no decompression.
        .target(
            name: "WOPIHTTPClient",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // Connection errors (NIOConnectionError) are read to name why a host gave no answer.
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // Runs Microsoft's WOPI validator definitions (TestCases.xml) against any WOPI host.
        .target(
            name: "WOPIValidator",
            dependencies: [
                "WOPICore",
                "WOPIHTTPClient",
                // `wopi validator fetch` downloads the definitions.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // The validator signs proofs with the client's RSA keys.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                // SHA-256 of the definitions `wopi validator fetch` installs.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // A WOPI client that behaves like Office for iOS.
        .target(
            name: "OfficeSimulator",
            dependencies: [
                "OfficeURLScheme",
                "WOPICore",
                "WOPIHTTPClient",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "wopi",
            dependencies: [
                "OfficeURLScheme",
                "WOPICore",
                "WOPIHost",
                "WOPIAuthorization",
                "WOPIOpenIDConnect",
                "WOPIStoreSQLite",
                "WOPIStorePostgres",
                "WOPIBlobStoreS3",
                "WOPIValidator",
                "OfficeSimulator",
                "WOPIHTTPClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"), // serve's event loops
                // Discovery documents over HTTP(S) (the host itself has no HTTP client).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // Servers the tests start and stop themselves: PostgreSQL, nginx, free loopback ports. Foundation only.
        .target(name: "TestSupport", dependencies: [.product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
                                                    .product(name: "NIOPosix", package: "swift-nio")], path: "Tests/TestSupport",
                swiftSettings: strictSettings),
        // Microsoft's validator definitions for the tests that need them: found, or fetched once by `wopi validator fetch`'s code.
        .target(name: "DefinitionsTestSupport", dependencies: ["WOPIValidator", "TestSupport"], path: "Tests/DefinitionsTestSupport",
                swiftSettings: strictSettings),
        // Crypto: the SHA-256 the documentation snippets' PKCE sign-in passes in (CryptoKit on iOS).
        .testTarget(name: "OfficeURLSchemeTests", dependencies: ["OfficeURLScheme", .product(name: "Crypto", package: "swift-crypto")],
                    swiftSettings: strictSettings),
        // Resources: Microsoft's proof-key test vectors (figures from its WOPI docs samples, MIT).
        .testTarget(name: "WOPICoreTests", dependencies: ["WOPICore"], resources: [.copy("Resources/proof-key-vectors.json"), .copy("Resources/Discovery")],
                    swiftSettings: strictSettings),
        .testTarget(
            name: "WOPIHostTests",
            dependencies: [
                "WOPIHost",
                "WOPIAuthorization",
                "WOPIOpenIDConnect",
                "WOPIStoreSQL",
                "WOPIStoreSQLite",
                "WOPIStorePostgres",
                "WOPICore",
                "WOPIStoreTesting",
                "TestSupport",
                // The stand-in identity provider signs its id_tokens itself (RS256, PS256, ES256, EdDSA, and forgeries).
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strictSettings
        ),
        // The S3 store: the signer against AWS's published vectors, the store against a real SeaweedFS.
        .testTarget(
            name: "WOPIBlobStoreS3Tests",
            dependencies: [
                "WOPIBlobStoreS3",
                "WOPIHost",
                // The README's snippet that embeds the host with sign-in is compiled here.
                "WOPIAuthorization",
                .product(name: "Hummingbird", package: "hummingbird"),
                "WOPIStorePostgres",
                "WOPIStoreTesting",
                "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "WOPIHistoryTests", dependencies: ["WOPIHistory"], swiftSettings: strictSettings),
        .testTarget(name: "WOPIHTTPClientTests", dependencies: ["WOPIHTTPClient", "TestSupport", .product(name: "Hummingbird", package: "hummingbird"),
                                                         .product(name: "NIOCore", package: "swift-nio")],
                    swiftSettings: strictSettings),
        .testTarget(name: "WOPIValidatorTests", dependencies: ["WOPIValidator", "WOPICore", "WOPIHTTPClient", "DefinitionsTestSupport"],
                    swiftSettings: strictSettings),
        .testTarget(
            name: "OfficeSimulatorTests",
            dependencies: [
                "OfficeSimulator",
                "WOPIHTTPClient",
                "WOPIHost",
                "WOPIStoreSQLite",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strictSettings
        ),
        // Drives the built `wopi` executable as a user would: CLI contracts, conformance, end to end.
        .testTarget(
            name: "wopiTests",
            dependencies: [
                "wopi",
                "OfficeURLScheme",
                "TestSupport",
                "DefinitionsTestSupport",
                "WOPIBlobStoreS3",
                "WOPIValidator",
                "WOPIHTTPClient",
                "WOPIHistory",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // The stand-in WOPI host the access-token mode and check-host are shown against.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

// WOPIKIT_TEST_TARGETS (space-separated names) keeps only those test targets, so that a build for a subset of the
// tests compiles nothing else: the sanitizer jobs (.ci/sanitizers) set it. Unset, every test target is built.
if let wanted = Context.environment["WOPIKIT_TEST_TARGETS"].map({ Set($0.split(separator: " ").map(String.init)) }) {
    package.targets.removeAll { $0.type == .test && !wanted.contains($0.name) }
}

// WOPIKIT_FUZZ=1 adds the libFuzzer targets (Fuzz/Sources/WOPIFuzz, one executable for every parser) for
// Fuzz/run.sh, which builds them in the AddressSanitizer job's folder with its flags plus the fuzzer's coverage,
// so that one build serves both. Only the fuzz executable links libFuzzer, which brings its own `main`.
if Context.environment["WOPIKIT_FUZZ"] == "1" {
    package.targets.append(
        .executableTarget(
            name: "WOPIFuzz",
            dependencies: [
                "OfficeURLScheme", "WOPICore", "WOPIHost", "WOPIAuthorization", "WOPIValidator", "WOPIBlobStoreS3",
                "OfficeSimulator",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "Fuzz/Sources/WOPIFuzz",
            swiftSettings: strictSettings + [.unsafeFlags(["-parse-as-library"])],
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer"])]
        )
    )
}
