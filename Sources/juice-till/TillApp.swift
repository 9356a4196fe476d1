import Foundation
import JuiceClient
import JuicePlatform
import JuiceScreen
import JuiceTerminal
import JuiceTill

/// The full-screen till: one thread, one poll() over the signal pipe, the keyboard and the
/// mailbox that the stock stream and the finished sales post to (juice-board's loop, on the
/// same shared terminal code). Sales run as tasks of JuiceClient and never block the screen.
final class TillApp {
    enum Event: Sendable {
        case shop(ShopUpdate)
        /// A sale was answered (made, out of stock, or an error): one fewer waiting; `short` is
        /// the fruit an out-of-stock was short of, `sale` the sale made (what `u` undoes).
        case sold(String, short: String?, sale: LastSale?)
        /// A void was answered: `result` nil for a refusal or an error (the text says which).
        case voided(String, VoidResult?)
        /// The menu's prices, asked whenever the stream brings a whole state (a new menu).
        case prices(Prices)
        /// Any other result for the status line (a restock).
        case note(String)
        case needToken(fruit: String, amount: Int)
    }

    static let frameInterval = 0.05

    private let options: TillOptions
    private let sales: Sales
    private let events: Mailbox<Event>
    private let terminal = Terminal()
    private var signals: SignalPipe? = nil
    private var input = TillInput()
    private var shop: ShopState? = nil
    private var status = TillStatus()
    private var size = TerminalSize.fallback
    private var shownScreen: [String]? = nil
    private var dirty = true
    private var lastFrameAt = -1.0
    private var running = true
    /// The last sale this till made (and did not undo): what `u` voids.
    private var lastSale: LastSale? = nil

    init(options: TillOptions, sales: Sales) throws {
        self.options = options
        self.sales = sales
        events = try Mailbox()
        status.tillID = sales.tillID
        status.serverAddress = options.serverAddress
    }

    /// Runs until `q`, a signal or the keyboard's end. Exit status 1 while orders are unanswered.
    func run() throws -> Int32 {
        signals = try SignalPipe(signals: [SIGINT, SIGTERM, SIGWINCH])
        size = terminal.size()
        terminal.enter()
        defer { terminal.restore() } // idempotent: for a way out other than the one below
        let stream = sales.shop.stock(), mailbox = events
        let follower = Task { for await update in stream { mailbox.post(.shop(update)) } }
        defer { follower.cancel() }

        while running {
            for action in input.tick(now: Self.now()) { perform(action) }
            if dirty && Self.now() - lastFrameAt >= Self.frameInterval { drawFrame() }
            waitAndHandle()
        }
        // The screen first: leaving the alternate screen would wipe a warning written before it.
        terminal.restore()
        guard status.waiting == 0 else {
            Platform.writeAll(STDERR_FILENO, "juice-till: quit with \(status.waiting) order(s) unanswered; they may or may not have been made: check STATS or the stock\n")
            return 1
        }
        guard status.voiding == 0 else {
            Platform.writeAll(STDERR_FILENO, "juice-till: quit with the undo of the last sale unanswered; it may or may not have been voided: check the stock\n")
            return 1
        }
        return 0
    }

    static func now() -> Double { Double(Platform.monotonicNanoseconds()) / 1e9 }

    private func waitAndHandle() {
        var fds = [pollfd(fd: events.readFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: signals?.readFD ?? -1, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)]
        // Wake for the next frame, or to order a juice key that no `x` followed.
        let timeout: Int32 = dirty || input.hint != nil ? 50 : 1000
        guard poll(&fds, nfds_t(fds.count), timeout) > 0 else { return }
        if fds[0].revents != 0 { for event in events.take() { handle(event) } }
        if fds[1].revents != 0 { handleSignals() }
        if fds[2].revents & Int16(POLLHUP) != 0 && fds[2].revents & Int16(POLLIN) == 0 { running = false }
        if fds[2].revents & Int16(POLLIN) != 0 { handleKeyboard() }
    }

    private func handleSignals() {
        for signo in signals?.drain() ?? [] {
            if signo == SIGWINCH {
                size = terminal.size()
                shownScreen = nil
                dirty = true
            } else {
                running = false
            }
        }
    }

    private func handleKeyboard() {
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(STDIN_FILENO, &buffer, buffer.count)
        if n == 0 { running = false; return } // the keyboard is gone
        guard n > 0 else { return }
        status.notice = nil // it answered the key before this one
        for byte in buffer[0..<n] {
            for action in input.key(byte, now: Self.now()) { perform(action) }
        }
        status.hint = input.hint
        status.quote = quote()
        dirty = true
    }

    private func perform(_ action: TillInput.Action) {
        dirty = true
        switch action {
        case .quit: running = false
        case .redraw: break
        case .order(let item, let count): sell(item: item, count: count)
        case .restock(let fruit, let amount, let token): restock(fruit, amount, token: token)
        case .undo:
            if let refusal = LastSale.refusal(lastSale, now: Self.now()) { status.notice = refusal }
            else if let lastSale { input.askUndo(sale: lastSale.seq, what: lastSale.described(status.prices.currency)) }
        case .void(let sale, let reason): void(sale: sale, reason: reason)
        }
        status.hint = input.hint
        status.quote = quote()
    }

    /// The total of the juice key being pressed, before the tap: `mango-kiwi ₩5,500`.
    private func quote() -> String? {
        let item: Int
        switch input.mode {
        case .picked(let picked, _), .times(let picked): item = picked
        default: return nil
        }
        guard let juices = shop?.juices, item <= juices.count else { return nil }
        return TillLines.quote(juices[item - 1], prices: status.prices).map { input.mode == .times(item: item) ? $0 + " each" : $0 }
    }

    private func sell(item: Int, count: Int) {
        guard let juices = shop?.juices else {
            status.notice = "not sold: no menu yet (the server at \(options.serverAddress) has not answered)"
            return
        }
        guard item <= juices.count else {
            status.notice = "not sold: no juice \(item) on the menu"
            return
        }
        let juice = juices[item - 1], sales = sales, mailbox = events, currency = status.prices.currency
        status.waiting += 1
        Task.detached {
            let text: String
            var short: String? = nil
            var sale: LastSale? = nil
            do {
                let result = try await sales.order(juice, count: count)
                text = TillLines.result(result, juice: juice, count: count, currency: currency)
                switch result {
                case .outOfStock(let needs, let has):
                    short = needs.keys.sorted().first { needs[$0]! > has[$0, default: 0] }
                case .made(let seq, _, let amount):
                    sale = LastSale(seq: seq, juice: juice, count: count, amount: amount, at: TillApp.now())
                }
            } catch {
                text = "error \(juice) \(count): \(error)"
            }
            mailbox.post(.sold(text, short: short, sale: sale))
        }
    }

    /// Voids this till's last sale (`u`, then the reason): sent until answered, like a sale.
    private func void(sale: Int, reason: VoidReason) {
        let sales = sales, mailbox = events, currency = status.prices.currency
        status.voiding += 1
        Task.detached {
            do {
                let result = try await sales.void(sale: sale, reason: reason)
                mailbox.post(.voided(TillLines.voided(result, currency: currency), result))
            } catch {
                mailbox.post(.voided("not undone: sale \(sale): \(error)", nil))
            }
        }
    }

    /// Asks the menu's prices (after a whole state: the menu may be new).
    private func askPrices() {
        let sales = sales, mailbox = events
        Task.detached {
            if let prices = try? await sales.shop.prices() { mailbox.post(.prices(prices)) }
        }
    }

    private func restock(_ fruit: String, _ amount: Int, token: String?) {
        let sales = sales, mailbox = events
        Task.detached {
            do {
                let done = try await sales.restock(fruit, amount, token: token)
                mailbox.post(.note("restocked \(fruit) +\(amount): \(done.total) (seq \(done.seq))"))
            } catch JuiceError.forbidden where token == nil {
                mailbox.post(.needToken(fruit: fruit, amount: amount))
            } catch {
                mailbox.post(.note("restock \(fruit) refused: \(error)"))
            }
        }
    }

    private func handle(_ event: Event) {
        dirty = true
        switch event {
        case .shop(let update):
            switch update {
            // A state means the server answered: the stream's first `.full` is its first sync
            // (no `.online` follows it); a state shown while offline is followed by `.offline`.
            case .full(let state, _):
                shop = state
                status.online = true
                askPrices()
            case .change(_, _, let state): shop = state
            case .offline: status.online = false
            case .online: status.online = true
            }
        case .sold(let text, let short, let sale):
            status.waiting -= 1
            status.lastResult = text
            status.shortFruit = short
            input.shortFruit = short
            if let sale {
                lastSale = sale
                status.takings.sold(sale.amount)
            }
        case .voided(let text, let result):
            status.voiding -= 1
            status.lastResult = text
            status.shortFruit = nil
            if let result {
                status.takings.voided(result.amount)
                if lastSale?.seq == result.sale { lastSale = nil }
            }
        case .prices(let prices):
            status.prices = prices
        case .note(let text):
            status.lastResult = text
            status.shortFruit = nil
        case .needToken(let fruit, let amount):
            input.askToken(fruit: fruit, amount: amount)
            status.hint = input.hint
        }
    }

    private func drawFrame() {
        let screen = TillScreen.render(shop, status: status, size: size, language: options.language, color: options.color)
        let update = ScreenDiff.updates(from: shownScreen, to: screen, columns: size.columns)
        if !update.isEmpty, !Platform.writeAll(STDOUT_FILENO, update) { running = false }
        shownScreen = screen
        dirty = false
        lastFrameAt = Self.now()
    }
}
