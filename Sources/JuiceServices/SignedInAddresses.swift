import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
/// The client addresses (`PeerAddress.group`) that presented the right manager token since the
/// server started: the global AUTH failure cap still checks their tokens (`AuthFailureLimiter`),
/// so an attack from many addresses cannot lock out a manager who signed in before.
///
/// Only the right token adds an address, so a guesser cannot fill it or push a manager out.
/// Bounded: at most `capacity` addresses; past that, the one added earliest is forgotten (and
/// waits out a global block like any new address).
package struct SignedInAddresses {
    package let capacity: Int
    private var members: Set<String> = []
    /// The members in the order they were added: `next` is overwritten next.
    private var ring: [String?]
    private var next = 0

    package init(capacity: Int) {
        precondition(capacity >= 1)
        self.capacity = capacity
        ring = Array(repeating: nil, count: capacity)
    }

    package var count: Int { members.count }

    package func contains(_ address: String) -> Bool { members.contains(address) }

    package mutating func insert(_ address: String) {
        guard !members.contains(address) else { return }
        if let old = ring[next] { members.remove(old) }
        ring[next] = address
        members.insert(address)
        next = (next + 1) % capacity
    }
}
