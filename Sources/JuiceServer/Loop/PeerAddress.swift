/// Who a connection comes from, as far as per-address rules go (the AUTH failure limit and
/// `--max-clients-per-address`): the host part of the peer `Socket.accept` describes with
/// `SocketAddress`. "1.2.3.4:5678" is "1.2.3.4", "[::1]:5678" is "::1": connections from one
/// host share it whatever their port.
enum PeerAddress {
    static func host(of peer: String) -> String {
        if peer.hasPrefix("["), let close = peer.firstIndex(of: "]") {
            return String(peer[peer.index(after: peer.startIndex)..<close])
        }
        guard let colon = peer.lastIndex(of: ":") else { return peer }
        return String(peer[..<colon])
    }
}
