// swift-tools-version:6.0
import Foundation
import PackageDescription

// The fuzz targets, apart from WOPIKit's own package so that the fuzzing flags never touch its build.
// Build and run them with `Fuzz/run.sh` (it passes `-sanitize=fuzzer,address` to every Swift module, so the
// product's parsers are instrumented for coverage, not only this harness).
// The root package's identity is its folder's name, which differs between checkouts (a worktree, CI's clone).
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "WOPIKitFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        // One executable holds every target (linking one per target against the host costs minutes each);
        // `run.sh` picks the target by the environment variable WOPI_FUZZ_TARGET.
        .executableTarget(
            name: "WOPIFuzz",
            dependencies: [
                .product(name: "OfficeURLScheme", package: root),
                .product(name: "WOPICore", package: root),
                .product(name: "WOPIHost", package: root),
                .product(name: "WOPIAuthorization", package: root),
                .product(name: "WOPIValidator", package: root),
                .product(name: "WOPIBlobStoreS3", package: root),
                .product(name: "OfficeSimulator", package: root),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
