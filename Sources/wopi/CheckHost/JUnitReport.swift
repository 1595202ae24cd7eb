import ArgumentParser
import Foundation
import OfficeSimulator
import WOPICore

/// `wopi check-host --junit` and `wopi validate --junit`: the checks as JUnit XML, one `<testsuite>` per
/// family (rule, validator, scenario), one `<testcase>` per check, classnamed `<tool>.<family>`; a failed
/// check carries `<failure>`, a skipped one `<skipped>`, a warning passes with its detail in `<system-out>` prefixed `warning:`. Every text goes through
/// `redact` before it is escaped, so no token reaches a CI artifact.
struct JUnitReport {
    let checks: [ReadinessCheck]
    /// The command, as the report names it: `check-host` or `validate`.
    var tool = "check-host"
    var redact: @Sendable (String) -> String = { SecretRedactor().redact($0) }

    var xml: String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let failures = checks.filter { $0.outcome == .failed }.count
        let skipped = checks.filter { $0.outcome == .skipped }.count
        out += "<testsuites name=\"wopi \(tool)\" tests=\"\(checks.count)\" failures=\"\(failures)\" skipped=\"\(skipped)\">\n"
        var suites: [String] = []
        for check in checks where !suites.contains(check.suite) { suites.append(check.suite) }
        for suite in suites {
            let members = checks.filter { $0.suite == suite }
            out += "  <testsuite name=\"\(e(suite))\" tests=\"\(members.count)\" failures=\"\(members.filter { $0.outcome == .failed }.count)\" "
                + "skipped=\"\(members.filter { $0.outcome == .skipped }.count)\">\n"
            for check in members {
                out += "    <testcase classname=\"\(tool).\(e(suite))\" name=\"\(e(check.name))\""
                switch check.outcome {
                case .passed:
                    out += ">\n      <system-out>\(e(check.detail))</system-out>\n    </testcase>\n"
                case .warning:
                    out += ">\n      <system-out>warning: \(e(check.detail))</system-out>\n    </testcase>\n"
                case .skipped:
                    out += ">\n      <skipped message=\"\(e(check.detail))\"/>\n    </testcase>\n"
                case .failed:
                    out += ">\n      <failure message=\"\(e(check.detail))\">\(e(check.detail))</failure>\n    </testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }

    /// Writes the report to `path` at once (the whole file or nothing).
    func write(to path: String) throws {
        do {
            try Data(xml.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ValidationError("--junit '\(path)' cannot be written: \(error.localizedDescription)")
        }
    }

    /// Refuses a `--junit` path whose folder does not exist, before anything runs.
    static func checkWritable(_ path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--junit '\(path)': the folder \(folder) does not exist")
        }
    }

    /// XML text and attribute escaping; control characters XML 1.0 cannot carry become spaces.
    private func e(_ text: String) -> String {
        let cleaned = String(String.UnicodeScalarView(redact(text).unicodeScalars.map { scalar in
            scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r" ? " " : scalar
        }))
        return MarkupEscaping.escape(cleaned)
    }
}
