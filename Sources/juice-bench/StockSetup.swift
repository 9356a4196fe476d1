import JuiceCore
import JuicePlatform

/// A small blocking line client for the one-off setup before a juice-server run (not timed,
/// so simplicity beats speed here).
final class BlockingLineClient {
    private let fd: Int32
    private var pending: [UInt8] = []
    private let endpoint: Endpoint

    init(endpoint: Endpoint, timeoutSeconds: Int = 5) throws(BenchError) {
        self.endpoint = endpoint
        let address = try endpoint.socketAddress()
        fd = Platform.makeStreamSocket(family: address.systemFamily, blocking: true)
        guard fd >= 0 else { throw BenchError.fatal("socket(): \(errnoDescription())") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let rc = address.withSockAddr { connect(fd, $0, $1) }
        if rc != 0 {
            let code = errno
            close(fd)
            throw BenchError.fatal("cannot connect to \(endpoint): \(errnoDescription(code))")
        }
        Platform.setNoDelay(fd)
    }

    deinit { close(fd) }

    func send(_ line: String) throws(BenchError) {
        guard Platform.writeAll(fd, line + "\r\n") else {
            throw BenchError.fatal("sending to \(endpoint) failed: \(errnoDescription())")
        }
    }

    /// The next line, without its CR LF.
    func readLine() throws(BenchError) -> String {
        while true {
            if let newline = pending.firstIndex(of: ASCII.newline) {
                var line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                if line.last == ASCII.carriageReturn { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, 4096, 0) }
            if received == 0 { throw BenchError.fatal("\(endpoint) closed the setup connection") }
            if received < 0 { throw BenchError.fatal("no reply from \(endpoint) during setup: \(errnoDescription())") }
            pending += chunk[..<received]
        }
    }

    /// Sends a command and returns its reply, skipping `EVENT ...` lines pushed meanwhile.
    func command(_ line: String) throws(BenchError) -> (text: String, line: ServerLine) {
        try send(line)
        while true {
            let reply = try readLine()
            switch ServerLine.parse(reply) {
            case .hello, .stockEvent, .bye, .otherEvent: continue
            case let parsed: return (reply, parsed)
            }
        }
    }
}

enum StockSetup {
    static let stockLevel = 1_000_000_000

    /// Before measuring: AUTH (if $JUICE_MANAGER_TOKEN is set), read the recipe of `juice`
    /// from MENU, and SET each of its fruits to the maximum, so a short run never runs out.
    static func stockUp(_ endpoint: Endpoint, juice: String) throws(BenchError) {
        let client = try BlockingLineClient(endpoint: endpoint)
        let greeting = try client.readLine()
        guard case .hello = ServerLine.parse(greeting) else {
            throw BenchError.fatal("\(endpoint) greeted with '\(greeting)', not 'EVENT HELLO ...': "
                                   + "is it juice-server? (use 'juice-bench raw' for other servers)")
        }
        if let token = getenv("JUICE_MANAGER_TOKEN").map({ String(cString: $0) }), !token.isEmpty {
            let reply = try client.command("AUTH \(token)")
            guard case .ok("AUTH", _) = reply.line else {
                throw BenchError.fatal("AUTH with $JUICE_MANAGER_TOKEN was refused: \(reply.text)")
            }
        }
        let menuReply = try client.command("MENU")
        guard let menu = WireReader.menu(line: menuReply.text) else {
            throw BenchError.fatal("cannot parse the MENU reply: \(menuReply.text)")
        }
        guard let recipe = menu.juices.first(where: { $0.name == juice })?.recipe else {
            throw BenchError.fatal("'\(juice)' is not on the menu (menu: \(menu.juices.map(\.name).joined(separator: ", ")))")
        }
        for ingredient in recipe {
            let fruit = menu.fruits[ingredient.fruit].name
            let reply = try client.command("SET \(fruit) \(stockLevel)")
            guard case .ok("SET", _) = reply.line else {
                throw BenchError.fatal("SET \(fruit) \(stockLevel) was refused: \(reply.text)"
                                       + (reply.text.contains("AUTH") ? " (set JUICE_MANAGER_TOKEN to the manager token)" : ""))
            }
        }
    }
}
