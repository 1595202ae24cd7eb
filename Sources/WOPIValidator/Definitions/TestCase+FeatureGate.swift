extension TestCase {
    /// Whether this case only asks the host whether it claims a feature: every request it checks is checked
    /// by property values alone (`<JsonResponseContentValidator>`), like `LocksPrereq` or
    /// `UserCanRenameContainerPrereq`.
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
        // Requests without validators only gather state (EnumerateAncestors before CheckContainerInfo).
        let checked = requests.compactMap(\.validators).filter { !$0.isEmpty }
        return !checked.isEmpty && checked.allSatisfy { $0.allSatisfy(propertyChecksOnly) }
    }
}
