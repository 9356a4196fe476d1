import JuiceClient
import JuiceTill
import Synchronization

/// The till's side of the shop: orders and voids with keys that survive restarts, sent through
/// JuiceClient until they are answered (a sale is never given up while the till runs: the client
/// re-sends it with the same key, so it lands once), and restocks, with a manager's client made when a
/// token is first given.
final class Sales: Sendable {
    let shop: JuiceClient
    private let keys: Mutex<TillKeys>
    private let configuration: JuiceClient.Configuration
    private let manager: Mutex<JuiceClient?>
    /// `currency()`'s answer once asked (the inner nil: a menu without prices).
    private let currencyAsked = Mutex<Currency??>(nil)

    init(options: TillOptions, keys: sending TillKeys, token: String?, credential: String?) {
        var configuration = JuiceClient.Configuration(host: options.host, port: options.port, managerToken: token)
        configuration.tillCredential = credential
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
            } catch JuiceError.revoked(let message) {
                throw Revoked(message: message)
            }
        }
    }

    /// Voids this till's sale `sale` (the undo key), with a key of the till's like an order's:
    /// sent until it is answered, applied once however often the connection drops.
    func void(sale: Int, reason: VoidReason) async throws -> VoidResult {
        let key = try keys.withLock { try $0.next() }
        while true {
            do {
                return try await shop.void(sale: sale, reason: reason, key: key)
            } catch JuiceError.voidInDoubt, JuiceError.unreachable {
                continue // still away after the bound: keep the void, same key
            } catch JuiceError.revoked(let message) {
                throw Revoked(message: message)
            }
        }
    }

    /// The menu's currency, asked once (`MENU PRICES`) for the piped till's lines; nil without
    /// prices. Asked after an answer came, so the server is there.
    func currency() async -> Currency? {
        if let known = currencyAsked.withLock({ $0 }) { return known }
        let currency = (try? await shop.prices())?.currency
        currencyAsked.withLock { $0 = .some(currency) }
        return currency
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

    /// Pairs with the manager's code and keeps the credential in `path` (0600): this client is
    /// the till from now on, and the next start reads the file.
    func pair(code: String, savingTo path: String) async throws -> PairedTill {
        let paired = try await shop.pair(code: code)
        try TillCredentialFile.write(paired.credential, to: path)
        return paired
    }

    func close() {
        shop.close()
        manager.withLock { $0?.close() }
    }
}

/// The manager revoked this till: said so plainly, on the screen and in a piped result.
struct Revoked: Error, CustomStringConvertible {
    let message: String
    var description: String {
        "this till was removed by the manager; nothing was sold (the server said: \(message)). "
            + "Ask the manager for a new code and run juice-till --pair CODE"
    }
}
