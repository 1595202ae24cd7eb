// swift-tools-version: 5.9
// CloudDrive: a small SwiftUI app that opens files of a `wopi serve` host in Office for iOS.
// Open this Package.swift in Xcode 15 or later and run the CloudDrive app on an iOS 16.4+ simulator.
import PackageDescription
#if canImport(AppleProductTypes)
import AppleProductTypes
#endif

let package = Package(
    name: "CloudDrive",
    platforms: [.iOS("16.4")],
    products: [
        #if canImport(AppleProductTypes)
        .iOSApplication(
            name: "CloudDrive",
            targets: ["CloudDrive"],
            bundleIdentifier: "com.example.clouddrive",
            displayVersion: "1.0",
            bundleVersion: "1",
            appIcon: .placeholder(icon: .cloud),
            supportedDeviceFamilies: [.pad, .phone],
            supportedInterfaceOrientations: [.portrait, .landscapeLeft, .landscapeRight],
            // LSApplicationQueriesSchemes and the clouddrive URL scheme; `wopi doctor` checks it in CI.
            additionalInfoPlistContentFilePath: "CloudDrive/Info.plist"
        ),
        #endif
    ],
    dependencies: [
        .package(name: "WOPIKit", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "CloudDrive",
            dependencies: [.product(name: "OfficeURLScheme", package: "WOPIKit")],
            path: "CloudDrive",
            exclude: ["Info.plist"]
        ),
    ]
)
