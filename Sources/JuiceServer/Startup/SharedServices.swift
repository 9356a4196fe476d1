import JuiceDomain
import JuiceLoop
import JuiceServices

/// The parts every protocol of one server shares (the tills' presence, the catch-up pump, the
/// manager's token), made once from what the loop lends, the first time a protocol is made.
final class SharedServices {
    private let config: ServerConfig
    private let store: FruitStore
    private let startedAt: UInt64
    private var made: (tills: TillPresence, catchUp: CatchUpPump, auth: ManagerAuth)?

    init(config: ServerConfig, store: FruitStore, startedAt: UInt64) {
        self.config = config
        self.store = store
        self.startedAt = startedAt
    }

    /// What a protocol is given: the loop's parts and the shared ones.
    func services(_ loop: LoopHandle) -> LoopServices {
        let parts = made ?? (
            tills: TillPresence(),
            catchUp: CatchUpPump(store: store, fanOut: loop.fanOut, output: loop.output, passes: loop.passes),
            auth: ManagerAuth(token: config.managerToken, policy: AuthTestHook.policy(config.authFailurePolicy), clock: config.authClock))
        made = parts
        return LoopServices(loop, config: config, store: store, tills: parts.tills, catchUp: parts.catchUp, auth: parts.auth,
                            startedAt: startedAt)
    }
}
