extension TestCase {
    /// Whether this case only asks the host whether it claims a feature: every request is CheckFileInfo-like
    /// and checked by property values alone (`<JsonResponseContentValidator>`), like `LocksPrereq`.
    ///
    /// As a prerequisite, a feature gate that fails on a normal answer means "not claimed": its group is
    /// skipped. Any other prerequisite (`WopiValidatorPrereq` checks CheckFileInfo against the schema) is
    /// something every host must pass.
    public var isFeatureGate: Bool {
        func propertyChecksOnly(_ validator: ValidatorDefinition) -> Bool {
            switch validator {
            case .jsonContent: true
            case .and(let children), .or(let children): children.allSatisfy(propertyChecksOnly)
            default: false
            }
        }
        return !requests.isEmpty && requests.allSatisfy { request in
            guard let validators = request.validators, !validators.isEmpty else { return false }
            return validators.allSatisfy(propertyChecksOnly)
        }
    }
}
