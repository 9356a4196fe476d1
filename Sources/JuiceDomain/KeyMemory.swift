import JuiceCore
import JuicePlatform
import JuiceLog

/// The idempotency keys of recent keyed writes (ORDER, RESTOCK, SET) and the outcome each got, so
/// a till that lost its answer can retry safely and gets the first answer again.
///
/// Keys live in scopes (`Scope`). A paired till, and the manager, each have a namespace of their
/// own: the same key string from two tills is two keys, and nobody else can claim, replay or
/// push out a till's key. A till's namespace holds its newest `perTill` keys: a till that sends
/// more pushes out only its own oldest ones. That is safe under the contract the clients keep
/// (PROTOCOL.md, "Keys"): a till retries only keys among its newest `perTill`.
///
/// Anonymous writers (on a server with no manager token) share one namespace, where the promise
/// is an age, not a count: a key younger than `Policy.retentionSeconds` is never forgotten.
/// Memory there is bounded by fairness instead of by forgetting: the shared namespace holds at
/// most `capacity` keys, and one client address at most `sharePerAddress` of them, so one client
/// can fill its own share but never push out another client's keys. A new key that does not fit
/// is refused (`admit`), and the write with it changes nothing: the caller answers BUSY. A till's
/// keys never count against `capacity`, so no anonymous flood can stop a till's keyed sales.
///
/// Ages are wall-clock unix seconds, as the journal records them, so a key stays young across a
/// restart. Version-3 records say whose each key was (an address, a till), so shares and
/// namespaces survive a restart; keys recovered from older records belong to no address.
package struct KeyMemory: Sendable {
    package struct Policy: Sendable, Equatable {
        package var retentionSeconds: Int64
        package var capacity: Int
        package var sharePerAddress: Int
        /// The newest keys a till's (or the manager's) own namespace keeps.
        package var perTill: Int

        package init(retentionSeconds: Int64 = Limits.keyRetentionSeconds, capacity: Int = Limits.rememberedKeys,
                    sharePerAddress: Int = Limits.keysPerAddress, perTill: Int = Limits.keysPerTill) {
            self.retentionSeconds = retentionSeconds
            self.capacity = capacity
            self.sharePerAddress = sharePerAddress
            self.perTill = perTill
        }
    }

    package typealias Scope = KeyScope

    package typealias Request = KeyRequest

    /// A remembered key's first outcome and when it was used. What the key was used for (a
    /// retry must ask the same) is read off the outcome: an applied change or a refusal names
    /// its write.
    package struct Entry: Sendable, Equatable {
        /// The first outcome (applied, or out of stock), given again, as a duplicate, to a retry.
        package let first: WriteOutcome
        /// When the key was first used (unix seconds).
        package let time: Int64

        package init(first: WriteOutcome, at time: Int64) {
            precondition(first.remembered != nil, "a key remembers an applied write or an order out of stock")
            self.first = first
            self.time = time
        }

        package var request: Request { first.remembered! }
    }

    package typealias Refusal = KeyRefusal

    /// A remembered key in arrival order: the queue that ages them out. `serial` tells the slot
    /// of a key's latest use from one left behind by an earlier use (see `remember`).
    package struct Slot: Sendable {
        package let key: String
        package var time: Int64
        package let owner: String?
        package let serial: UInt64
        package let isOwn: Bool
    }

    /// A key's entry and the serial of its slot.
    private struct Held: Sendable {
        package let entry: Entry
        package let serial: UInt64
    }


    package let policy: Policy
    private var entries: [String: Held] = [:]
    /// The shared namespace's keys and the tills' own, each queue in arrival order: apart, so
    /// the next shared key to age out is always at its queue's front.
    private var shared = Queue()
    private var own = Queue()
    private var nextSerial: UInt64 = 0
    private var shares: [String: Share] = [:]
    /// Keys held in the shared namespace (what `capacity` bounds).
    private var sharedCount = 0
    /// Slots in `own` whose key a till's bound forgot (see `dropDeadOwnSlots`).
    private var deadOwnSlots = 0

    package init(policy: Policy = Policy()) {
        precondition(policy.retentionSeconds >= 1 && policy.capacity >= 1 && policy.sharePerAddress >= 1 && policy.perTill >= 1)
        self.policy = policy
    }

    package var count: Int { entries.count }

    /// The keys the shared namespace holds.
    package var sharedKeys: Int { sharedCount }

    /// A key of the shared namespace.
    package subscript(key: String) -> Entry? { entries[key]?.entry }

    package subscript(key: String, in scope: Scope) -> Entry? { entries[scope.stored(key)]?.entry }

    /// A sale this key answered was voided by the void at `seq`: its retry now says so. The
    /// key keeps its place and its age (only its answer gains the void).
    package mutating func markVoided(_ key: String, in scope: Scope, by seq: UInt64) {
        let stored = scope.stored(key)
        guard let held = entries[stored], case .applied(var change) = held.entry.first else { return }
        change.voidedBy = seq
        entries[stored] = Held(entry: Entry(first: .applied(change), at: held.entry.time), serial: held.serial)
    }

    /// Nil if a new key in `scope` fits now, else why not. Forgets the keys that aged out
    /// first. In the shared namespace only those ever make room; in a till's own, its oldest
    /// key is forgotten to make room for its newest.
    package mutating func admit(_ scope: Scope, now: Int64) -> Refusal? {
        forgetExpired(now: now)
        guard let owner = scope.owner else { return sharedCount >= policy.capacity ? full(now) : nil }
        if scope.isOwn {
            while let share = shares[owner], share.count >= policy.perTill { forgetOldest(of: owner) }
            return nil
        }
        if let share = shares[owner], share.count >= policy.sharePerAddress {
            return .addressFull(retryAfterSeconds: secondsUntilExpiry(of: share.oldest, now: now))
        }
        return sharedCount >= policy.capacity ? full(now) : nil
    }

    /// A shared key from a client counted against `owner` (nil: none).
    package mutating func admit(owner: String?, now: Int64) -> Refusal? {
        admit(.shared(address: owner), now: now)
    }

    private func full(_ now: Int64) -> Refusal {
        .full(retryAfterSeconds: secondsUntilExpiry(of: oldestSharedTime, now: now))
    }

    /// The time of the oldest shared key (the next to age out and make room).
    private var oldestSharedTime: Int64? { shared.front?.time }


    /// Forgets `owner`'s oldest key (a till's namespace at its bound). Its slot stays in the
    /// queue and forgets nothing when it comes out (its serial no longer matches).
    private mutating func forgetOldest(of owner: String) {
        guard var share = shares[owner], share.count > 0 else { return }
        let key = share.keys[share.head], serial = share.serials[share.head]
        if entries[key]?.serial == serial {
            entries.removeValue(forKey: key)
            deadOwnSlots += 1
        }
        share.removeOldest()
        shares[owner] = share.count == 0 ? nil : share
        dropDeadOwnSlots()
    }

    /// Forgets every key of a namespace (a revoked till's: nothing it sends is applied again,
    /// so its keys answer nothing).
    package mutating func forget(_ scope: Scope) {
        guard scope.isOwn, let owner = scope.owner else { return }
        while shares[owner] != nil { forgetOldest(of: owner) }
    }

    /// A key a till's bound pushed out leaves its slot in the queue until it ages out: a till
    /// sending a million keys a day would keep a million dead slots (180 bytes each). Once the
    /// dead outnumber the live, the queue keeps only the live: memory stays within twice the
    /// tills' bound, and the work is paid for by the keys that made the dead ones.
    private mutating func dropDeadOwnSlots() {
        let live = entries.count - sharedCount
        guard deadOwnSlots > max(1024, live) else { return }
        own.slots = own.slots[own.head...].filter { entries[$0.key]?.serial == $0.serial }
        own.head = 0
        deadOwnSlots = 0
    }

    /// Remembers a key just used (live: after `admit` said it fits; on recovery: as recorded).
    ///
    /// A key held already is remembered again only on recovery: the journal holds a key used
    /// again after it aged out (live, it was forgotten first, so that use was new). The later use
    /// wins, and its age starts at its own time: it gets a new slot at the back of the queue, and
    /// the one left behind forgets nothing when it comes out (else the restart would forget a
    /// young key at once, and its retry would apply twice).
    package mutating func remember(_ key: String, _ entry: Entry, in scope: Scope) {
        let stored = scope.stored(key)
        if let held = entries[stored], held.entry == entry { return }
        nextSerial += 1
        if entries.updateValue(Held(entry: entry, serial: nextSerial), forKey: stored) == nil, !scope.isOwn { sharedCount += 1 }
        let owner = scope.owner
        let slot = Slot(key: stored, time: entry.time, owner: owner, serial: nextSerial, isOwn: scope.isOwn)
        if scope.isOwn { own.slots.append(slot) } else { shared.slots.append(slot) }
        if let owner {
            shares[owner, default: Share()].append(entry.time, nextSerial, stored)
            // On recovery a till's namespace is bounded as it was live.
            if scope.isOwn, let share = shares[owner], share.count > policy.perTill { forgetOldest(of: owner) }
        }
    }

    /// A shared key counted against `owner` (nil: none).
    package mutating func remember(_ key: String, _ entry: Entry, owner: String? = nil) {
        remember(key, entry, in: .shared(address: owner))
    }

    /// Forgets the keys at least `retentionSeconds` old, in arrival order. A clock set back makes
    /// a later key look older than one before it: the queue then waits for the one in front,
    /// which only ever keeps a key longer, never forgets one early.
    ///
    /// A key stamped ahead of now (a clock that jumped forward, then back) would hold up every
    /// key behind it until its future time came: when it reaches the front it is aged from now
    /// instead, so it holds the queue for at most one window, and is still never forgotten early.
    package mutating func forgetExpired(now: Int64) {
        // Taken out while it is worked on (the helper also changes the entries and shares),
        // and put back: a move, not a copy.
        var queue = Queue()
        swap(&queue, &shared)
        forgetExpired(in: &queue, now: now)
        swap(&queue, &shared)
        swap(&queue, &own)
        forgetExpired(in: &queue, now: now)
        swap(&queue, &own)
    }

    private mutating func forgetExpired(in queue: inout Queue, now: Int64) {
        while queue.head < queue.slots.count {
            if queue.slots[queue.head].time > now { queue.slots[queue.head].time = now }
            guard now - queue.slots[queue.head].time >= policy.retentionSeconds else { break }
            let slot = queue.slots[queue.head]
            if entries[slot.key]?.serial == slot.serial {
                entries.removeValue(forKey: slot.key)
                if !slot.isOwn { sharedCount -= 1 }
            } else if slot.isOwn, deadOwnSlots > 0 {
                deadOwnSlots -= 1
            }
            // Its share's oldest, unless a till's bound forgot it already (then the share's
            // oldest is a later key).
            if let owner = slot.owner, shares[owner]?.oldestSerial == slot.serial {
                shares[owner]?.removeOldest()
                if shares[owner]?.count == 0 { shares.removeValue(forKey: owner) }
            }
            queue.head += 1
        }
        queue.compact()
    }

    private func secondsUntilExpiry(of time: Int64?, now: Int64) -> Int {
        guard let time else { return 1 }
        return Int(max(1, min(policy.retentionSeconds, time + policy.retentionSeconds - now)))
    }

    /// The keys an address holds now (for tests and the log).
    package func held(by owner: String) -> Int { shares[owner]?.count ?? 0 }

    /// Slots kept in the tills' queue, live and dead (for tests of the bound).
    package var ownSlots: Int { own.slots.count - own.head }

    /// A till's (or the manager's) keys held now.
    package func held(in scope: Scope) -> Int { scope.owner.map { shares[$0]?.count ?? 0 } ?? 0 }

    /// Oldest first, with the scope each lives in: the order a snapshot writes them in, so a
    /// reload ages them out alike.
    package var inOrder: [(key: String, scope: Scope, entry: Entry)] {
        (shared.live + own.live).compactMap { slot in
            guard let held = entries[slot.key], held.serial == slot.serial else { return nil }
            if slot.isOwn, let space = slot.key.firstIndex(of: " ") {
                return (String(slot.key[slot.key.index(after: space)...]), .own(String(slot.key[..<space])), held.entry)
            }
            return (slot.key, .shared(address: slot.owner), held.entry)
        }
    }
}
