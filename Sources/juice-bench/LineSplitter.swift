import JuicePlatform

/// How splitting one read's bytes into lines ended.
enum LineSplit {
    /// Every complete line was handed over; an incomplete tail (if any) is kept for next time.
    case complete
    /// The line handler asked to stop (its connection closed).
    case stopped
    /// The incomplete tail grew past the limit: the peer is not speaking a line protocol.
    case overlong
}

/// Splits received bytes into lines, in place: both the line protocol and an event stream
/// (an HTTP head, then Server-Sent Events) are lines, so one splitter serves both, and the
/// tests can feed it reads cut anywhere.
enum LineSplitter {
    /// Calls `handle` with each complete line in `bytes` (without its LF or CR LF), joining
    /// a line that began in an earlier read (kept in `partial`); an incomplete tail goes to
    /// `partial`. `handle` returns false to stop.
    @inline(__always)
    static func split(_ bytes: UnsafeRawPointer, count: Int, carrying partial: inout ByteQueue, maxLineLength: Int,
                      _ handle: (UnsafeRawPointer, Int) -> Bool) -> LineSplit {
        var start = 0
        while start < count {
            guard let newline = memchr(bytes + start, Int32(ASCII.newline), count - start) else {
                partial.append(bytes + start, count: count - start)
                return partial.count > maxLineLength ? .overlong : .complete
            }
            let end = bytes.distance(to: UnsafeRawPointer(newline))
            let keepGoing: Bool
            if partial.isEmpty {
                keepGoing = handle(bytes + start, withoutCarriageReturn(bytes + start, end - start))
            } else {
                partial.append(bytes + start, count: end - start)
                keepGoing = handle(partial.readPointer, withoutCarriageReturn(partial.readPointer, partial.count))
                partial.removeAll()
            }
            if !keepGoing { return .stopped }
            start = end + 1
        }
        return .complete
    }

    @inline(__always)
    private static func withoutCarriageReturn(_ line: UnsafeRawPointer, _ length: Int) -> Int {
        length > 0 && line.load(fromByteOffset: length - 1, as: UInt8.self) == ASCII.carriageReturn ? length - 1 : length
    }
}
