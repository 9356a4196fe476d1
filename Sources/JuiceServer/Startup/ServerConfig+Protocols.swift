import JuiceHTTP
import JuiceLine
import JuiceServices

extension ServerConfig {
    /// Every protocol the server speaks, each on its port (nil: off): the one list the loop
    /// reads. The line protocol first: its port is the one `Server.start` returns.
    package var protocols: [ProtocolListing] {
        [LineProtocol.listing(port: port), HTTPProtocol.listing(port: httpPort)] + extraProtocols
    }
}
