import JuiceClient
import JuiceTill
import Synchronization

/// The till's side of the shop: orders with keys that survive restarts, sent through JuiceClient
/// until they are answered (a sale is never given up while the till runs: the client re-sends
/// it with the same key, so it lands once), and restocks, with a manager's client made when a
/// token is first given.
final class Sales: Sendable {
    let shop: JuiceClient
    private let keys: Mutex<TillKeys>
    private let configuration: JuiceClient.Configuration
    private let manager: Mutex<JuiceClient?>

    init(options: TillOptions, keys: sending TillKeys, token: String?) {
        var configuration = JuiceClient.Configuration(host: options.host, port: options.port, managerToken: token)
        configuration.keyPrefix = keys.tillID
        configuration.retryBound = 3600
        self.configuration = configuration
        shop = JuiceClient(configuration: configuration)
        self.keys = Mutex(keys)
        manager = Mutex(nil)
    }

    var tillID: String { keys.withLock { $0.tillID } }

    /// Sells `count` of `juice`: the one true result, however often the connection drops.
    func order(_ juice: String, count: Int) async throws -> OrderResult {
        let key = try keys.withLock { try $0.next() }
        while true {
            do {
                return try await shop.order(juice, count: count, key: key)
            } catch JuiceError.orderInDoubt, JuiceError.unreachable {
                continue // still away after the bound: keep the sale, same key
            }
        }
    }

    /// Restocks, with `token` if given (kept for the next restock).
    func restock(_ fruit: String, _ amount: Int, token: String?) async throws -> (seq: Int, total: Int) {
        let client: JuiceClient = manager.withLock { manager in
            guard let token else { return manager ?? shop }
            manager?.close()
            var configuration = self.configuration
            configuration.managerToken = token
            let made = JuiceClient(configuration: configuration)
            manager = made
            return made
        }
        return try await client.restock(fruit, amount)
    }

    func close() {
        shop.close()
        manager.withLock { $0?.close() }
    }
}
