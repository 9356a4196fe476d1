/// The tills' verbs (PROTOCOL.md, "Tills"). Rare lines (once per connection, or the manager's),
/// so they are read as text: a till's name is the rest of its line, spaces and all.
extension CommandParser {
    package static func parseTillVerb(_ verb: Verb, line: String, argc: Int) -> ParsedLine {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        switch verb {
        case .till:
            guard argc == 1 else { return refused(.badArgument, "usage: TILL <credential>") }
            return .command(.till(credential: String(words[1])))
        case .pair:
            // A code may be typed with a space in the middle, as it is read out.
            guard argc == 1 || argc == 2 else { return refused(.badArgument, "usage: PAIR <code>, the code the manager made (TILLS NEW)") }
            return .command(.pair(code: words[1...].joined()))
        default:
            return parseTills(words, line: line)
        }
    }

    private static func parseTills(_ words: [Substring], line: String) -> ParsedLine {
        let usage = "usage: TILLS | TILLS NEW [name] | TILLS RENAME <till> <name> | TILLS REVOKE <till>"
        guard words.count >= 2 else { return .command(.tills(.list)) }
        let sub = words[1].uppercased()
        switch sub {
        case "NEW":
            guard words.count > 2 else { return .command(.tills(.newCode(name: nil))) }
            switch name(after: 2, in: words, line: line) {
            case .success(let name): return .command(.tills(.newCode(name: name)))
            case .failure(let error): return .refused(error, close: false)
            }
        case "RENAME", "REVOKE":
            guard words.count >= 3, let id = TillID(words[2]), id >= 1, words[2].first != "0" else {
                return refused(.badArgument, sub == "RENAME" ? "usage: TILLS RENAME <till> <name>, till a number from TILLS"
                                                             : "usage: TILLS REVOKE <till>, till a number from TILLS")
            }
            if sub == "REVOKE" {
                guard words.count == 3 else { return refused(.badArgument, "usage: TILLS REVOKE <till>") }
                return .command(.tills(.revoke(id)))
            }
            guard words.count > 3 else { return refused(.badArgument, "usage: TILLS RENAME <till> <name>") }
            switch name(after: 3, in: words, line: line) {
            case .success(let name): return .command(.tills(.rename(id, name: name)))
            case .failure(let error): return .refused(error, close: false)
            }
        default:
            return refused(.badArgument, usage)
        }
    }

    /// The rest of the line from word `index` on, as typed (inner spaces kept), checked as a
    /// till's name.
    private static func name(after index: Int, in words: [Substring], line: String) -> Result<String, ProtocolError> {
        let rest = String(line[words[index].startIndex...]).trimmingSpaces
        if let problem = TillName.problem(rest) { return .failure(ProtocolError(.badArgument, problem)) }
        return .success(rest)
    }

    private static func refused(_ code: ErrorCode, _ message: String) -> ParsedLine {
        .refused(ProtocolError(code, message), close: false)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    package var trimmingSpaces: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return String(s)
    }
}
