import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices

/// What a connection's own commands remember: whether it may manage stock, and how its AUTH
/// attempts and logged refusals went.
package struct SessionState {
    /// May use the manager's verbs: signed in with AUTH, or anyone on a server with no token.
    package var isManager: Bool
    /// Signed in with `AUTH` (not only a manager by default): its keys are the manager's.
    package var signedInAsManager = false
    /// The paired till it signed in as (`TILL`, `PAIR`).
    package var till: TillID?
    /// Whether writes need a paired till or the manager (the server has a manager token).
    package var writesNeedSignIn = false

    /// Who it speaks for, to the store.
    package var role: ClientRole {
        if let till { return .till(till) }
        return signedInAsManager ? .manager : .anonymous
    }

    /// Whether it may ORDER.
    package var mayWrite: Bool { !writesNeedSignIn || isManager || till != nil }

    /// At most `SessionCommands.maxAuthFailures` (then it closes). Small types: every
    /// connection carries this.
    package var authFailures: UInt8 = 0
    /// Refused AUTH/FORBIDDEN lines logged for this connection (the log is rate-limited).
    package var refusalsLogged: UInt32 = 0
}

/// The commands a connection answers without the store (HELP, PING, MENU, EVENTS, AUTH, QUIT)
/// and the AUTH policy: from a command and the session to reply bytes and what the connection
/// does next. No sockets here; the line protocol applies the outcome. One instance serves every
/// connection: wrong tokens are counted per peer address across connections.
package final class SessionCommands {
    /// What the connection must do after the reply.
    package enum Outcome: Equatable {
        case none
        case events(on: Bool)
        /// Close once the reply is out (QUIT, or too many AUTH failures).
        case close
    }

    /// A connection is closed after this many wrong tokens.
    package static let maxAuthFailures = 3

    private let auth: ManagerAuth
    private let helpLine: [UInt8]
    private let menuLine: [UInt8]
    private let menuAliasesLine: [UInt8]
    private let menuPricesLine: [UInt8]

    package init(menu: Menu, auth: ManagerAuth) {
        self.auth = auth
        helpLine = Wire.help
        menuLine = Wire.menuReply(menu)
        menuAliasesLine = Wire.menuAliasesReply(menu)
        menuPricesLine = Wire.menuPricesReply(menu)
    }

    package func answer(_ command: Command, session: inout SessionState, peer: String, to out: inout [UInt8]) -> Outcome {
        switch command {
        case .help:
            out.append(contentsOf: helpLine)
        case .ping:
            out.append(contentsOf: Wire.pong)
        case .menu:
            out.append(contentsOf: menuLine)
        case .menuAliases:
            out.append(contentsOf: menuAliasesLine)
        case .menuPrices:
            out.append(contentsOf: menuPricesLine)
        case .events(let on):
            out.append(contentsOf: Wire.eventsReply(on: on))
            return .events(on: on)
        case .auth(let token):
            return authenticate(token, session: &session, peer: peer, to: &out)
        case .till:
            assertionFailure("TILL is answered by the session (it needs the store)")
        case .quit:
            out.append(contentsOf: Wire.bye)
            return .close
        default:
            assertionFailure("\(command) is a store command")
        }
        return .none
    }

    private func authenticate(_ token: [UInt8], session: inout SessionState, peer: String, to out: inout [UInt8]) -> Outcome {
        switch auth.verify(token, peer: peer) {
        case .noTokenConfigured:
            Wire.noManagerToken.append(to: &out)
            return .none
        case .accepted:
            session.isManager = true
            session.signedInAsManager = true
            session.authFailures = 0
            out.append(contentsOf: Wire.authOK)
            return .none
        case .tooManyFailures(let seconds):
            // Refused unchecked; it still counts toward this connection's limit.
            session.authFailures += 1
            let closing = session.authFailures >= Self.maxAuthFailures
            Wire.tooManyAuthFailures(retryIn: seconds, closing: closing).append(to: &out)
            return closing ? .close : .none
        case .wrong:
            session.authFailures += 1
            logRefusal(&session, "AUTH refused for \(peer) (failure \(session.authFailures) of \(Self.maxAuthFailures))")
            if session.authFailures >= Self.maxAuthFailures {
                Wire.wrongToken(closingAfter: Self.maxAuthFailures).append(to: &out)
                return .close
            }
            Wire.wrongToken().append(to: &out)
            return .none
        }
    }

    /// `TILL <credential>`'s answer, given what the store says the credential is.
    package func signIn(_ verdict: TillRegistry.Verdict, name: String?, session: inout SessionState, peer: String, to out: inout [UInt8]) -> Outcome {
        switch verdict {
        case .till(let id):
            session.till = id
            session.authFailures = 0
            out.append("OK TILL till=\(id) name=\(name ?? "")")
            out.appendLineEnd()
            return .none
        case .revoked:
            Wire.tillRevoked.append(to: &out)
            return .close
        case .unknown:
            session.authFailures += 1
            logRefusal(&session, "TILL refused for \(peer): unknown credential (failure \(session.authFailures) of \(Self.maxAuthFailures))")
            let closing = session.authFailures >= Self.maxAuthFailures
            ProtocolError(.authFailed, "unknown till credential" + (closing ? "; closing" : "")).append(to: &out)
            return closing ? .close : .none
        }
    }

    /// Every refused AUTH and FORBIDDEN is logged, but a client repeating them cannot flood the
    /// log: after 20 on one connection, only every 1000th is.
    package func logRefusal(_ session: inout SessionState, _ message: String) {
        if session.refusalsLogged < .max { session.refusalsLogged += 1 }
        let n = Int(session.refusalsLogged)
        if n <= 20 || n % 1000 == 0 {
            Log.warning(message + (n == 20 ? " (further refusals on this connection: every 1000th)" : n > 20 ? " (refusal \(n))" : ""),
                        category: .refusals)
        }
    }
}
