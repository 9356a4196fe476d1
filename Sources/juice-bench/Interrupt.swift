import JuicePlatform
import Synchronization

/// Set by SIGINT/SIGTERM; the event loop polls it and ends the run early (still reporting).
/// An atomic because a signal handler may only touch lock-free state.
let interruptRequested = Atomic<Bool>(false)

enum Interrupt {
    static func install() {
        signal(SIGINT) { _ in interruptRequested.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in interruptRequested.store(true, ordering: .relaxed) }
    }

    static var requested: Bool { interruptRequested.load(ordering: .relaxed) }
}
