import HTTPTypes

/// Header names of the bootstrapper and sign-in (bootstrapper/*.rst, identity/sessioncontext.rst).
extension HTTPField.Name {
    static let wopiEcosystemOperation = Self("X-WOPI-EcosystemOperation")!
    static let wopiWopiSrc = Self("X-WOPI-WopiSrc")!
    static let wopiSessionContext = Self("X-WOPI-SessionContext")!
    static let pragma = Self("Pragma")!
}
