// SIGINT and SIGTERM, taken with sigwait(2) by the main thread, never by Dispatch.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceServer
#endif

/// The two signals that stop the server, and the one thread that takes them.
///
/// Why not a Dispatch signal source: on Linux, `dispatchMain()` parks the main thread in
/// `sigsuspend` with an empty mask, so every signal is unblocked there, and libdispatch catches
/// SIGTERM with a handler of its own. A SIGTERM the kernel hands to that thread runs the handler
/// instead of reaching the source's signalfd, and the server never heard it: one start in a few
/// hundred, a SIGTERM right after the listening line went unanswered (`SignalTests`). Here both
/// are blocked in every thread from the first line of main, and the main thread waits for them
/// with `sigwait`, which takes a pending signal however early it came and whichever thread the
/// kernel would have picked. Nothing runs on the main queue, so nothing needs `dispatchMain()`.
enum StopSignals {
    static var set: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }

    /// Blocks both in the calling thread. Called first thing, before any other thread exists,
    /// so every thread made later (the log's, Dispatch's, the journal's) inherits the block.
    static func block() {
        var set = set
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Unblocks both in the calling thread: for a command that runs to its end on this one thread
    /// and never serves (`backup`, `verify`), so Ctrl-C, `kill` and a unit's stop end it as they
    /// end any program. Called before it makes a thread, so no thread keeps the block.
    static func unblock() {
        var set = set
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Waits for each signal in turn, forever, and hands it to `handle` on this thread.
    static func wait(_ handle: (Int32) -> Void) -> Never {
        var set = set
        while true {
            var number: Int32 = 0
            if sigwait(&set, &number) == 0 { handle(number) }
        }
    }
}
