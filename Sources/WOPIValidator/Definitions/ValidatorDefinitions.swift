import Foundation

/// Microsoft's WOPI validator definitions: the parsed TestCases.xml plus the JSON schemas it refers to.
///
/// Load them with ``load(testCasesAt:schemasDirectory:)``; pass them to ``ConformanceRunner``.
public struct ValidatorDefinitions: Sendable, Hashable {
    /// The `<Resources>` files.
    public let resources: [TestResource]
    /// The `<PrereqCases>`.
    public let prerequisiteCases: [TestCase]
    /// The `<TestGroup>`s in file order.
    public let groups: [TestGroup]
    /// JSON schemas by id (file name without `.json`).
    public let schemas: [String: JSONSchema]

    /// Creates definitions from parts (tests use this to build small suites).
    public init(resources: [TestResource], prerequisiteCases: [TestCase], groups: [TestGroup], schemas: [String: JSONSchema]) {
        self.resources = resources
        self.prerequisiteCases = prerequisiteCases
        self.groups = groups
        self.schemas = schemas
    }

    /// Parses TestCases.xml bytes, resolving `JsonSchemaValidator` names against `schemas`.
    public init(xml: Data, schemas: [String: JSONSchema]) throws(DefinitionError) {
        self = try DefinitionsParser.parse(root: try XMLNode.parse(xml), schemas: schemas)
    }

    /// Loads TestCases.xml and every `*.json` schema in `schemasDirectory` (default: `JsonSchemas` beside the XML).
    public static func load(testCasesAt url: URL, schemasDirectory: URL? = nil) throws(DefinitionError) -> ValidatorDefinitions {
        let xml: Data
        do {
            xml = try Data(contentsOf: url)
        } catch {
            throw DefinitionError(line: 0, reason: "cannot read \(url.path): \(error.localizedDescription)")
        }
        let directory = schemasDirectory ?? url.deletingLastPathComponent().appendingPathComponent("JsonSchemas")
        return try ValidatorDefinitions(xml: xml, schemas: try loadSchemas(in: directory))
    }

    /// Loads every `*.json` file in `directory` as a schema named after the file.
    public static func loadSchemas(in directory: URL) throws(DefinitionError) -> [String: JSONSchema] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw DefinitionError(line: 0, reason: "cannot list JSON schemas in \(directory.path): \(error.localizedDescription)")
        }
        var schemas: [String: JSONSchema] = [:]
        for name in names.sorted() where name.hasSuffix(".json") {
            let file = directory.appendingPathComponent(name)
            do {
                let bytes = try Data(contentsOf: file)
                schemas[String(name.dropLast(5))] = try JSONSchema(bytes: Array(bytes))
            } catch let error as JSONSchema.LoadError {
                throw DefinitionError(line: 0, reason: "\(name): \(error.description)")
            } catch {
                throw DefinitionError(line: 0, reason: "cannot read \(file.path): \(error.localizedDescription)")
            }
        }
        return schemas
    }

    /// The resource with this id.
    public func resource(id: String) -> TestResource? { resources.first { $0.id == id } }

    /// The prerequisite case with this name.
    public func prerequisiteCase(named name: String) -> TestCase? { prerequisiteCases.first { $0.name == name } }

    /// The group with this name.
    public func group(named name: String) -> TestGroup? { groups.first { $0.name == name } }
}
