/// The idempotency keys of recent keyed writes (ORDER, RESTOCK, SET) and the outcome each got, so
/// a till that lost its answer can retry safely and gets the first answer again.
///
/// The promise is an age, not a count: a key younger than `Policy.retentionSeconds` is never
/// forgotten. Memory is bounded by fairness instead of by forgetting: the whole memory holds at
/// most `capacity` keys, and one client address at most `sharePerAddress` of them, so one client
/// can fill its own share but never push out another client's keys. A new key that does not fit
/// is refused (`admit`), and the write with it changes nothing: the caller answers BUSY.
///
/// Ages are wall-clock unix seconds, as the journal records them, so a key stays young across a
/// restart. Keys recovered from disk belong to no address (the records do not say whose they
/// were): they count against the whole memory, not against any address's share.
package struct KeyMemory: Sendable {
    package struct Policy: Sendable, Equatable {
        package var retentionSeconds: Int64
        package var capacity: Int
        package var sharePerAddress: Int

        package init(retentionSeconds: Int64 = Limits.keyRetentionSeconds, capacity: Int = Limits.rememberedKeys,
                    sharePerAddress: Int = Limits.keysPerAddress) {
            self.retentionSeconds = retentionSeconds
            self.capacity = capacity
            self.sharePerAddress = sharePerAddress
        }
    }

    /// What a key was first used for: a retry must ask for the same thing, or it is KEY_REUSED.
    package enum Request: Sendable, Equatable {
        case order(juice: Int, count: Int)
        case restock(fruit: Int, amount: Int)
        case set(fruit: Int, amount: Int)
    }

    package struct Entry: Sendable, Equatable {
        package let request: Request
        /// The first outcome (applied, or out of stock), given again, as a duplicate, to a retry.
        package let first: WriteOutcome
        /// When the key was first used (unix seconds).
        package let time: Int64

        package init(request: Request, first: WriteOutcome, time: Int64) {
            self.request = request
            self.first = first
            self.time = time
        }
    }

    /// Why a new key does not fit now.
    package enum Refusal: Sendable, Equatable {
        /// The address holds its whole share.
        case addressFull(retryAfterSeconds: Int)
        /// The whole memory is full of young keys.
        case full(retryAfterSeconds: Int)

        package var retryAfterSeconds: Int {
            switch self {
            case .addressFull(let s), .full(let s): return s
            }
        }
    }

    /// A remembered key in arrival order: the queue that ages them out. `serial` tells the slot
    /// of a key's latest use from one left behind by an earlier use (see `remember`).
    private struct Slot: Sendable {
        let key: String
        var time: Int64
        let owner: String?
        let serial: UInt64
    }

    /// A key's entry and the serial of its slot.
    private struct Held: Sendable {
        let entry: Entry
        let serial: UInt64
    }

    /// One address's keys, oldest first (their times; the slots hold the rest).
    private struct Share: Sendable {
        var times: [Int64] = []
        var head = 0
        var count: Int { times.count - head }
        var oldest: Int64? { head < times.count ? times[head] : nil }

        mutating func removeOldest() {
            head += 1
            if head == times.count {
                times.removeAll(keepingCapacity: false)
                head = 0
            } else if head >= 1024 && head * 2 >= times.count {
                times.removeFirst(head)
                head = 0
            }
        }
    }

    package let policy: Policy
    private var entries: [String: Held] = [:]
    private var slots: [Slot] = []
    private var nextSerial: UInt64 = 0
    private var head = 0
    private var shares: [String: Share] = [:]

    package init(policy: Policy = Policy()) {
        precondition(policy.retentionSeconds >= 1 && policy.capacity >= 1 && policy.sharePerAddress >= 1)
        self.policy = policy
    }

    package var count: Int { entries.count }

    package subscript(key: String) -> Entry? { entries[key]?.entry }

    /// Nil if a new key from `owner` fits now, else why not. Forgets the keys that aged out
    /// first: only those ever make room.
    package mutating func admit(owner: String?, now: Int64) -> Refusal? {
        forgetExpired(now: now)
        if let owner, let share = shares[owner], share.count >= policy.sharePerAddress {
            return .addressFull(retryAfterSeconds: secondsUntilExpiry(of: share.oldest, now: now))
        }
        if entries.count >= policy.capacity {
            return .full(retryAfterSeconds: secondsUntilExpiry(of: head < slots.count ? slots[head].time : nil, now: now))
        }
        return nil
    }

    /// Remembers a key just used (live: after `admit` said it fits; on recovery: as recorded).
    ///
    /// A key held already is remembered again only on recovery: the journal holds a key used
    /// again after it aged out (live, it was forgotten first, so that use was new). The later use
    /// wins, and its age starts at its own time: it gets a new slot at the back of the queue, and
    /// the one left behind forgets nothing when it comes out (else the restart would forget a
    /// young key at once, and its retry would apply twice).
    package mutating func remember(_ key: String, _ entry: Entry, owner: String? = nil) {
        if let held = entries[key], held.entry == entry { return }
        nextSerial += 1
        entries[key] = Held(entry: entry, serial: nextSerial)
        slots.append(Slot(key: key, time: entry.time, owner: owner, serial: nextSerial))
        if let owner { shares[owner, default: Share()].times.append(entry.time) }
    }

    /// Forgets the keys at least `retentionSeconds` old, in arrival order. A clock set back makes
    /// a later key look older than one before it: the queue then waits for the one in front,
    /// which only ever keeps a key longer, never forgets one early.
    ///
    /// A key stamped ahead of now (a clock that jumped forward, then back) would hold up every
    /// key behind it until its future time came: when it reaches the front it is aged from now
    /// instead, so it holds the queue for at most one window, and is still never forgotten early.
    package mutating func forgetExpired(now: Int64) {
        while head < slots.count {
            if slots[head].time > now { slots[head].time = now }
            guard now - slots[head].time >= policy.retentionSeconds else { break }
            let slot = slots[head]
            if entries[slot.key]?.serial == slot.serial { entries.removeValue(forKey: slot.key) }
            if let owner = slot.owner {
                shares[owner]?.removeOldest()
                if shares[owner]?.count == 0 { shares.removeValue(forKey: owner) }
            }
            head += 1
        }
        if head == slots.count {
            slots.removeAll(keepingCapacity: slots.count <= 4096)
            head = 0
        } else if head >= 4096 && head * 2 >= slots.count {
            slots.removeFirst(head)
            head = 0
        }
    }

    private func secondsUntilExpiry(of time: Int64?, now: Int64) -> Int {
        guard let time else { return 1 }
        return Int(max(1, min(policy.retentionSeconds, time + policy.retentionSeconds - now)))
    }

    /// The keys an address holds now (for tests and the log).
    package func held(by owner: String) -> Int { shares[owner]?.count ?? 0 }

    /// Oldest first: the order a snapshot writes them in, so a reload ages them out alike.
    package var inOrder: [(key: String, entry: Entry)] {
        slots[head...].compactMap { slot in
            entries[slot.key].flatMap { $0.serial == slot.serial ? (slot.key, $0.entry) : nil }
        }
    }
}
