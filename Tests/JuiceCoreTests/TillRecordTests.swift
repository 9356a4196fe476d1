import JuiceCore
import JuiceTestSupport
import Testing
import JuiceDomain
import JuiceStorage

/// Record version 3 (PROTOCOL.md, "Storage"): every kind reads back as written, and what cannot
/// be right is refused, never taken.
@Suite("Record version 3", .onOwnThreads)
struct TillRecordTests {
    static let records: [JournalRecord] = [
        .order(lsn: 5, seq: 3, juice: "mango", count: 2, key: "k-1", left: [.init("mango", 4)], time: 1_700_000_000, by: .till(3), amount: nil),
        .order(lsn: 6, seq: 4, juice: "mango", count: 1, key: nil, left: [.init("mango", 3)], time: 1_700_000_001, by: .anonymous(group: "10.0.0.7"),
               amount: 4500),
        .refusal(lsn: 7, juice: "kiwi", count: 1, key: "k-2", had: [.init("kiwi", 0)], time: 1_700_000_002, counted: true, by: .manager, amount: 3000),
        .refusal(lsn: 8, juice: "kiwi", count: 1, key: "k-3", had: [.init("kiwi", 0)], time: 1_700_000_002, counted: false, by: .till(1), amount: nil),
        .restock(lsn: 9, seq: 5, fruit: "kiwi", amount: 5, total: 5, key: "r", time: 1_700_000_003, by: .manager),
        .set(lsn: 10, seq: 6, fruit: "kiwi", value: 2, key: nil, time: 1_700_000_004, by: .anonymous(group: "2001:db8::/64")),
        .tillPaired(lsn: 11, till: 3, hash: String(repeating: "ab", count: 32), name: "Front till 2", time: 1_700_000_005),
        .tillRenamed(lsn: 12, till: 3, name: "The back  till", time: 1_700_000_006),
        .tillRevoked(lsn: 13, till: 3, time: 1_700_000_007),
        .scopedKey(key: "k-1", by: .till(3), outcome: .applied(seq: 3, write: .order, name: "mango", number: 2, touched: [.init("mango", 4)]),
                   time: 1_700_000_000),
        .scopedKey(key: "k-9", by: .anonymous(group: "10.0.0.7"), outcome: .short(juice: "kiwi", count: 1, had: []), time: 1),
        .scopedKey(key: "r", by: .manager, outcome: .applied(seq: 5, write: .set, name: "kiwi", number: 0, touched: []), time: 2),
        .tillDay(day: 20_000, till: 3, sales: TillRegistry.Sales(orders: 12, juices: 30)),
        .tillDay(day: 20_001, till: 3, sales: TillRegistry.Sales(orders: 12, juices: 30, amount: 66_000, voids: 1, voidedAmount: 5_500)),
        .scopedKey(key: "k-2", by: .till(3), outcome: .applied(seq: 4, write: .order, name: "mango", number: 1, touched: [.init("mango", 3)],
                                                             amount: 5_000, voidedBy: 6), time: 1_700_000_000),
        .scopedKey(key: "k-3", by: .till(3), outcome: .applied(seq: 7, write: .order, name: "mango", number: 1, touched: [.init("mango", 3)],
                                                             amount: 5_000), time: 1_700_000_000),
        .scopedKey(key: "v-1", by: .manager, outcome: .voided(seq: 6, sale: 4, reason: .wrongJuice, juice: "mango", count: 1, amount: 5_000,
                                                             touched: [.init("mango", 4)]), time: 1_700_000_001),
        .void(lsn: 9, seq: 6, sale: 4, juice: "mango-kiwi", count: 2, reason: .customerLeft, key: "v-2", by: .till(3), amount: 11_000,
              returned: [.init("mango", 8), .init("kiwi", 9)], time: 1_700_000_002),
        .void(lsn: 10, seq: 7, sale: 5, juice: "mango", count: 1, reason: .other, key: nil, by: .unknown, amount: nil,
              returned: [.init("mango", 8)], time: 1_700_000_003),
        .sale(day: 20_001, seq: 4, juice: "mango", count: 1, by: .till(3), amount: 5_000, key: "k-2", voidedBy: 6, time: 1_700_000_000),
        .sale(day: 20_001, seq: 5, juice: "mango", count: 1, by: .anonymous(group: "10.0.0.7"), amount: nil, key: nil, voidedBy: nil,
              time: 1_700_000_000),
        .money(MoneyTotals(takings: 66_000, lostRevenue: 12_000, voids: 1, voidedAmount: 5_500)),
    ]

    @Test("each kind reads back as written", arguments: records)
    func roundTrip(_ record: JournalRecord) {
        let payload = record.payload
        #expect(payload.hasPrefix("3 "), "\(payload)")
        #expect(JournalRecord(payload: Substring(payload)) == record, "\(payload)")
        // The bytes the journal writes are the same text.
        var bytes: [UInt8] = []
        record.appendPayload(to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == payload)
    }

    @Test("what cannot be right is refused", arguments: [
        "3 O @1 5 3 mango 2 - till:0 - mango=4",      // till 0
        "3 O @1 5 3 mango 2 - till:3 -1 mango=4",     // negative amount
        "3 O @1 5 3 mango 2 - till:3 - ",             // no fruit
        "3 O 5 3 mango 2 - till:3 - mango=4",         // no time
        "3 P @1 2 3 abc Front",                        // not a hash
        "3 P @1 2 3 " + String(repeating: "a", count: 64) + "  Front",  // name starting with a space
        "3 N @1 2 3 ",                                 // empty name
        "3 X @1 2 0",                                  // till 0
        "3 K @1 till:3 k1 maybe mango 1",              // neither applied nor short
        "3 K @1 till:3 k/1 short mango 1",             // not a key
        "3 Q 2026-02-30 3 1 1",                        // not a date
        "3 Z @1 2",                                    // unknown kind
        "3",
    ])
    func refused(_ payload: String) {
        #expect(JournalRecord(payload: Substring(payload)) == nil, "\(payload)")
    }

    @Test("older versions still read")
    func olderVersions() {
        #expect(JournalRecord(payload: "O 1 1 mango 1 - mango=9") != nil)
        #expect(JournalRecord(payload: "O @1700000000 1 1 mango 1 key=a mango=9")?.writer == nil)
    }

    @Test("SHA-256 matches the standard's vectors")
    func sha256() {
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(Array(repeating: UInt8(ascii: "a"), count: 1_000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test("pairing codes read back however they are typed")
    func pairingCodes() {
        let code = PairingCode.make()
        #expect(code.count == 9 && code.dropFirst(4).first == "-")
        #expect(PairingCode.normalized(code.lowercased()) == code)
        #expect(PairingCode.normalized(code.replacingOccurrences(of: "-", with: " ")) == code)
        #expect(PairingCode.normalized("K7QF-M2X0") == nil, "0 is not in the alphabet")
        #expect(PairingCode.normalized("K7QF-M2X") == nil)
    }

    @Test("a code is single-use and expires; wrong ones never void it, nor does a full store")
    func codesAndCredentials() throws {
        var tills = TillRegistry()
        let expiring = try tills.newCode(name: "Front", now: 100).get()
        guard case .failure = tills.takeCode(expiring, now: 100 + TillRegistry.codeSeconds) else { Issue.record("an expired code paired"); return }
        let code = try tills.newCode(name: "Front", now: 800).get()
        #expect(try tills.takeCode(code.lowercased(), now: 801).get() == "Front")
        guard case .failure = tills.takeCode(code, now: 802) else { Issue.record("a code paired twice"); return }
        let waiting = try tills.newCode(name: nil, now: 900).get()
        for _ in 0..<1000 { _ = tills.takeCode("WRONG", now: 901) }
        #expect(try tills.takeCode(waiting, now: 902).get() == nil, "wrong codes void no real one (guessing is slowed per address)")

        let pairedFirst = tills.apply(.tillPaired(lsn: 1, till: 1, hash: SHA256.hex(Array("1-secret".utf8)), name: "A", time: 1))
        #expect(pairedFirst)
        #expect(tills.verify("1-secret") == .till(1))
        #expect(tills.verify("1-secreT") == .unknown)
        #expect(tills.verify("2-secret") == .unknown)
        #expect(tills.verify("secret") == .unknown)
        _ = tills.apply(.tillRevoked(lsn: 2, till: 1, time: 2))
        #expect(tills.verify("1-secret") == .revoked(1))
        let unknown = tills.apply(.tillRevoked(lsn: 3, till: 9, time: 3))
        #expect(!unknown, "a till never paired")
        #expect(tills.nextID == 2)
    }
}
