import Foundation

/// libFuzzer's entry points. libFuzzer owns `main`; this executable holds every target and runs the
/// one named by the environment variable `WOPI_FUZZ_TARGET` (`run.sh` sets it).
///
/// Each target feeds one input to the product's parser the way the product reads outside input, and
/// asks for nothing but that it returns: a trap, a sanitizer report, a hang (`-timeout`) or an
/// allocation past `-rss_limit_mb`/`-malloc_limit_mb` is the finding.

/// The targets by name.
let targets: [String: @Sendable ([UInt8]) -> Void] = [
    "office-uri": OfficeURIFuzz.run,
    "wopi-headers": WOPIHeadersFuzz.run,
    "discovery-xml": DiscoveryXMLFuzz.run,
    "multipart": MultipartFuzz.run,
    "simulator-html-form": SimulatorHTMLFormFuzz.run,
    "validator-definitions": ValidatorDefinitionsFuzz.run,
    "validator-json": ValidatorJSONFuzz.run,
    "validator-jsonpath": ValidatorJSONPathFuzz.run,
    "s3-xml": S3XMLFuzz.run,
    "oauth-form": OAuthFormFuzz.run,
    "web-form": WebFormFuzz.run,
    "config-file": ConfigFileFuzz.run,
]

nonisolated(unsafe) var selected: (@Sendable ([UInt8]) -> Void)?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>) -> CInt {
    let name = ProcessInfo.processInfo.environment["WOPI_FUZZ_TARGET"] ?? ""
    guard let target = targets[name] else {
        let message = "set WOPI_FUZZ_TARGET to one of: \(targets.keys.sorted().joined(separator: " "))\n"
        FileHandle.standardError.write(Data(message.utf8))
        exit(2)
    }
    // Seeds signed with the fuzz proof keys (FuzzKeys), printed instead of fuzzing.
    if let seed = ProcessInfo.processInfo.environment["WOPI_FUZZ_SEED"] {
        switch name {
        case "wopi-headers": print(WOPIHeadersFuzz.signedHeaders(url: seed))
        case "discovery-xml": print(DiscoveryXMLFuzz.document(urlSource: seed))
        default: FileHandle.standardError.write(Data("\(name) makes no seeds\n".utf8))
        }
        exit(0)
    }
    selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    selected?(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

/// Runs async product code to completion from libFuzzer's synchronous callback.
func blocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}

/// The input as text the way an HTTP stack hands it on: invalid UTF-8 repaired.
func text(_ bytes: some Collection<UInt8>) -> String {
    String(decoding: bytes, as: UTF8.self)
}

/// The input split at its first line break: a header line and the rest.
func firstLine(_ bytes: [UInt8]) -> (String, [UInt8]) {
    guard let newline = bytes.firstIndex(of: 0x0A) else { return (text(bytes), []) }
    return (text(bytes[..<newline]), Array(bytes[(newline + 1)...]))
}

/// libFuzzer's driver, which runs `LLVMFuzzerTestOneInput` over the inputs the arguments name.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

/// The entry point SwiftPM links an executable module's `main` to (it renames `main` so tests can
/// link the module): hands the arguments to libFuzzer.
@_cdecl("WOPIFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzOne(data, size) }
}
