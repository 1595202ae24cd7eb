import Foundation
import Hummingbird

// The floor of `Benchmarks/host-benchmark.sh`: what this machine allows a Hummingbird route that
// answers a CheckFileInfo-sized JSON body without doing any work. WOPIKit's CheckFileInfo is measured
// against it in the same run.
//
//   floor --port 18490 --body check-file-info.json
//
// `--body` names a file holding the JSON to answer with (the script saves a real CheckFileInfo
// answer there, so both bodies have the same size). The route is `GET /wopi/files/:id`, like WOPIKit's.

func argument(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

guard let portText = argument("--port"), let port = Int(portText), let bodyPath = argument("--body"),
      let body = FileManager.default.contents(atPath: bodyPath) else {
    FileHandle.standardError.write(Data("usage: floor --port PORT --body FILE (a readable JSON file)\n".utf8))
    exit(2)
}

let router = Router()
router.get("wopi/files/:id") { _, _ -> Response in
    // A new buffer per answer, as a real handler would encode one.
    Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
             body: .init(byteBuffer: ByteBuffer(bytes: body)))
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
