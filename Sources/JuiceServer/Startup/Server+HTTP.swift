import JuiceHTTP

extension Server {
    /// The HTTP port (after `start()`), or nil without the HTTP side.
    public var httpPort: Int? { port(of: HTTPProtocol.name) }
}
