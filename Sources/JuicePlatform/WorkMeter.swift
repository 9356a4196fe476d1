import Synchronization

/// Counts the expensive work the store does (a report computed, not read from the cache), for
/// the loop's fair turn: a turn that caused one is over (`FairTurn`), so a client pipelining
/// reports gets one computed per turn. An atomic so that a turn can read it per line for the
/// cost of a load, without entering the store; it is only written on the loop. Its read is
/// inlinable (`FairTurn` asks it per line, from other modules).
@usableFromInline package final class WorkMeter: Sendable {
    package init() {}
    @usableFromInline let count = Atomic<UInt64>(0)

    /// Expensive computations so far.
    @inlinable package var expensive: UInt64 { count.load(ordering: .relaxed) }

    package func countExpensive() { count.add(1, ordering: .relaxed) }
}
