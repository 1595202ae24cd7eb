import Foundation

/// Turns the XML tree of TestCases.xml into ``ValidatorDefinitions``.
///
/// Every element name is checked against what Microsoft's runner understands; an unknown element, a missing
/// required attribute or a malformed value is a ``DefinitionError`` naming the line, so nothing is silently dropped.
enum DefinitionsParser {
    static func parse(root: XMLNode, schemas: [String: JSONSchema]) throws(DefinitionError) -> ValidatorDefinitions {
        guard root.name == "WopiValidation" else {
            throw DefinitionError(line: root.line, reason: "root element is <\(root.name)>, expected <WopiValidation>")
        }
        var resources: [TestResource] = []
        var prereqs: [TestCase] = []
        var groups: [TestGroup] = []
        for child in root.children {
            switch child.name {
            case "Resources":
                for file in child.children {
                    try expect(file, named: ["File"])
                    resources.append(TestResource(id: try required(file, "Id"), name: file.attributes["Name"] ?? "",
                                                  filePath: file.attributes["FilePath"] ?? ""))
                }
            case "PrereqCases":
                for element in child.children {
                    try expect(element, named: ["TestCase"])
                    prereqs.append(try testCase(element, schemas: schemas))
                }
            case "TestGroup":
                groups.append(try testGroup(child, schemas: schemas))
            default:
                throw unknown(child, in: root)
            }
        }
        let definitions = ValidatorDefinitions(resources: resources, prerequisiteCases: prereqs, groups: groups, schemas: schemas)
        try crossCheck(definitions)
        return definitions
    }

    // MARK: - Structure

    private static func testGroup(_ element: XMLNode, schemas: [String: JSONSchema]) throws(DefinitionError) -> TestGroup {
        var prereqNames: [String] = []
        var cases: [TestCase] = []
        for child in element.children {
            switch child.name {
            case "PrereqTests":
                for prereq in child.children {
                    try expect(prereq, named: ["PrereqTest"])
                    prereqNames.append(prereq.text.trimmingCharacters(in: .whitespacesAndNewlines))
                }
            case "TestCases":
                for testCaseElement in child.children {
                    try expect(testCaseElement, named: ["TestCase"])
                    cases.append(try testCase(testCaseElement, schemas: schemas))
                }
            default:
                throw unknown(child, in: element)
            }
        }
        let hasDelay = try element.attributes["HasDelay"].map { (text: String) throws(DefinitionError) -> Bool in
            try boolean(text, attribute: "HasDelay", of: element)
        } ?? false
        return TestGroup(name: try required(element, "Name"), hasDelay: hasDelay, prerequisiteNames: prereqNames, cases: cases)
    }

    private static func testCase(_ element: XMLNode, schemas: [String: JSONSchema]) throws(DefinitionError) -> TestCase {
        let name = try required(element, "Name")
        let categoryText = try required(element, "Category")
        guard let category = TestCategory(name: categoryText), category != .all else {
            throw DefinitionError(line: element.line, reason: "test case \(name) has unknown Category '\(categoryText)'")
        }
        var description = ""
        var requests: [RequestDefinition]?
        var cleanup: [RequestDefinition] = []
        for child in element.children {
            switch child.name {
            case "Description": description = condense(child.text)
            case "Requests": requests = try child.children.map { (r: XMLNode) throws(DefinitionError) in try request(r) }
            case "CleanupRequests": cleanup = try child.children.map { (r: XMLNode) throws(DefinitionError) in try request(r) }
            default: throw unknown(child, in: element)
            }
        }
        guard let requests, !requests.isEmpty else {
            throw DefinitionError(line: element.line, reason: "test case \(name) has no <Requests>")
        }
        return TestCase(name: name, category: category, description: description, requests: requests,
                        cleanupRequests: cleanup, failMessage: element.attributes["FailMessage"].flatMap { $0.isEmpty ? nil : $0 })
    }

    private static let transferChildren: Set<String> = [
        "ContentPropertiesToReturn", "ContentFilters", "ContentProperties", "ContentStreams", "UploadSessionTokenToCommit",
    ]

    private static func request(_ element: XMLNode) throws(DefinitionError) -> RequestDefinition {
        guard let kind = RequestKind(rawValue: element.name) else {
            throw DefinitionError(line: element.line, reason: "unknown request <\(element.name)>")
        }
        var validators: [ValidatorDefinition]?
        var savers: [StateSaver] = []
        var mutators: [RequestMutator] = []
        var body: String?
        var transfer: [XMLNode] = []
        for child in element.children {
            switch child.name {
            case "Validators":
                validators = try child.children.map { (v: XMLNode) throws(DefinitionError) in try validator(v) }
            case "SaveState":
                for state in child.children {
                    try expect(state, named: ["State"])
                    let source = try required(state, "Source")
                    // Like the original, an unrecognised SourceType falls back to the JSON body.
                    let isHeader = state.attributes["SourceType"]?.lowercased() == "header"
                    savers.append(StateSaver(name: try required(state, "Name"), source: isHeader ? .header(source) : .jsonBody(source)))
                }
            case "Mutators":
                for mutator in child.children {
                    switch mutator.name {
                    case "AccessToken":
                        mutators.append(.accessToken(mutation: mutator.attributes["Mutation"]))
                    case "ProofKey":
                        mutators.append(.proofKey(
                            mutateCurrent: try optionalBoolean(mutator, "MutateCurrent") ?? false,
                            mutateOld: try optionalBoolean(mutator, "MutateOld") ?? false,
                            timestamp: mutator.attributes["Timestamp"], keyRelation: mutator.attributes["KeyRelation"]))
                    default:
                        throw unknown(mutator, in: child)
                    }
                }
            case "RequestBody":
                body = child.text.isEmpty ? nil : child.text
            case _ where transferChildren.contains(child.name):
                transfer.append(child)
            default:
                throw unknown(child, in: element)
            }
        }
        let definition = RequestDefinition(kind: kind, attributes: element.attributes, validators: validators, stateSavers: savers,
                                           mutators: mutators, body: body, transferElements: transfer, line: element.line)
        try checkAttributes(definition)
        return definition
    }

    /// The per-request checks Microsoft's runner makes when it builds a request.
    private static func checkAttributes(_ r: RequestDefinition) throws(DefinitionError) {
        func fail(_ reason: String) -> DefinitionError { DefinitionError(line: r.line, reason: "<\(r.kind.rawValue)> \(reason)") }
        if let mode = r.attributes["PutRelativeFileMode"], !mode.isEmpty, r.targetMode == nil {
            throw fail("has PutRelativeFileMode '\(mode)'; expected Suggested, ExactName or Conflicting")
        }
        for name in ["OverwriteRelative", "LockUserVisible"] {
            if let value = r.attributes[name], XMLBoolean.parse(value) == nil { throw fail("has non-boolean \(name) '\(value)'") }
        }
        switch r.kind {
        case .putRelativeFile, .createChildFile:
            if (r.requestedName ?? "").isEmpty { throw fail("needs a Name") }
            if r.targetMode == nil { throw fail("needs a PutRelativeFileMode") }
        case .createChildContainer:
            if r.targetMode == nil { throw fail("needs a PutRelativeFileMode") }
        case .putUserInfo, .addActivities:
            if (r.body ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw fail("needs a <RequestBody>") }
        case .delay:
            if r.delaySeconds == nil { throw fail("needs DelayTimeInSeconds as an unsigned integer") }
        case .renameFile, .renameContainer:
            if r.requestedName == nil { throw fail("needs a Name") }
        default:
            break
        }
        if (r.kind == .putFile || r.kind == .putRelativeFile), (r.resourceId ?? "").isEmpty {
            throw fail("needs a ResourceId")
        }
    }

    private static func validator(_ element: XMLNode) throws(DefinitionError) -> ValidatorDefinition {
        switch element.name {
        case "And":
            return .and(try element.children.map { (v: XMLNode) throws(DefinitionError) in try validator(v) })
        case "Or":
            return .or(try element.children.map { (v: XMLNode) throws(DefinitionError) in try validator(v) })
        case "ResponseCodeValidator":
            let text = try required(element, "ExpectedCode")
            guard let code = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw DefinitionError(line: element.line, reason: "ExpectedCode '\(text)' is not an integer")
            }
            return .responseCode(code)
        case "ResponseHeaderValidator":
            return .responseHeader(ResponseHeaderCheck(
                header: try required(element, "Header"), expectedValue: element.attributes["ExpectedValue"],
                expectedStateKey: element.attributes["ExpectedStateKey"], comparatorText: element.attributes["Comparator"] ?? "=",
                isRequired: try optionalBoolean(element, "IsRequired") ?? false,
                shouldMatch: try optionalBoolean(element, "ShouldMatch") ?? true))
        case "JsonResponseContentValidator":
            let properties = try element.children.map { (p: XMLNode) throws(DefinitionError) in try property(p) }
            return .jsonContent(shouldExist: try optionalBoolean(element, "ShouldExist") ?? true, properties: properties)
        case "JsonSchemaValidator":
            return .jsonSchema(try required(element, "Schema"))
        case "LockMismatchValidator":
            return .lockMismatch(expectedLock: element.attributes["ExpectedLock"])
        case "ResponseContentValidator":
            let resourceId = element.attributes["ExpectedResourceId"].flatMap { $0.isEmpty ? nil : $0 }
            let body = element.attributes["ExpectedBodyContent"].flatMap { $0.isEmpty ? nil : $0 }
            if resourceId != nil && body != nil {
                throw DefinitionError(line: element.line, reason: "ResponseContentValidator has both ExpectedResourceId and ExpectedBodyContent")
            }
            if resourceId == nil && body == nil {
                throw DefinitionError(line: element.line, reason: "ResponseContentValidator needs ExpectedResourceId or ExpectedBodyContent")
            }
            return .responseContent(resourceId: resourceId, expectedBody: body)
        case "FramesValidator":
            for child in element.children {
                try expect(child, named: ["ContentStreamValidator", "ContentPropertyValidator"])
            }
            return .frames(element)
        default:
            throw DefinitionError(line: element.line, reason: "unknown validator <\(element.name)>")
        }
    }

    private static func property(_ element: XMLNode) throws(DefinitionError) -> JSONPropertyCheck {
        guard let kind = JSONPropertyCheck.Kind(rawValue: element.name) else {
            throw DefinitionError(line: element.line, reason: "unknown JSON property check <\(element.name)>")
        }
        let name = try required(element, "Name")
        guard JSONPath(name) != nil else {
            throw DefinitionError(line: element.line, reason: "property path '\(name)' uses unsupported JSONPath syntax")
        }
        let expected = element.attributes["ExpectedValue"]
        if let expected {
            let valid: Bool
            switch kind {
            case .boolean: valid = XMLBoolean.parse(expected) != nil
            case .integer, .arrayLength: valid = Int32(expected.trimmingCharacters(in: .whitespaces)) != nil
            case .long: valid = Int64(expected.trimmingCharacters(in: .whitespaces)) != nil
            case .stringRegex: valid = (try? NSRegularExpression(pattern: expected)) != nil
            case .responseBody: valid = (try? JSONParser(allowsRelaxedSyntax: true).parse(expected)) != nil
            default: valid = true
            }
            guard valid else {
                throw DefinitionError(line: element.line, reason: "<\(kind.rawValue) Name=\"\(name)\"> has invalid ExpectedValue '\(expected)'")
            }
        } else if kind == .stringRegex || kind == .responseBody {
            throw DefinitionError(line: element.line, reason: "<\(kind.rawValue) Name=\"\(name)\"> needs an ExpectedValue")
        }
        return JSONPropertyCheck(
            kind: kind, name: name, isRequired: try optionalBoolean(element, "IsRequired") ?? false, expectedValue: expected,
            endsWith: element.attributes["EndsWith"], expectedStateKey: element.attributes["ExpectedStateKey"],
            containsValue: element.attributes["ContainsValue"], shouldMatch: try optionalBoolean(element, "ShouldMatch") ?? true,
            mustIncludeAccessToken: try optionalBoolean(element, "MustIncludeAccessToken") ?? false,
            ignoreCase: try optionalBoolean(element, "IgnoreCase") ?? false)
    }

    // MARK: - Cross references

    private static func crossCheck(_ definitions: ValidatorDefinitions) throws(DefinitionError) {
        let resourceIds = Set(definitions.resources.map(\.id))
        let prereqNames = Set(definitions.prerequisiteCases.map(\.name))
        var seen = Set<String>()
        for testCase in definitions.prerequisiteCases + definitions.groups.flatMap(\.cases) {
            guard seen.insert(testCase.name).inserted else {
                throw DefinitionError(line: testCase.requests[0].line, reason: "test case name \(testCase.name) is used twice")
            }
            for request in testCase.requests + testCase.cleanupRequests {
                if let id = request.resourceId, !id.isEmpty, !resourceIds.contains(id), request.kind != .putChunkedFile {
                    throw DefinitionError(line: request.line, reason: "ResourceId '\(id)' is not declared in <Resources>")
                }
                for validator in request.validators ?? [] {
                    try crossCheck(validator, line: request.line, resourceIds: resourceIds, schemas: definitions.schemas)
                }
            }
        }
        for group in definitions.groups {
            for name in group.prerequisiteNames where !prereqNames.contains(name) {
                throw DefinitionError(line: 0, reason: "group \(group.name) names unknown prereq case \(name)")
            }
        }
    }

    private static func crossCheck(_ validator: ValidatorDefinition, line: Int, resourceIds: Set<String>,
                                   schemas: [String: JSONSchema]) throws(DefinitionError) {
        switch validator {
        case .and(let children), .or(let children):
            for child in children { try crossCheck(child, line: line, resourceIds: resourceIds, schemas: schemas) }
        case .jsonSchema(let id):
            if schemas[id] == nil { throw DefinitionError(line: line, reason: "JsonSchemaValidator names unknown schema '\(id)'") }
        case .responseContent(let id?, _):
            if !resourceIds.contains(id) { throw DefinitionError(line: line, reason: "ExpectedResourceId '\(id)' is not declared") }
        default:
            break
        }
    }

    // MARK: - Helpers

    private static func expect(_ element: XMLNode, named names: Set<String>) throws(DefinitionError) {
        guard names.contains(element.name) else {
            throw DefinitionError(line: element.line, reason: "unexpected element <\(element.name)>; expected \(names.sorted().map { "<\($0)>" }.joined(separator: " or "))")
        }
    }

    private static func unknown(_ element: XMLNode, in parent: XMLNode) -> DefinitionError {
        DefinitionError(line: element.line, reason: "unknown element <\(element.name)> inside <\(parent.name)>")
    }

    private static func required(_ element: XMLNode, _ attribute: String) throws(DefinitionError) -> String {
        guard let value = element.attributes[attribute], !value.isEmpty else {
            throw DefinitionError(line: element.line, reason: "<\(element.name)> lacks the \(attribute) attribute")
        }
        return value
    }

    private static func optionalBoolean(_ element: XMLNode, _ attribute: String) throws(DefinitionError) -> Bool? {
        guard let text = element.attributes[attribute] else { return nil }
        return try boolean(text, attribute: attribute, of: element)
    }

    private static func boolean(_ text: String, attribute: String, of element: XMLNode) throws(DefinitionError) -> Bool {
        guard let value = XMLBoolean.parse(text) else {
            throw DefinitionError(line: element.line, reason: "<\(element.name)> \(attribute)='\(text)' is not a boolean")
        }
        return value
    }

    /// Trims each line, joins single line breaks with a space and keeps paragraph breaks, like the original's
    /// description formatting.
    static func condense(_ text: String) -> String {
        let lines = text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        var paragraphs: [[String]] = [[]]
        for line in lines {
            if line.isEmpty {
                if !(paragraphs.last?.isEmpty ?? true) { paragraphs.append([]) }
            } else {
                paragraphs[paragraphs.count - 1].append(line)
            }
        }
        return paragraphs.filter { !$0.isEmpty }.map { $0.joined(separator: " ") }.joined(separator: "\n")
    }
}
