/// What a chaos run observed, kept as plain values so that the checker (`ChaosCheck`) is a pure
/// function of them and can be fed crafted bad observations in tests.

enum Protocol: String, Sendable { case tcp, http }

/// One `EVENT STOCK` the display applied (events the protocol says to ignore are not here).
struct DisplayEvent: Equatable, Sendable {
    var seq: Int
    var stock: [String: Int]
    /// It listed every fruit: a full state, sent when the history could not reach back (a
    /// resync), not one change.
    var fullState: Bool
}

/// A re-sent key at the end of the run and the answer it got then.
struct Resent: Equatable, Sendable {
    var key: String
    var via: Protocol
    var first: OrderAnswer
    var reply: OrderReply
}

/// The store's figures as `STATS`, `STOCK` and `REPORT` give them.
struct StoreFigures: Equatable, Sendable {
    var seq: Int
    var ordersServed: Int
    var ordersRefused: Int
    /// Juices sold, by juice name.
    var sold: [String: Int]
    /// Stock by fruit name.
    var stock: [String: Int]
    /// Idempotency keys the server remembers (`keys=`): fewer than the keys acknowledged means
    /// some were forgotten, and a retry of one would be applied again.
    var keys = 0
    /// From `REPORT` (the business day's): voids, juices voided by juice, and with prices the
    /// takings after voids and the amount voided (minor units; nil without prices).
    var voids = 0
    var voided: [String: Int] = [:]
    var takings: Int? = nil
    var voidedAmount: Int? = nil
}

/// Everything the checker judges.
struct Observations: Sendable {
    /// Recipes by juice name: fruit name and amount per juice.
    var recipes: [String: [(fruit: String, amount: Int)]]
    /// The store right before the tills started.
    var before: StoreFigures
    /// After every till had its answer, before anything was re-sent.
    var after: StoreFigures
    /// After the re-sends.
    var afterResend: StoreFigures
    var acknowledged: [AcknowledgedOrder] = []
    /// The tills' voids of their own sales that got an answer.
    var voids: [AcknowledgedVoid] = []
    /// Each juice's price (`MENU PRICES`, minor units); empty for a menu without prices.
    var prices: [String: Int] = [:]
    /// Keys that never got a definite answer by the end (a till gave up at the deadline).
    var unanswered: [String] = []
    /// Answers no keyed order should get (KEY_REUSED, malformed), with the key.
    var unexpected: [String] = []
    var display: [DisplayEvent] = []
    var resent: [Resent] = []
    /// The voids' keys re-sent at the end (over TCP, each as its till).
    var resentVoids: [ResentVoid] = []
    /// Refused orders other than the tills' were sent (a flood): `orders_refused` may grow by more.
    var otherRefusals: Bool = false
    /// Times the server ended without being killed (a crash, an exit), with its status.
    var unplannedExits: [String] = []
    /// The anonymous flood's answers by code: with a manager token, FORBIDDEN (or BUSY) only.
    var anonymousFloodAnswers: [String: Int] = [:]
}
