/// Evaluates ``ValidatorDefinition``s against a response, with the semantics and messages of Microsoft's runner.
public struct ResponseValidator: Sendable {
    /// Resources by id, for ``ValidatorDefinition/responseContent(resourceId:expectedBody:)``.
    public let resources: [String: TestResource]
    /// Schemas by id.
    public let schemas: [String: JSONSchema]
    /// Deliberate deviations from the original.
    public let policy: ValidationPolicy

    /// Creates an evaluator.
    public init(resources: [String: TestResource], schemas: [String: JSONSchema], policy: ValidationPolicy) {
        self.resources = resources
        self.schemas = schemas
        self.policy = policy
    }

    /// Every failure message for one request: the mandatory Content-Length check, then the request's
    /// validators (preceded by the transport-error check), or "status 200" when it declares none.
    public func failures(for definition: RequestDefinition, response: ResponseSnapshot, state: SavedState) -> [String] {
        var errors = contentLengthErrors(response)
        if let validators = definition.validators {
            // Without an answer there is nothing for the other validators to read: the reason is said once.
            if let transportError = response.transportError {
                return errors + ["ExceptionValidator: Exception thrown while executing: \(transportError)"]
            }
            for validator in validators { errors += self.errors(validator, response: response, state: state) }
        } else {
            errors += self.errors(.responseCode(200), response: response, state: state)
        }
        return errors
    }

    /// The failure messages of one validator (empty when it passes).
    public func errors(_ validator: ValidatorDefinition, response: ResponseSnapshot, state: SavedState) -> [String] {
        switch validator {
        case .and(let children):
            return children.flatMap { errors($0, response: response, state: state) }
        case .or(let children):
            let results = children.map { errors($0, response: response, state: state) }
            return results.contains(where: \.isEmpty) ? [] : results.flatMap { $0 }
        case .responseCode(let expected):
            return expected == response.status ? [] : ["Incorrect StatusCode. Expected: \(expected), Actual: \(response.status)"]
        case .responseHeader(let check):
            return headerErrors(check, response: response, state: state)
        case .lockMismatch(let expectedLock):
            let lockCheck = ResponseHeaderCheck(header: "X-WOPI-Lock", expectedValue: expectedLock,
                                                isRequired: !(expectedLock ?? "").isEmpty)
            return errors(.responseCode(409), response: response, state: state) + headerErrors(lockCheck, response: response, state: state)
        case .jsonContent(let shouldExist, let properties):
            return jsonContentErrors(shouldExist: shouldExist, properties: properties, response: response, state: state)
        case .jsonSchema(let id):
            return schemaErrors(id, response: response)
        case .responseContent(let resourceId, let expectedBody):
            let expected: [UInt8]
            if let expectedBody {
                expected = Array(expectedBody.utf8)
            } else if let id = resourceId, let resource = resources[id] {
                expected = resource.content
            } else {
                return ["ResponseContentValidator: resource '\(resourceId ?? "")' does not exist"]
            }
            if expected == response.body { return [] }
            return ["Response body does not match expected content. Expected stream length: \(expected.count), actual stream length: \(response.body.count)"]
        case .frames:
            return ["FramesValidator: incremental file transfer frames are not supported by this runner"]
        }
    }

    // MARK: - Individual validators

    private func contentLengthErrors(_ response: ResponseSnapshot) -> [String] {
        guard response.transportError == nil, let declared = response.header("Content-Length") else { return [] }
        guard let length = Int32(declared.trimmingWhitespace()) else {
            return ["Content-Length header '\(declared)' is not an integer"]
        }
        if Int(length) == response.body.count { return [] }
        return ["Actual content length '\(response.body.count)' of response does not match value in header content-length '\(length)'"]
    }

    private func headerErrors(_ check: ResponseHeaderCheck, response: ResponseSnapshot, state: SavedState) -> [String] {
        guard let actual = response.header(check.header) else {
            if check.isRequired || policy.requires(check.header) {
                return ["'\(check.header)' header is not present on the response"]
            }
            return []
        }
        let expected = check.expectedStateKey.flatMap { state[$0] } ?? check.expectedValue
        guard let comparator = check.comparator else {
            return ["Comparator '\(check.comparatorText)' is not valid"]
        }
        if comparator != .equal {
            guard let actualNumber = Int32(actual.trimmingWhitespace()) else {
                return ["'\(check.header)' header is present, but its value '\(actual)' can not be parsed to integer"]
            }
            guard let expected, let expectedNumber = Int32(expected.trimmingWhitespace()) else {
                return ["expected value '\(expected ?? "")' can not be parsed to integer"]
            }
            let holds: Bool
            switch comparator {
            case .less: holds = actualNumber < expectedNumber
            case .lessOrEqual: holds = actualNumber <= expectedNumber
            case .greater: holds = actualNumber > expectedNumber
            case .greaterOrEqual: holds = actualNumber >= expectedNumber
            case .equal: holds = true
            }
            return holds ? [] : ["headerVal:\(actualNumber) \(comparator.rawValue) comparedValue:\(expectedNumber) comparison failed"]
        }
        guard let expected else { return [] }
        if !check.shouldMatch && actual.isEmpty && expected.isEmpty {
            return ["'\(check.header)' header value should be any non empty string."]
        }
        let matches = actual.lowercased() == expected.lowercased()
        if check.shouldMatch && !matches {
            return ["'\(check.header)' header value is different than expected. Expected: '\(expected)', Actual: '\(actual)'"]
        }
        if !check.shouldMatch && matches {
            return ["'\(check.header)' header value should not be : '\(expected)'"]
        }
        return []
    }

    private func jsonContentErrors(shouldExist: Bool, properties: [JSONPropertyCheck], response: ResponseSnapshot,
                                   state: SavedState) -> [String] {
        guard let text = response.text, !text.isEmpty, response.transportError == nil else {
            return shouldExist ? ["Response body should exist, but couldn't read resource content."] : []
        }
        guard shouldExist else { return ["Response body shouldn't exist."] }
        guard let document = try? JSONParser().parse(text), case .object = document else {
            return ["JsonContentValidator: the response is not a JSON object. Are you sure the response is JSON?"]
        }
        var errors: [String] = []
        for property in properties {
            let value = JSONPath(property.name)?.select(in: document)
            if let message = JSONPropertyEvaluator.failure(property, actual: value, state: state) {
                errors.append("Incorrect value for '\(property.name)' property. \(message)")
            }
        }
        return errors
    }

    private func schemaErrors(_ id: String, response: ResponseSnapshot) -> [String] {
        guard let schema = schemas[id] else { return ["JsonSchemaValidator: schema '\(id)' is not loaded"] }
        guard let text = response.text else {
            return ["JsonSchemaValidator can only be used on requests that have a JSON response."]
        }
        guard !text.isEmpty, response.transportError == nil else { return ["Couldn't read response content."] }
        let document: JSONValue
        do {
            document = try JSONParser().parse(text)
        } catch {
            return ["JsonSchemaValidator: \(error.description)"]
        }
        return schema.validate(document).map { "\(id): \($0)" }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
