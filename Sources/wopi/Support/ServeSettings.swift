import ArgumentParser
import Configuration
import Foundation
import SystemPackage

/// Where `wopi serve` takes each option from: the command line, then a `WOPI_*` environment
/// variable, then the `--config` file (read with swift-configuration), then the option's default.
///
/// The settable keys are derived from `wopi serve`'s own option definitions (ArgumentParser's tool
/// description), so an option added to `serve` is settable in the file and the environment with
/// no change here: key `max-file-size` ↔ `--max-file-size` ↔ `WOPI_MAX_FILE_SIZE`.
enum ServeSettings {
    /// One settable option of `wopi serve`.
    struct Key: Hashable {
        /// The long name without dashes, e.g. `max-file-size`; the file's key.
        var name: String
        /// Whether it takes a value (an option) or not (a flag).
        var takesValue: Bool
        /// Whether it may repeat (a JSON array in the file, a comma-separated environment variable).
        var repeats: Bool

        /// The environment variable: `WOPI_` and the name upper-cased, dashes as underscores.
        var environmentName: String { "WOPI_" + name.uppercased().replacingOccurrences(of: "-", with: "_") }
    }

    /// Options that make no sense in a file.
    static let excluded: Set<String> = ["help", "version", "config", "experimental-dump-help"]

    /// The keys, from `wopi serve`'s tool description.
    static let keys: [Key] = {
        guard let data = ServeCommand._dumpHelp().data(using: .utf8),
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let command = root["command"] as? [String: Any],
              let arguments = command["arguments"] as? [[String: Any]] else { return [] }
        return arguments.compactMap { argument in
            guard let kind = argument["kind"] as? String, kind == "option" || kind == "flag",
                  let names = argument["names"] as? [[String: Any]],
                  let long = names.first(where: { ($0["kind"] as? String) == "long" })?["name"] as? String,
                  !excluded.contains(long) else { return nil }
            return Key(name: long, takesValue: kind == "option", repeats: argument["isRepeating"] as? Bool ?? false)
        }
    }()

    /// Set while the resolved command runs, so it does not resolve again.
    @TaskLocal static var isResolved = false

    /// The arguments after `serve` on this process's command line.
    static func commandLineArguments() -> [String] {
        let all = Array(CommandLine.arguments.dropFirst())
        guard let serve = all.firstIndex(of: "serve") else { return all }
        return Array(all[all.index(after: serve)...])
    }

    /// The long option names a command line sets (`--port 1`, `--port=1`).
    static func givenNames(_ arguments: [String]) -> Set<String> {
        var names: Set<String> = []
        for argument in arguments {
            if argument == "--" { break }
            guard argument.hasPrefix("--") else { continue }
            names.insert(String(argument.dropFirst(2).prefix { $0 != "=" }))
        }
        return names
    }

    /// A problem with a configuration file or an environment variable; exit 2.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// The file's values as option arguments, with the file's unknown keys.
    static func fileArguments(path: String) async throws -> (arguments: [String: [String]], unknownKeys: [String]) {
        guard FileManager.default.fileExists(atPath: path) else { throw Problem(description: "no configuration file at '\(path)'") }
        // The keys present, to report unknown ones (swift-configuration answers for keys asked about).
        let raw = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let object = (try? JSONSerialization.jsonObject(with: raw)) as? [String: Any] else {
            throw Problem(description: "'\(path)' is not a JSON object of serve options")
        }
        let known = Dictionary(uniqueKeysWithValues: keys.map { ($0.name, $0) })
        let unknown = object.keys.filter { known[$0] == nil }.sorted()
        let reader: ConfigReader
        do {
            reader = ConfigReader(provider: try await FileProvider<JSONSnapshot>(filePath: FilePath(path)))
        } catch {
            throw Problem(description: "cannot read '\(path)': \(error)")
        }
        var arguments: [String: [String]] = [:]
        for key in object.keys.sorted() {
            guard let option = known[key] else { continue }
            let configKey = ConfigKey([key])
            let values: [String]?
            if option.repeats {
                values = reader.stringArray(forKey: configKey) ?? reader.string(forKey: configKey).map { [$0] }
            } else if !option.takesValue {
                guard let flag = reader.bool(forKey: configKey) else {
                    throw Problem(description: "'\(key)' in '\(path)' must be true or false")
                }
                values = flag ? [] : nil
            } else if let text = reader.string(forKey: configKey) {
                values = [text]
            } else if let number = reader.int(forKey: configKey) {
                values = [String(number)]
            } else if let number = reader.double(forKey: configKey) {
                values = [String(number)]
            } else {
                throw Problem(description: "'\(key)' in '\(path)' must be a string or a number")
            }
            if let values { arguments[key] = values }
        }
        return (arguments, unknown)
    }

    /// The environment's values (`WOPI_*`) as option arguments, read with swift-configuration.
    static func environmentArguments(_ environment: [String: String]) -> [String: [String]] {
        let reader = ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: environment))
        var arguments: [String: [String]] = [:]
        for key in keys {
            let configKey = ConfigKey(["wopi", key.name])
            if key.repeats {
                if let values = reader.stringArray(forKey: configKey), !values.isEmpty { arguments[key.name] = values }
            } else if !key.takesValue {
                if reader.bool(forKey: configKey) == true { arguments[key.name] = [] }
            } else if let value = reader.string(forKey: configKey), !value.isEmpty {
                arguments[key.name] = [value]
            }
        }
        return arguments
    }

    /// Turns `[name: values]` into `--name value` arguments (a flag's empty list into `--name`).
    static func render(_ settings: [String: [String]]) -> [String] {
        let options = Dictionary(uniqueKeysWithValues: keys.map { ($0.name, $0) })
        var arguments: [String] = []
        for (name, values) in settings.sorted(by: { $0.key < $1.key }) {
            guard let option = options[name] else { continue }
            if !option.takesValue { arguments.append("--\(name)"); continue }
            for value in values { arguments.append("--\(name)=\(value)") }
        }
        return arguments
    }

    /// The full argument list for `wopi serve`: the command line's options, then environment
    /// variables for options it does not set, then the file's for options neither sets.
    static func resolve(commandLine: [String], configFile: String?, environment: [String: String]) async throws -> [String] {
        let given = givenNames(commandLine)
        var settings: [String: [String]] = [:]
        if let configFile {
            let file = try await fileArguments(path: configFile)
            guard file.unknownKeys.isEmpty else {
                throw Problem(description: "unknown key\(file.unknownKeys.count == 1 ? "" : "s") in '\(configFile)': \(file.unknownKeys.joined(separator: ", "))")
            }
            settings = file.arguments
        }
        for (name, values) in environmentArguments(environment) { settings[name] = values }
        for name in given { settings[name] = nil }
        return render(settings) + commandLine
    }

    /// Checks every value of a file by parsing it as `wopi serve` would; returns the problems.
    static func check(path: String) async throws -> (settings: Int, problems: [String]) {
        let file = try await fileArguments(path: path)
        var problems = file.unknownKeys.map { "unknown key '\($0)'" }
        for (name, values) in file.arguments.sorted(by: { $0.key < $1.key }) {
            do { _ = try ServeCommand.parse(render([name: values])) } catch {
                let message = ServeCommand.message(for: error).split(whereSeparator: \.isNewline).first.map(String.init) ?? "\(error)"
                problems.append("'\(name)': \(message)")
            }
        }
        return (file.arguments.count, problems)
    }
}
