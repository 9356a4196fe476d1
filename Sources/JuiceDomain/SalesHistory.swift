import JuiceCore
import JuicePlatform
import JuiceLog

/// The shop's day, kept: per business day and per hour, the orders served and refused, each
/// juice sold and lost, and per fruit what was used, short, restocked, set and ran out. What
/// `STATS` counts since the store was created, this counts by the hour it happened in.
///
/// Built from the times on the journal's records (live, and again on replay) and kept whole in
/// the snapshot (`Y` records), so compaction never loses a day. Bounded: the last
/// `SalesHistory.keptDays` business days that saw a change (a year and a month of a shop open
/// every day: this Saturday can be compared with the same Saturday last year), only hours that
/// saw a change. An hour keeps the day and clock
/// label it was given when it was recorded: changing `--timezone` or `--day-starts` later never
/// moves it.
package struct SalesHistory: Sendable {
    package static let keptDays: Int32 = 400

    /// The moments the history dates: those whose hour, business day and offset a snapshot's
    /// `Y` record holds (an hour starting from 1970 on, a day from 1970-01-01 to 9999-12-31).
    /// Two days in from either end of the times a record carries, so no offset (±18 h at most)
    /// or day start takes a moment's hour or day past them. A moment outside, from a clock never
    /// set (a board without a battery starts at 1970), counts in STATS but in no day: the
    /// snapshot used to write its hour as 1969-12-31, and the next start refused it.
    package static let datable: ClosedRange<Int64> =
        (JournalRecord.times.lowerBound + 2 * 86_400)...(JournalRecord.times.upperBound - 2 * 86_400)

    /// One slot's counters, flat: `[served, refused]`, then each per-juice kind (J values) and
    /// each per-fruit kind (F values) in `Kind` order (J juices and F fruits of the menu). One
    /// array per hour is what keeps 400 days of a busy shop in a few megabytes.
    package struct Counters: Sendable, Equatable {
        package let juices: Int
        package let fruits: Int
        package var values: [UInt64]

        package init(juices: Int, fruits: Int) {
            self.juices = juices
            self.fruits = fruits
            values = Array(repeating: 0, count: 2 + Kind.juiceKinds.count * juices + Kind.fruitKinds.count * fruits)
        }

        /// A counter's kind. Money kinds count minor units of the menu's currency, as each sale
        /// or refusal recorded its amount (a later price never changes them).
        package enum Kind: Int, CaseIterable, Sendable {
            case sold, lost, short, used, restocked, sets, ranOut
            /// Per juice: the money its sales took (before voids), and the money its refusals lost.
            case takings, lostRevenue
            /// Per juice: juices voided, sales voided, and the money voids gave back. A voided sale
            /// still counts in `sold` and `takings`: a void is its own column, never a negative sale.
            case voided, voids, voidedAmount
            /// Per fruit: the money lost by refusals the fruit was short in (a refusal short in two
            /// fruits counts in full for each: which fruit cost the most).
            case shortRevenue

            /// The letter a snapshot `Y` record writes before a name: `s:mango=3`.
            package var letter: Character {
                switch self {
                case .sold: "s"
                case .lost: "l"
                case .short: "t"
                case .used: "u"
                case .restocked: "a"
                case .sets: "e"
                case .ranOut: "o"
                case .takings: "m"
                case .lostRevenue: "n"
                case .voided: "v"
                case .voids: "x"
                case .voidedAmount: "w"
                case .shortRevenue: "p"
                }
            }

            package static let juiceKinds: [Kind] = [.sold, .lost, .takings, .lostRevenue, .voided, .voids, .voidedAmount]
            package static let fruitKinds: [Kind] = [.short, .used, .restocked, .sets, .ranOut, .shortRevenue]

            package var perJuice: Bool {
                switch self {
                case .sold, .lost, .takings, .lostRevenue, .voided, .voids, .voidedAmount: true
                case .short, .used, .restocked, .sets, .ranOut, .shortRevenue: false
                }
            }

            /// Where its values start in `values`, per `juices` and `fruits` of the menu: its
            /// place in `juiceKinds` or `fruitKinds`, as a switch (an order moves several
            /// counters, and a search of those lists per counter showed in S2).
            fileprivate func base(juices: Int, fruits: Int) -> Int {
                let perJuice = 2, perFruit = 2 + Kind.juiceKinds.count * juices
                switch self {
                case .sold: return perJuice
                case .lost: return perJuice + juices
                case .takings: return perJuice + 2 * juices
                case .lostRevenue: return perJuice + 3 * juices
                case .voided: return perJuice + 4 * juices
                case .voids: return perJuice + 5 * juices
                case .voidedAmount: return perJuice + 6 * juices
                case .short: return perFruit
                case .used: return perFruit + fruits
                case .restocked: return perFruit + 2 * fruits
                case .sets: return perFruit + 3 * fruits
                case .ranOut: return perFruit + 4 * fruits
                case .shortRevenue: return perFruit + 5 * fruits
                }
            }

            package init?(letter: Character) {
                guard let kind = Kind.allCases.first(where: { $0.letter == letter }) else { return nil }
                self = kind
            }
        }

        package var served: UInt64 {
            get { values[0] }
            set { values[0] = newValue }
        }
        package var refused: UInt64 {
            get { values[1] }
            set { values[1] = newValue }
        }

        private func index(_ kind: Kind, _ i: Int) -> Int { kind.base(juices: juices, fruits: fruits) + i }

        /// The sum of a per-juice kind over every juice (a day's takings, say).
        package func total(_ kind: Kind) -> UInt64 {
            let start = kind.base(juices: juices, fruits: fruits), width = kind.perJuice ? juices : fruits
            return values[start..<start + width].reduce(0, &+)
        }

        /// Takings after voids, in minor units (a void counts in its sale's hour, so never below 0).
        package var netTakings: Int64 { Int64(bitPattern: total(.takings) &- total(.voidedAmount)) }

        package subscript(kind: Kind, i: Int) -> UInt64 {
            get { values[index(kind, i)] }
            set { values[index(kind, i)] = newValue }
        }

        package mutating func add(_ other: Counters) {
            for i in values.indices { values[i] &+= other.values[i] }
        }
    }

    package let menu: Menu
    /// The calendar new changes are counted by.
    package var calendar: BusinessCalendar {
        didSet {
            current = nil
            version &+= 1
        }
    }
    /// Counts every change to what the history holds (a counter moved, a slot restored, the
    /// calendar changed): a report computed at one version is still the report until it moves
    /// (`ReportCache`). A refusal moves it too, though it changes no stock and no seq.
    package private(set) var version: UInt64 = 0

    /// Something a report shows besides the history changed (a till paired, renamed, revoked):
    /// the reports computed so far are stale.
    package mutating func noteChange() { version &+= 1 }
    /// The slot the last change went into, when it ends, and where its counters are: changes
    /// until it ends go there with no hashing (two dictionary lookups per order showed in S2's
    /// profile). Forgotten whenever the table changes shape (a slot added or dropped).
    private var current: (slot: BusinessCalendar.Slot, end: Int64, index: Dictionary<BusinessCalendar.Slot, Counters>.Index)?
    package private(set) var slots: [BusinessCalendar.Slot: Counters] = [:]
    /// How many slots each business day has: the days kept are the `keptDays` most recent
    /// days that saw a change. Counted by days, not back from the newest one, so one change
    /// stamped by a clock years ahead cannot wipe the history (it takes one day's place).
    private var slotsPerDay: [Int32: Int] = [:]

    package init(menu: Menu, calendar: BusinessCalendar = BusinessCalendar()) {
        self.menu = menu
        self.calendar = calendar
    }

    package var hourCount: Int { slots.count }

    // MARK: - Recording

    package mutating func orderServed(juice: Int, count: Int, touched: [FruitValue], amount: Int? = nil, at time: Int64) {
        let recipe = menu.juices[juice].recipe
        update(at: time) { c in
            c.served += 1
            c[.sold, juice] += UInt64(count)
            if let amount { c[.takings, juice] += UInt64(amount) }
            for ingredient in recipe { c[.used, ingredient.fruit] += UInt64(ingredient.amount * count) }
            for t in touched where t.value == 0 { c[.ranOut, t.fruit] += 1 }
        }
    }

    /// A counted refusal: `short` lists the recipe fruits that were short.
    package mutating func orderRefused(juice: Int, count: Int, short: [Int], amount: Int? = nil, at time: Int64) {
        update(at: time) { c in
            c.refused += 1
            c[.lost, juice] += UInt64(count)
            for fruit in short { c[.short, fruit] += 1 }
            if let amount {
                c[.lostRevenue, juice] += UInt64(amount)
                for fruit in short { c[.shortRevenue, fruit] += UInt64(amount) }
            }
        }
    }

    /// A sale voided, counted in the hour of the sale (`time`): its juices, and its money given back.
    package mutating func voided(juice: Int, count: Int, amount: Int?, at time: Int64) {
        update(at: time) { c in
            c[.voided, juice] += UInt64(count)
            c[.voids, juice] += 1
            if let amount { c[.voidedAmount, juice] += UInt64(amount) }
        }
    }

    package mutating func restocked(fruit: Int, amount: Int, at time: Int64) {
        update(at: time) { c in c[.restocked, fruit] += UInt64(amount) }
    }

    package mutating func set(fruit: Int, to value: Int, at time: Int64) {
        update(at: time) { c in
            c[.sets, fruit] += 1
            if value == 0 { c[.ranOut, fruit] += 1 }
        }
    }

    private mutating func update(at time: Int64, _ change: (inout Counters) -> Void) {
        guard Self.datable.contains(time) else { return }
        version &+= 1
        if let current, time >= current.slot.start, time < current.end {
            change(&slots.values[current.index])
            return
        }
        // Asking the zone for its offset is the one costly step: once per slot, not per order.
        let (slot, end) = calendar.slotAndEnd(at: time)
        if slots[slot] == nil {
            slots[slot] = Counters(juices: menu.juices.count, fruits: menu.fruits.count)
            noteSlot(slot.day)
        }
        // After the slot is added (and an old day maybe dropped): the index is the table's now.
        let index = slots.index(forKey: slot)!
        current = (slot, end, index)
        change(&slots.values[index])
    }

    /// The business day of `time`: the slot the last change went into says it when it holds
    /// `time` (a sale's, just counted), so the order path asks the zone nothing.
    package func day(at time: Int64) -> Int32 {
        if let current, time >= current.slot.start, time < current.end { return current.slot.day }
        return calendar.day(at: time)
    }

    /// A slot as a snapshot recorded it (`Y`), under the current menu.
    package mutating func restore(_ slot: BusinessCalendar.Slot, _ counters: Counters) {
        current = nil
        version &+= 1
        let isNew = slots[slot] == nil
        slots[slot, default: Counters(juices: menu.juices.count, fruits: menu.fruits.count)].add(counters)
        if isNew { noteSlot(slot.day) }
    }

    /// A new slot on `day`: past `keptDays` days, the oldest day goes.
    private mutating func noteSlot(_ day: Int32) {
        slotsPerDay[day, default: 0] += 1
        guard slotsPerDay.count > Self.keptDays, let oldest = slotsPerDay.keys.min() else { return }
        slotsPerDay.removeValue(forKey: oldest)
        slots = slots.filter { $0.key.day != oldest }
        current = nil
    }

    // MARK: - Reading

    /// Every slot, in time order (for the snapshot and the hour reports); slots of two calendars
    /// that start at one moment (a changed --timezone) by day, then offset, so a snapshot is the
    /// same bytes for the same history.
    package var inOrder: [(slot: BusinessCalendar.Slot, counters: Counters)] {
        slots.sorted { Self.inTimeOrder($0.key, $1.key) }.map { ($0.key, $0.value) }
    }

    private static func inTimeOrder(_ a: BusinessCalendar.Slot, _ b: BusinessCalendar.Slot) -> Bool {
        (a.start, a.day, a.offset) < (b.start, b.day, b.offset)
    }

    /// The slots of one business day, in time order.
    package func hours(of day: Int32) -> [(slot: BusinessCalendar.Slot, counters: Counters)] {
        slots.filter { $0.key.day == day }.sorted { Self.inTimeOrder($0.key, $1.key) }.map { ($0.key, $0.value) }
    }

    /// One business day's totals.
    package func total(of day: Int32) -> Counters {
        var sum = Counters(juices: menu.juices.count, fruits: menu.fruits.count)
        for (slot, counters) in slots where slot.day == day { sum.add(counters) }
        return sum
    }

    /// Totals for every day from `first` through `last` (inclusive), oldest first; days without
    /// a change are zero.
    package func totals(from first: Int32, through last: Int32) -> [(day: Int32, counters: Counters)] {
        guard first <= last else { return [] }
        var byDay: [Int32: Counters] = [:]
        for (slot, counters) in slots where slot.day >= first && slot.day <= last {
            byDay[slot.day, default: Counters(juices: menu.juices.count, fruits: menu.fruits.count)].add(counters)
        }
        return (first...last).map { ($0, byDay[$0] ?? Counters(juices: menu.juices.count, fruits: menu.fruits.count)) }
    }
}
