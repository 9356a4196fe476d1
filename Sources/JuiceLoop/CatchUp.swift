/// A catch-up in progress: the next seq to send, and the seq the plan promised.
package struct CatchUp: Sendable, Equatable {
    package var next: UInt64
    package var through: UInt64

    package init(next: UInt64, through: UInt64) { (self.next, self.through) = (next, through) }
}
