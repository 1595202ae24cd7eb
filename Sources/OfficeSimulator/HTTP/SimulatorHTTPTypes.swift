import WOPIHTTPClient

// The simulator's own names for the shared HTTP types, kept because its steps, scenarios and tests
// use them throughout; each is exactly the WOPIHTTPClient type.

/// One HTTP header field the simulator sends or reads: WOPIHTTPClient's `HeaderField`.
public typealias SimulatorHeader = HeaderField

/// A request the simulator sends: WOPIHTTPClient's `TransportRequest`.
public typealias SimulatorRequest = TransportRequest

/// A host's answer exactly as sent, redirects never followed: WOPIHTTPClient's `TransportResponse`.
public typealias SimulatorResponse = TransportResponse
