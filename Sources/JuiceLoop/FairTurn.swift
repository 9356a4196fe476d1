import JuiceCore
import JuicePlatform
import JuiceLog
/// One connection's share of the loop before the others get theirs: the loop serves every
/// client on one thread, so the work one wake-up does for one connection is all the others
/// wait for. A turn is bounded by what its work costs: it stops once it produced
/// `maxOutputBytes`, however much the kernel would take, or once it made the store compute
/// something expensive (a report not in the cache: `WorkMeter`), and runs at most `maxLines` of
/// its pipelined input (the line protocol) or `maxRequests` requests (HTTP), the cost of cheap
/// requests that produce little output. What it did not run stays, in order, for its next turn,
/// which the next flush pass gives it after the connections already waiting
/// (`FlushPasses.markDirty`); no more of its input is read meanwhile.
///
/// Why a bound on work and not only on pending output: a client that pipelines and never
/// reads fills the kernel's socket buffers first (megabytes on loopback), and while they take
/// the replies, nothing is pending in the server. Unbounded, one 64 KiB read of `STATS` ran
/// 9,000 commands in one go, and 200 such clients froze every other client for 3.5 s.
/// Why an expensive read ends the turn: a report over 430 days of history takes milliseconds
/// and answers in a few hundred bytes (`REPORT`), so a bound on output alone let one turn
/// compute 32 of them; 200 clients pipelining reports kept a probe's `PING` waiting 0.5-1 s.
///
/// Inlinable (with `@usableFromInline` on the type: a `package` one is otherwise never inlined
/// into another module): a protocol's module counts and checks every line with it, and an
/// opaque call each time showed in S2's profile.
@usableFromInline package struct FairTurn {
    /// Lines of the line protocol per turn (one send of their replies). Well above what S2's
    /// pipeline of 16 brings in one read, so a client that waits for its replies never
    /// notices the bound.
    @usableFromInline package static let maxLines = 64
    /// HTTP requests per turn: each costs many times a line (the head parsed into Strings, the
    /// Host check, a JSON body: a `/state` answer, 1.3 KB, took ~24 us in a release build, so
    /// 200 connections pipelining it cost ~10 ms a round at 2 per turn).
    package static let maxRequests = 2
    /// Output one turn may produce, as a measure of its cost: the commands that take long are
    /// the ones with long replies (`STATS`, 400 bytes: 16 per turn, one store run; `PING`: the
    /// 64 lines first). A catch-up piece (`CatchUpPump.chunk`) is a turn on its own.
    @usableFromInline package static let maxOutputBytes = 4 * 1024

    /// Lines (or requests) a turn may run: `maxLines` or `maxRequests`.
    @usableFromInline package let limit: Int
    @usableFromInline package private(set) var ran = 0
    @usableFromInline package private(set) var outputBytes = 0
    /// The store's count of expensive computations, and its value when the turn began.
    @usableFromInline let work: WorkMeter
    @usableFromInline let expensiveAtStart: UInt64

    @inlinable package init(limit: Int = FairTurn.maxLines, work: WorkMeter) {
        self.limit = limit
        self.work = work
        expensiveAtStart = work.expensive
    }

    /// Counts one line (or request) about to run.
    @inlinable package mutating func countLine() { ran += 1 }

    /// Counts output the turn produced.
    @inlinable package mutating func countOutput(_ bytes: Int) { outputBytes += bytes }

    /// Whether this turn has had its share of lines or output (with `pending`: output made but
    /// not counted yet), or caused an expensive computation.
    @inlinable package func isOver(adding pending: Int = 0) -> Bool {
        ran >= limit || outputBytes + pending >= FairTurn.maxOutputBytes || work.expensive != expensiveAtStart
    }
}
