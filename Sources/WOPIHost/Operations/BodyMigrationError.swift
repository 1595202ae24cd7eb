/// Why ``BodyMigration`` could not copy a body.
public enum BodyMigrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The source's bytes do not have the SHA-256 recorded when the body was written: it is damaged where it is.
    case sourceDiffers(BlobKey)
    /// The copy does not read back from the target with the recorded SHA-256.
    case copyDiffers(BlobKey)

    /// The error for people and logs.
    public var description: String {
        switch self {
        case .sourceDiffers(let key): "the body \(key) in the current store does not have the SHA-256 recorded for it"
        case .copyDiffers(let key): "the copy of the body \(key) reads back with another SHA-256"
        }
    }
}
