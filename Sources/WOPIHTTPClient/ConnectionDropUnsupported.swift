/// The error a transport throws when it cannot drop a connection on purpose
/// (see ``HTTPTransport/sendDroppingConnection(_:after:)``).
public struct ConnectionDropUnsupported: Error, Sendable, Hashable, CustomStringConvertible {
    /// Creates the error.
    public init() {}
    /// A one-line explanation.
    public var description: String { "this transport cannot drop a connection halfway through a body" }
}
