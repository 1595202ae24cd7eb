import ArgumentParser
import Foundation
import WOPICore

/// `wopi proof`: sign, verify and create WOPI proof keys by hand (WOPI docs,
/// online/scenarios/proofkeys.rst).
struct ProofCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proof",
        abstract: "Sign and verify WOPI proof headers, and create proof keys.",
        discussion: """
            A WOPI client such as Office signs every WOPI request with an RSA key and sends three \
            headers: X-WOPI-TimeStamp (.NET ticks), X-WOPI-Proof (signed with its current key) and \
            X-WOPI-ProofOld (signed with its old key). The signed bytes are the access token, the \
            full request URL in upper case and the timestamp, each preceded by its length. A host \
            accepts a request when X-WOPI-Proof verifies with the current key, X-WOPI-ProofOld with \
            the current key, or X-WOPI-Proof with the old key, and the timestamp is at most 20 \
            minutes old. The public keys come from the client's discovery XML.

            Use `keygen` to make a key and a discovery file for testing, `sign` to produce the \
            headers for a request, and `verify` to check a captured request against a discovery file.
            """,
        subcommands: [Sign.self, Verify.self, Keygen.self]
    )
}

extension ProofCommand {
    /// `wopi proof sign`: prints the proof headers for one request.
    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the X-WOPI-TimeStamp, X-WOPI-Proof and X-WOPI-ProofOld headers for a request.",
            discussion: """
                Signs the request the way Office does (RSA PKCS#1 v1.5 with SHA-256) and prints \
                three header lines, ready to paste into curl -H. X-WOPI-ProofOld is signed with \
                --old-private-key when given, otherwise with the current key.

                Example:
                  wopi proof sign --private-key proof.pem --access-token TOKEN \\
                    --url 'https://wopi.example.com/wopi/files/42?access_token=TOKEN'
                """
        )

        @Option(name: .customLong("private-key"), help: ArgumentHelp("PEM file with the current RSA private key (2048 bits or more).", valueName: "path"))
        var privateKey: String

        @Option(name: .customLong("old-private-key"), help: ArgumentHelp("PEM file with the old private key, used for X-WOPI-ProofOld.", valueName: "path"))
        var oldPrivateKey: String?

        @Option(name: .customLong("access-token"), help: "The access token exactly as the host issued it.")
        var accessToken: String

        @Option(help: "The full request URL as the client calls it, including the query string (access_token=…).")
        var url: String

        @Option(help: ArgumentHelp("The X-WOPI-TimeStamp to sign, in .NET ticks (100 ns since 0001-01-01 UTC). Default: now.", valueName: "ticks"))
        var timestamp: String?

        func validate() throws {
            if let timestamp, ProofKeyTimestamp(headerValue: timestamp) == nil {
                throw ValidationError("--timestamp must be a non-negative integer of .NET ticks, got '\(timestamp)'")
            }
        }

        func run() throws {
            let signer: ProofKeySigner
            do {
                signer = try ProofKeySigner(
                    currentKeyPEM: try readText(privateKey, option: "--private-key"),
                    oldKeyPEM: try oldPrivateKey.map { try readText($0, option: "--old-private-key") }
                )
            } catch let error as ProofKeyError {
                throw ValidationError(error.description)
            }
            let stamp = timestamp.flatMap(ProofKeyTimestamp.init(headerValue:)) ?? ProofKeyTimestamp(Date())
            let headers: ProofKeyHeaders
            do {
                headers = try signer.sign(ProofKeyRequest(accessToken: accessToken, url: url, timestamp: stamp))
            } catch {
                throw ValidationError(error.description)
            }
            for field in headers.fields {
                Console.line("\(field.name): \(field.value)")
            }
        }
    }

    /// `wopi proof verify`: checks a captured request against a discovery file.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a request's proof headers against a WOPI client's discovery XML.",
            discussion: """
                Prints which of the three accepted combinations verified ("valid: X-WOPI-Proof with \
                the current key", …) or why the request must be refused ("invalid: …"). Exits 0 when \
                the proof is valid, 1 when it is not, and 2 when the input itself is unusable (an \
                unreadable discovery file, a timestamp that is not a number, a proof that is not base64).

                The timestamp is checked against the current time unless --now is given, so a \
                request captured long ago can still be checked.

                Example:
                  wopi proof verify --discovery discovery.xml --access-token TOKEN \\
                    --url 'https://wopi.example.com/wopi/files/42?access_token=TOKEN' \\
                    --timestamp 638712345678901234 --proof '…' --proof-old '…'
                """
        )

        @Option(help: ArgumentHelp("The WOPI client's discovery XML file (with a <proof-key> element).", valueName: "path"))
        var discovery: String

        @Option(name: .customLong("access-token"), help: "The access token of the request, as the host issued it.")
        var accessToken: String

        @Option(help: "The full request URL as the client called it, including the query string (the external https URL behind a proxy).")
        var url: String

        @Option(help: ArgumentHelp("The X-WOPI-TimeStamp header value (.NET ticks).", valueName: "ticks"))
        var timestamp: String

        @Option(help: "The X-WOPI-Proof header value (base64).")
        var proof: String

        @Option(name: .customLong("proof-old"), help: "The X-WOPI-ProofOld header value (base64), if the request had one.")
        var proofOld: String?

        @Option(help: ArgumentHelp("The time to check the timestamp against: .NET ticks or an ISO 8601 date such as 2025-01-31T12:00:00Z. Default: now.", valueName: "time"))
        var now: String?

        func validate() throws {
            if ProofKeyTimestamp(headerValue: timestamp) == nil {
                throw ValidationError("--timestamp must be a non-negative integer of .NET ticks, got '\(timestamp)'")
            }
            if Data(base64Encoded: proof) == nil {
                throw ValidationError("--proof is not valid base64")
            }
            if let proofOld, Data(base64Encoded: proofOld) == nil {
                throw ValidationError("--proof-old is not valid base64")
            }
            if let now, Self.parseNow(now) == nil {
                throw ValidationError("--now must be .NET ticks or an ISO 8601 date such as 2025-01-31T12:00:00Z, got '\(now)'")
            }
        }

        func run() throws {
            let document: DiscoveryDocument
            do {
                document = try DiscoveryDocument(xml: try readData(discovery, option: "--discovery"))
            } catch let error as DiscoveryDocument.ParseError {
                throw ValidationError("\(discovery): \(error.description)")
            }
            guard let keys = document.proofKeys else {
                throw ValidationError("\(discovery) has no <proof-key> element")
            }
            let verifier = ProofKeyVerifier(keys: keys)
            let result = verifier.verify(
                accessToken: accessToken,
                url: url,
                timestampHeader: timestamp,
                proofHeader: proof,
                proofOldHeader: proofOld,
                now: now.flatMap(Self.parseNow) ?? Date()
            )
            Console.line(result.description)
            if !result.isValid {
                throw ExitCode(1)
            }
        }

        static func parseNow(_ text: String) -> Date? {
            if let ticks = ProofKeyTimestamp(headerValue: text) {
                return ticks.date
            }
            let formatter = ISO8601DateFormatter()
            if let date = formatter.date(from: text) {
                return date
            }
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter.date(from: text)
        }
    }

    /// `wopi proof keygen`: creates a private key and the discovery XML that publishes it.
    struct Keygen: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an RSA proof key and a discovery XML that publishes it.",
            discussion: """
                Writes a new PEM private key (readable only by you) and a WOPI discovery XML whose \
                <proof-key> element carries the public key as value, modulus and exponent — the \
                same form Office publishes. With --old-private-key the existing key is published \
                as the old key, which simulates a key rotation. The discovery XML goes to \
                --discovery when given, otherwise to standard output.

                Example:
                  wopi proof keygen --private-key proof.pem --discovery discovery.xml
                  wopi serve --discovery discovery.xml
                """
        )

        @Option(name: .customLong("private-key"), help: ArgumentHelp("Where to write the new PEM private key. Must not exist yet.", valueName: "path"))
        var privateKey: String

        @Option(name: .customLong("old-private-key"), help: ArgumentHelp("An existing PEM private key to publish as the old key.", valueName: "path"))
        var oldPrivateKey: String?

        @Option(help: ArgumentHelp("Where to write the discovery XML. Default: standard output.", valueName: "path"))
        var discovery: String?

        @Option(help: "The key size in bits: 2048, 3072 or 4096.")
        var bits: Int = 2048

        func validate() throws {
            guard [2048, 3072, 4096].contains(bits) else {
                throw ValidationError("--bits must be 2048, 3072 or 4096, got \(bits)")
            }
            if FileManager.default.fileExists(atPath: privateKey) {
                throw ValidationError("--private-key \(privateKey) already exists; choose a new path")
            }
        }

        func run() throws {
            let signer: ProofKeySigner
            do {
                let generated = try ProofKeySigner.generate(bits: bits)
                if let oldPrivateKey {
                    signer = try ProofKeySigner(
                        currentKeyPEM: generated.currentKeyPEM,
                        oldKeyPEM: try readText(oldPrivateKey, option: "--old-private-key")
                    )
                } else {
                    signer = generated
                }
            } catch let error as ProofKeyError {
                throw ValidationError(error.description)
            }
            let pem = Data((signer.currentKeyPEM + "\n").utf8)
            // The private key is a secret: owner-only permissions from the first byte on.
            guard FileManager.default.createFile(atPath: privateKey, contents: pem, attributes: [.posixPermissions: 0o600]) else {
                throw ValidationError("cannot write --private-key \(privateKey)")
            }
            let xml = signer.discoveryDocument().xmlString
            if let discovery {
                do {
                    try Data(xml.utf8).write(to: URL(fileURLWithPath: discovery))
                } catch {
                    throw ValidationError("cannot write --discovery \(discovery): \(error.localizedDescription)")
                }
                Console.line("wrote private key \(privateKey) and discovery \(discovery)")
            } else {
                Console.write(Console.redact(xml), to: .standardOutput)
            }
        }
    }
}

/// Reads a file the user named, turning failure into a one-line `ValidationError`.
private func readData(_ path: String, option: String) throws -> Data {
    do {
        return try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
        throw ValidationError("cannot read \(option) \(path): \(error.localizedDescription)")
    }
}

private func readText(_ path: String, option: String) throws -> String {
    guard let text = String(data: try readData(path, option: option), encoding: .utf8) else {
        throw ValidationError("\(option) \(path) is not UTF-8 text")
    }
    return text
}
