import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy on 127.0.0.1 that puts a network fault between a client and a server: added latency, or every packet
/// dropped (nothing gets through, in either direction, until the fault ends — what TCP makes of lost packets, with
/// retransmission succeeding once the network is back). It stands in for `tc netem`, which this machine's kernel lacks.
///
/// Bytes are never lost or reordered: each direction is a queue released in order.
public final class TCPFaultProxy: Sendable {
    /// What the network between the two sides does.
    public enum Fault: Sendable, Equatable {
        /// Nothing: bytes pass at once.
        case none
        /// Every chunk waits this long before it is passed on.
        case latency(Duration)
        /// Nothing passes until the fault changes.
        case droppedPackets
    }

    /// The port clients connect to instead of the server's.
    public let port: Int
    private let box: FaultBox
    private let listener: any Channel

    private init(port: Int, box: FaultBox, listener: any Channel) {
        self.port = port
        self.box = box
        self.listener = listener
    }

    /// A proxy for the server on 127.0.0.1:`targetPort`.
    public static func start(forwardingTo targetPort: Int) async throws -> TCPFaultProxy {
        let box = FaultBox()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                inbound.eventLoop.makeCompletedFuture {
                    try inbound.pipeline.syncOperations.addHandler(RelayHandler(fault: box, connectTo: targetPort))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TCPFaultProxy(port: listener.localAddress?.port ?? 0, box: box, listener: listener)
    }

    /// Puts `fault` on the network from now on; bytes already waiting keep the delay they were given, and
    /// ``Fault/none`` after ``Fault/droppedPackets`` lets everything held through at once.
    public func set(_ fault: Fault) { box.fault.withLock { $0 = fault } }

    /// Closes the listener; connections through it close with their server.
    public func stop() async { try? await listener.close() }
}

/// Shares the proxy's fault with the handlers of every connection.
private final class FaultBox: Sendable {
    let fault = Mutex(TCPFaultProxy.Fault.none)
}

/// One side of a relayed connection: queues what it reads and passes it to the other side in order, when the fault
/// allows. The client side connects to the server when it becomes active.
private final class RelayHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let fault: FaultBox
    private let connectTo: Int?
    private var peer: (any Channel)?
    private var queue: [(bytes: ByteBuffer, due: NIODeadline)] = []
    private var drainScheduled = false

    init(fault: FaultBox, connectTo: Int?) {
        self.fault = fault
        self.connectTo = connectTo
    }

    func channelActive(context: ChannelHandlerContext) {
        guard let connectTo else { return }
        let fault = self.fault
        let inbound = context.channel
        ClientBootstrap(group: context.eventLoop)
            .channelInitializer { outbound in
                outbound.eventLoop.makeCompletedFuture {
                    let back = RelayHandler(fault: fault, connectTo: nil)
                    back.peer = inbound
                    try outbound.pipeline.syncOperations.addHandler(back)
                }
            }
            .connect(host: "127.0.0.1", port: connectTo)
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .success(let outbound):
                    self.peer = outbound
                    self.drain(context.eventLoop)
                case .failure:
                    inbound.close(promise: nil)
                }
            }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let delay: Duration
        switch fault.fault.withLock({ $0 }) {
        case .none, .droppedPackets: delay = .zero
        case .latency(let latency): delay = latency
        }
        queue.append((unwrapInboundIn(data), .now() + TimeAmount(delay)))
        drain(context.eventLoop)
    }

    func channelInactive(context: ChannelHandlerContext) {
        peer?.close(promise: nil)
        queue.removeAll()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Passes on what is due, in order, and comes back for the rest.
    private func drain(_ loop: any EventLoop) {
        guard let peer, !queue.isEmpty else { return }
        let isDropping = fault.fault.withLock { $0 } == .droppedPackets
        let now = NIODeadline.now()
        var wrote = false
        while !isDropping, let first = queue.first, first.due <= now {
            peer.write(first.bytes, promise: nil)
            queue.removeFirst()
            wrote = true
        }
        if wrote { peer.flush() }
        guard !queue.isEmpty, !drainScheduled else { return }
        drainScheduled = true
        let wait = isDropping ? .milliseconds(10) : max(.milliseconds(1), (queue.first?.due ?? now) - now)
        loop.assumeIsolated().scheduleTask(in: wait) {
            self.drainScheduled = false
            self.drain(loop)
        }
    }
}
