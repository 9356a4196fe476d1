/// What a request's query may hold (issue 34): each route takes the parameters it names
/// (`ReadRoute.parameters`; a write takes none), each at most once. Were an unknown one ignored,
/// a misspelt or renamed one would quietly give another answer (`hours.csv?day=` once gave
/// today's file for any day); were a repeated one taken, which copy counts would be a guess. So
/// either is `400` naming it, as a repeated header is (`HTTPHeadRules`). The names are compared
/// as sent (not percent-decoded), so an encoded name is unknown, never mistaken for another.
package enum QueryRules {
    /// Why the query cannot be taken for `path`, which takes `known`, or nil.
    package static func problem(_ query: String?, path: String, known: [String]) -> String? {
        var seen: Set<Substring> = []
        for pair in (query ?? "").split(separator: "&") {
            let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            guard known.contains(where: { $0 == name }) else {
                let takes = known.isEmpty ? "takes no query parameters" : "takes " + known.map { "?\($0)=" }.joined(separator: ", ")
                return "unknown query parameter \(Self.shown(name)): \(path) \(takes)"
            }
            if !seen.insert(name).inserted { return "repeated query parameter \(Self.shown(name)): send it once" }
        }
        return nil
    }

    /// A name as the answer shows it: quoted when empty, cut when long.
    private static func shown(_ name: Substring) -> String {
        if name.isEmpty { return "\"\" (a value with no name)" }
        return name.count > 40 ? String(name.prefix(40)) + "…" : String(name)
    }
}
