// swift-tools-version:6.0
import PackageDescription

/// The benchmark's floor: a bare Hummingbird route answering a fixed JSON body the size of a
/// CheckFileInfo answer. Its own package, so it never slows the main build or CI; only
/// `Benchmarks/host-benchmark.sh` builds it.
let package = Package(
    name: "Floor",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        .executableTarget(
            name: "floor",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")]
        ),
    ]
)
