// swift-tools-version:6.0
import PackageDescription

/// The benchmark's floors: a bare Hummingbird route answering a fixed JSON body the size of a
/// CheckFileInfo answer, and the same route reading its file's row from PostgreSQL. Its own package,
/// so it never slows the main build or CI; only `Benchmarks/host-benchmark.sh` builds it.
let package = Package(
    name: "Floor",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .executableTarget(
            name: "floor",
            dependencies: [
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
    ]
)
