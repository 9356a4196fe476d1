/// Splits a client's byte stream into lines, the only place that knows about LF, CRLF, the line
/// limit and telnet negotiation. It holds at most one partial line (bounded by the limit), so a
/// client that never sends a newline cannot grow the server's memory.
///
/// Telnet: `IAC WILL/WONT/DO/DONT x` and `IAC SB ... IAC SE` are dropped, `IAC IAC` is a literal
/// 0xFF byte (which is never valid UTF-8, so the parser refuses that line), and `IAC IP`
/// (Ctrl-C in telnet) clears the partial line. 0xFF never occurs in UTF-8 text, so this never
/// alters a well-formed line from `nc`. `IAC DO TIMING-MARK`, which a telnet client sends after
/// Ctrl-C and then hides all output until it is answered, is reported through `onTimingMark`
/// so the server can answer it (`IAC WONT TIMING-MARK`, RFC 860).
package struct LineFramer: Sendable {
    package enum Outcome: Sendable, Equatable {
        case ok
        /// The current line passed `maxLineBytes`; the caller replies `ERR LINE_TOO_LONG` and closes.
        case lineTooLong
    }

    private enum TelnetState: Sendable {
        case data, iac, option, doOption, subnegotiation, subnegotiationIAC
    }

    /// The answer to `IAC DO TIMING-MARK`: "will not", which still marks the point in the stream.
    package static let timingMarkReply: [UInt8] = [0xFF, 0xFC, 0x06]

    /// The partial line carried over between reads; empty (and unallocated) for an idle client.
    private var partial: [UInt8] = []
    /// Kept small (the server holds a framer per client): lines are at most a few KiB.
    private let lineLimit: Int32
    private var telnet: TelnetState = .data
    private var failed = false

    package var maxLineBytes: Int { Int(lineLimit) }

    package init(maxLineBytes: Int = Limits.maxLineBytes) {
        precondition(maxLineBytes > 0 && maxLineBytes < Int(Int32.max) - 1, "a line limit is a few KiB")
        self.lineLimit = Int32(maxLineBytes)
    }

    /// Bytes of a line not yet ended, for tests and diagnostics.
    package var pendingBytes: Int { partial.count }

    /// Feeds received bytes; calls `onLine` for each complete line (without LF and trailing CR).
    /// Stops at the first over-long line and reports it; after that the framer accepts nothing.
    package mutating func feed(_ chunk: UnsafeRawBufferPointer, onLine: (UnsafeRawBufferPointer) -> Void,
                              onTimingMark: () -> Void = {}) -> Outcome {
        feed(chunk, until: { onLine($0); return true }, onTimingMark: onTimingMark).outcome
    }

    /// What a feed that may stop early did: its outcome, and how many bytes of the chunk it
    /// took. Bytes past `consumed` were not looked at; feed them again later, in order.
    package struct Progress: Sendable, Equatable {
        package var outcome: Outcome
        package var consumed: Int
    }

    /// Like `feed(_:onLine:)`, but `onLine` returns whether to go on: false stops right after
    /// that line, so the caller can run the rest of the chunk later (when a client's pending
    /// output has drained) instead of all the lines one read carried.
    package mutating func feed(_ chunk: UnsafeRawBufferPointer, until onLine: (UnsafeRawBufferPointer) -> Bool,
                              onTimingMark: () -> Void = {}) -> Progress {
        if failed { return Progress(outcome: .lineTooLong, consumed: chunk.count) }
        guard chunk.count > 0 else { return Progress(outcome: .ok, consumed: chunk.count) }
        if telnet != .data || firstIndex(of: 0xFF, in: chunk, from: 0) != nil {
            return feedTelnet(chunk, onLine: onLine, onTimingMark: onTimingMark)
        }
        var start = 0
        while start < chunk.count {
            guard let end = firstIndex(of: ASCII.lf, in: chunk, from: start) else {
                return Progress(outcome: keep(UnsafeRawBufferPointer(rebasing: chunk[start...])), consumed: chunk.count)
            }
            var goOn = true
            if partial.isEmpty {
                guard let more = emit(UnsafeRawBufferPointer(rebasing: chunk[start..<end]), onLine) else {
                    return Progress(outcome: .lineTooLong, consumed: chunk.count)
                }
                goOn = more
            } else {
                partial.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[start..<end]))
                if partial.count > maxLineBytes + 1 { return Progress(outcome: fail(), consumed: chunk.count) }
                let more = partial.withUnsafeBytes { emit($0, onLine) }
                partial.removeAll(keepingCapacity: false)
                guard let more else { return Progress(outcome: .lineTooLong, consumed: chunk.count) }
                goOn = more
            }
            start = end + 1
            if !goOn { return Progress(outcome: .ok, consumed: start) }
        }
        return Progress(outcome: .ok, consumed: chunk.count)
    }

    /// Emits one complete line, dropping a CR right before the LF. Returns nil if it is too
    /// long, else whether the caller wants more lines.
    private mutating func emit(_ raw: UnsafeRawBufferPointer, _ onLine: (UnsafeRawBufferPointer) -> Bool) -> Bool? {
        var line = raw
        if let last = line.last, last == ASCII.cr {
            line = UnsafeRawBufferPointer(rebasing: line.dropLast())
        }
        if line.count > maxLineBytes {
            failed = true
            return nil
        }
        return onLine(line)
    }

    /// Keeps the unfinished tail. One byte of slack: a line of exactly the limit may still be
    /// waiting for the LF of its CRLF.
    private mutating func keep(_ tail: UnsafeRawBufferPointer) -> Outcome {
        if partial.count + tail.count > maxLineBytes + 1 { return fail() }
        partial.append(contentsOf: tail)
        return .ok
    }

    private mutating func fail() -> Outcome {
        failed = true
        partial = []
        return .lineTooLong
    }

    /// The slow path, byte by byte, taken only when telnet bytes (0xFF) are in play.
    private mutating func feedTelnet(_ chunk: UnsafeRawBufferPointer, onLine: (UnsafeRawBufferPointer) -> Bool,
                                     onTimingMark: () -> Void) -> Progress {
        for (index, byte) in chunk.enumerated() {
            switch telnet {
            case .data:
                if byte == 0xFF {
                    telnet = .iac
                } else if byte == ASCII.lf {
                    let more = partial.withUnsafeBytes { emit($0, onLine) }
                    partial.removeAll(keepingCapacity: false)
                    guard let more else { return Progress(outcome: .lineTooLong, consumed: chunk.count) }
                    if !more { return Progress(outcome: .ok, consumed: index + 1) }
                } else {
                    if partial.count >= maxLineBytes + 1 { return Progress(outcome: fail(), consumed: chunk.count) }
                    partial.append(byte)
                }
            case .iac:
                switch byte {
                case 0xFF:  // IAC IAC: a literal 0xFF data byte
                    telnet = .data
                    if partial.count >= maxLineBytes + 1 { return Progress(outcome: fail(), consumed: chunk.count) }
                    partial.append(0xFF)
                case 0xFD:  // DO: one option byte follows
                    telnet = .doOption
                case 0xFB, 0xFC, 0xFE:  // WILL, WONT, DONT: one option byte follows
                    telnet = .option
                case 0xFA:  // SB: skip until IAC SE
                    telnet = .subnegotiation
                case 0xF4:  // IP, "interrupt process": the user pressed Ctrl-C
                    partial.removeAll(keepingCapacity: false)
                    telnet = .data
                default:  // NOP, AYT, GA, SE out of place ...: a two-byte command, dropped
                    telnet = .data
                }
            case .option:
                telnet = .data
            case .doOption:
                telnet = .data
                if byte == 0x06 { onTimingMark() }
            case .subnegotiation:
                if byte == 0xFF { telnet = .subnegotiationIAC }
            case .subnegotiationIAC:
                telnet = byte == 0xF0 ? .data : .subnegotiation
            }
        }
        return Progress(outcome: .ok, consumed: chunk.count)
    }
}
