/// The subset of JSONPath that TestCases.xml uses to point into a response (`Name=` of property checks and
/// `Source=` of saved state): dotted member names, `[n]` indexes and `[start:]`/`[start:end]` slices with
/// negative positions counted from the end — the forms Newtonsoft's `SelectToken` gives Microsoft's runner.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    enum Step: Sendable, Hashable {
        case member(String)
        case index(Int)
        case slice(start: Int?, end: Int?)
    }

    let steps: [Step]
    /// The path as written.
    public let description: String

    /// Parses a path; `nil` when it uses syntax outside the supported subset.
    public init?(_ text: String) {
        var steps: [Step] = []
        var rest = Substring(text)
        var name = ""
        func flushName() {
            if !name.isEmpty { steps.append(.member(name)); name = "" }
        }
        while let c = rest.first {
            switch c {
            case ".":
                flushName()
                rest = rest.dropFirst()
            case "[":
                flushName()
                guard let close = rest.firstIndex(of: "]") else { return nil }
                let inner = rest[rest.index(after: rest.startIndex)..<close]
                if inner.contains(":") {
                    let parts = inner.split(separator: ":", omittingEmptySubsequences: false)
                    guard parts.count == 2 else { return nil }
                    let start = parts[0].isEmpty ? nil : Int(parts[0])
                    let end = parts[1].isEmpty ? nil : Int(parts[1])
                    if (!parts[0].isEmpty && start == nil) || (!parts[1].isEmpty && end == nil) { return nil }
                    steps.append(.slice(start: start, end: end))
                } else {
                    guard let i = Int(inner) else { return nil }
                    steps.append(.index(i))
                }
                rest = rest[rest.index(after: close)...]
            default:
                name.append(c)
                rest = rest.dropFirst()
            }
        }
        flushName()
        guard !steps.isEmpty else { return nil }
        self.steps = steps
        self.description = text
    }

    /// The single value the path selects; `nil` when it selects nothing or more than one value
    /// (Newtonsoft then answers null or throws, which the runner treats the same way).
    public func select(in root: JSONValue) -> JSONValue? {
        var current: [JSONValue] = [root]
        for step in steps {
            var next: [JSONValue] = []
            for value in current {
                switch step {
                case .member(let key):
                    if let member = value[key] { next.append(member) }
                case .index(let i):
                    if case .array(let items) = value, i >= 0, i < items.count { next.append(items[i]) }
                case .slice(let start, let end):
                    guard case .array(let items) = value else { continue }
                    let n = items.count
                    func clamp(_ p: Int?, default d: Int) -> Int {
                        guard let p else { return d }
                        return p < 0 ? max(0, n + p) : min(p, n)
                    }
                    let lower = clamp(start, default: 0)
                    let upper = clamp(end, default: n)
                    if lower < upper { next.append(contentsOf: items[lower..<upper]) }
                }
            }
            current = next
        }
        return current.count == 1 ? current[0] : nil
    }
}
