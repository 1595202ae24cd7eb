import Crypto
import Foundation
import Testing
import WOPICore

/// Checks shared by many tests, each recorded against the caller's source location.

/// A 409 lock refusal carrying `lock` as the current lock (`""` when the file is unlocked).
func expectLockConflict(_ response: WOPIResponse, currentLock lock: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.status == 409, "expected 409, got \(response)", sourceLocation: sourceLocation)
    #expect(response.header("X-WOPI-Lock") == lock,
            "X-WOPI-Lock is \(response.header("X-WOPI-Lock").map { "'\($0.prefix(80))'" } ?? "missing"), expected '\(lock.prefix(80))'",
            sourceLocation: sourceLocation)
}

/// A response with `status`, and a description of what came instead.
func expectStatus(_ response: WOPIResponse, _ status: Int, _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.status == status, "\(comment) expected \(status), got \(response)", sourceLocation: sourceLocation)
}

/// The SHA-256 of `data`, base64, as CheckFileInfo's `SHA256` carries it.
func sha256Base64(_ data: Data) -> String { Data(SHA256.hash(data: data)).base64EncodedString() }

/// Whether a name is free of every character Office for iOS refuses (issues/invalidcharacters.rst).
func isOfficeSafe(_ name: String) -> Bool {
    !name.contains { "\\/:*?\"<>|#{}^[]`%".contains($0) }
}

/// The `access_token` query value of a returned URL.
func accessToken(in url: String) -> String? {
    URLComponents(string: url)?.queryItems?.first { $0.name == "access_token" }?.value
}
