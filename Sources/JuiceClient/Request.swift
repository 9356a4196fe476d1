import JuiceCore
import Synchronization

/// One call waiting for its reply. Created by the calling task, then owned by the engine's queue,
/// except `cancelled`, which the task's cancellation handler may set from any thread first.
final class Request: @unchecked Sendable {
    enum Kind: Equatable {
        /// An ORDER with its key: re-sent after a lost connection (the server answers a repeat
        /// with the original reply).
        case order(key: String)
        /// A VOID with its key: re-sent the same way (a keyed void is applied once).
        case void(key: String)
        /// A read (STOCK, MENU, STATS, PING): re-sent freely.
        case read
        /// RESTOCK or SET: not idempotent, so never re-sent once it may have reached the server.
        case change
    }

    let line: String
    let kind: Kind

    /// An ORDER or a VOID: keyed, re-sent after a lost connection, one of the till's keys out
    /// (`maxUnansweredOrders`), and refused unsent once the till is revoked.
    var isKeyed: Bool {
        switch kind {
        case .order, .void: return true
        case .read, .change: return false
        }
    }
    /// Resumed exactly once, on the engine's queue; nil after that.
    var continuation: CheckedContinuation<ServerLine, any Error>?
    /// Whether the line went out on some connection (so a change may have been applied).
    var sent = false
    /// When the client stops waiting for a connection for this call (set once it had to wait).
    var deadline: Double? = nil
    let cancelled = Mutex(false)

    init(line: String, kind: Kind) {
        self.line = line
        self.kind = kind
    }

    var isCancelled: Bool { cancelled.withLock { $0 } }

    func finish(_ result: Result<ServerLine, any Error>) {
        continuation?.resume(with: result)
        continuation = nil
    }

    /// The error for a call whose task was cancelled. Once the line went out, an order or a change
    /// may have been applied, and a bare CancellationError would lose the key that retries the
    /// order exactly once: so those say they are in doubt; a read, or a call never sent, is just
    /// cancelled.
    var cancellation: any Error {
        guard sent else { return CancellationError() }
        let reason = "the calling task was cancelled after it was sent"
        switch kind {
        case .order(let key): return JuiceError.orderInDoubt(key: key, reason: reason)
        case .void(let key): return JuiceError.voidInDoubt(key: key, reason: reason)
        case .change: return JuiceError.changeInDoubt(command: line, reason: reason)
        case .read: return CancellationError()
        }
    }

    /// The error for a call that could not get through before its deadline.
    func expired(lastFailure: JuiceError) -> JuiceError {
        guard sent else { return lastFailure }
        switch kind {
        case .order(let key): return .orderInDoubt(key: key, reason: "\(lastFailure)")
        case .void(let key): return .voidInDoubt(key: key, reason: "\(lastFailure)")
        case .change: return .changeInDoubt(command: line, reason: "\(lastFailure)")
        case .read: return lastFailure
        }
    }
}

/// What each line sent on a connection waits for, in order: the protocol answers in order.
enum Waiter {
    case request(Request)
    /// A command of the stock sync (MENU, MENU ALIASES, STOCK, SINCE).
    case sync
    /// The engine's own: the keepalive PING, an AUTH (at connect, or again after a lockout),
    /// the TILL that signs each connection in as the paired till.
    case ping, auth, till
}
