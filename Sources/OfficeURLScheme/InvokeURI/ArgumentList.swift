/// The `<command>|<descriptor>|<argument>…` part shared by invoke URIs and passbacks, split and
/// decoded once so both types parse the same way.
struct ArgumentList {
    var command: String
    /// Raw (still encoded) arguments in order.
    var pairs: [(descriptor: String, raw: String)]

    /// Whether a remainder is the fully percent-encoded form Foundation makes (`ofe%7Cu%7C…`):
    /// no raw `|`, and the first delimiter after the command is `%7C`.
    static func isFullyEncoded(_ remainder: String) -> Bool {
        guard !remainder.contains("|") else { return false }
        let lowered = remainder.lowercased()
        if OfficeCommand.allCases.contains(where: { lowered.hasPrefix("\($0.rawValue)%7c") }) { return true }
        return lowered.hasPrefix("http%3a") || lowered.hasPrefix("https%3a")
    }

    /// Undoes Foundation's whole-string encoding, giving the raw form.
    static func rawRemainder(_ remainder: String) throws(OfficeURLError) -> String {
        guard isFullyEncoded(remainder) else { return remainder }
        guard let decoded = ArgumentEncoding.decode(remainder) else { throw .malformedPercentEncoding(remainder) }
        return decoded
    }

    /// Splits a raw remainder that starts with a command.
    init(raw: String) throws(OfficeURLError) {
        let parts = raw.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        command = parts[0]
        pairs = []
        var index = 1
        while index < parts.count {
            let descriptor = parts[index]
            guard index + 1 < parts.count else { throw .missingArgumentValue(descriptor: descriptor) }
            pairs.append((descriptor, parts[index + 1]))
            index += 2
        }
    }

    /// Pulls the known descriptors out, checking each appears once, and returns the rest as extras.
    func sorted(known: Set<String>) throws(OfficeURLError) -> (known: [String: String], extra: [OfficeURIArgument]) {
        var found: [String: String] = [:]
        var extra: [OfficeURIArgument] = []
        for (descriptor, raw) in pairs {
            if known.contains(descriptor) {
                guard found[descriptor] == nil else { throw .duplicateArgument("|\(descriptor)|") }
                found[descriptor] = raw
            } else {
                extra.append(try OfficeURIArgument(descriptor: descriptor, value: ArgumentEncoding.decodeText(raw)))
            }
        }
        return (found, extra)
    }
}
