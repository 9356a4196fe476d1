import JuiceCore

/// The checks a caller's text passes before it is put on a line. A line is split by the server
/// on spaces and ends at CR/LF, so a name holding `\r\n` would smuggle in commands of its own (a
/// SET on a manager's connection) and shift every later reply onto the wrong caller, since the
/// protocol answers in order. Each check is the server's own rule (JuiceCore), not a second copy,
/// so what passes here is exactly what the server would read as one token.
enum Arguments {
    /// A juice or fruit name (or alias): one token, as `NameRule` requires of every name.
    static func name(_ name: String, _ what: String) throws {
        if let problem = NameRule.wellFormedProblem(name) {
            throw JuiceError.badArgument("\(what): \(problem); nothing was sent")
        }
    }

    /// A whole number within the server's range for it (the server's own words when it is not).
    static func number(_ value: Int, in range: ClosedRange<Int>, _ what: String) throws {
        guard range.contains(value) else {
            throw JuiceError.badArgument("\(what) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
    }

    /// An order key (the caller's, or `keyPrefix-counter`): the server's `key=` rule.
    static func key(_ key: String) throws {
        var bytes = key
        guard bytes.withUTF8({ CommandParser.isValidKey(UnsafeRawBufferPointer($0)) }) else {
            throw JuiceError.badArgument("key must be 1 to \(Limits.maxKeyBytes) characters of A-Z a-z 0-9 . _ : -, not \(key.debugDescription); nothing was sent")
        }
    }

    /// The manager token: `AUTH <token>` takes one token (the server splits on space and tab and
    /// refuses a line with a control character), compared byte for byte.
    static func token(_ token: String) throws {
        let printable = !token.isEmpty && token.unicodeScalars.allSatisfy { scalar in
            let v = scalar.value
            return v > 0x20 && v != 0x7F && !(0x80...0x9F).contains(v)
        }
        guard printable else {
            throw JuiceError.badArgument("the manager token must be one word of printable text (no space, tab or control character); AUTH was not sent")
        }
    }
}
