import Hummingbird
import NIOCore

/// The host's request context: Hummingbird's basics plus the peer address, which the sign-in
/// throttle keys on (wrong passwords are limited per user *and* client address), and the connection,
/// which `100 Continue` is sent on.
public struct WOPIRequestContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The address of the TCP peer (a proxy's, behind one).
    public let remoteAddress: SocketAddress?
    /// The connection the request arrived on.
    let channel: any Channel

    /// Creates the context for one request, recording the connection and its peer address.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }
}
