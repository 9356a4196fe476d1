import Foundation

/// How a served document is made from the files of the pages folder. A file goes in as it is,
/// except for:
///
/// - its header comment: a file may open with a comment that documents it (HTML and SVG
///   `<!-- … -->`, CSS `/* … */`, JavaScript lines of `//`). It and one empty line after it are
///   left out, so the notes for whoever edits a page cost its users nothing.
/// - its last line end: a file ends with one, and a piece joins its neighbours without it (so a
///   line that is only `{{include x}}` becomes x's lines, and `<script>{{include x}}</script>`
///   wraps x's text exactly).
/// - `{{include PATH}}` or `{{include PATH name="value" …}}`: the file at PATH (from the pages
///   folder), made the same way, where each `{{name}}` is that value. Parameters are put in
///   before anything else is expanded, so `{{svg {{icon}}}}` takes the icon's path from one.
///   Every parameter a file uses must be given, and every one given must be used.
/// - `{{scripts A.js B.js …}}`: a page's scripts, in order, each in a `<script>` element of its
///   own (a `<script>` line, the file made as an include makes it, a `</script>` line): each page
///   script is "use strict" and keeps its own scope, so each gets its own element. The paths may
///   go on over several lines.
/// - `{{svg PATH}}`: an SVG file for a `data:image/svg+xml,` URL in double quotes: its lines
///   joined without their indentation or line ends (one element a line reads well), and `%`,
///   `<`, `>`, `#`, `"` percent-encoded.
///
/// Any other `{{` is a mistake and stops the build, so nothing unexpanded is ever served. All of
/// this happens here, at build time: the server serves the result as bytes it already holds.
struct Template {
    let root: URL

    func document(_ name: String) throws -> String {
        try expand(name, parameters: [:], chain: [])
    }

    private func expand(_ path: String, parameters: [String: String], chain: [String]) throws -> String {
        let url = root.appendingPathComponent(path)
        guard !chain.contains(path) else {
            throw EmbedError(file: url.path, line: nil, "includes itself: \((chain + [path]).joined(separator: " → "))")
        }
        let (body, headerLines) = Header.strip(try TextFile.read(url), extension: url.pathExtension)
        var text = body
        if text.hasSuffix("\n") { text.removeLast() }
        let place = Where(file: url.path, firstLine: headerLines + 1)
        text = try substitute(parameters, in: text, at: place)
        return try directives(in: text, at: place, chain: chain + [path])
    }

    /// Where an error is: a file, and the line its text (after the header) starts on.
    private struct Where {
        let file: String
        let firstLine: Int
        func error(_ text: String, _ index: String.Index, _ message: String) -> EmbedError {
            EmbedError(file: file, line: firstLine + text[..<index].lazy.filter { $0 == "\n" }.count, message)
        }
    }

    /// Puts each `{{name}}` in.
    private func substitute(_ parameters: [String: String], in text: String, at place: Where) throws -> String {
        var out = "", used = Set<String>(), rest = text.startIndex
        var search = text.startIndex
        while let open = text.range(of: "{{", range: search..<text.endIndex) {
            search = open.upperBound
            let name = text[open.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
            guard !name.isEmpty, text[name.endIndex...].hasPrefix("}}") else { continue }
            if name == "include" || name == "svg" || name == "scripts" {
                throw place.error(text, open.lowerBound, "{{\(name)}} without a path: write {{\(name) PATH}}")
            }
            guard let value = parameters[String(name)] else {
                throw place.error(text, open.lowerBound, "{{\(name)}} is not given: include this file with \(name)=\"…\"")
            }
            used.insert(String(name))
            out += text[rest..<open.lowerBound] + value
            rest = text.index(name.endIndex, offsetBy: 2)
            search = rest
        }
        if let unused = parameters.keys.sorted().first(where: { !used.contains($0) }) {
            throw EmbedError(file: place.file, line: nil, "is included with \(unused)=\"…\", which it never uses as {{\(unused)}}")
        }
        return out + text[rest...]
    }

    /// Expands `{{include …}}`, `{{scripts …}}` and `{{svg …}}`; any other `{{` stops the build.
    private func directives(in text: String, at place: Where, chain: [String]) throws -> String {
        var out = "", rest = text.startIndex
        while let open = text.range(of: "{{", range: rest..<text.endIndex) {
            guard let close = text.range(of: "}}", range: open.upperBound..<text.endIndex) else {
                throw place.error(text, open.lowerBound, "{{ without }}")
            }
            out += text[rest..<open.lowerBound]
            let directive = Directive(text[open.upperBound..<close.lowerBound])
            switch directive.keyword {
            case "include":
                let path = try checkedPath(directive.path, text, open.lowerBound, place)
                let parameters: [String: String]
                do { parameters = try directive.parameters() } catch let problem as Problem {
                    throw place.error(text, open.lowerBound, problem.message)
                }
                out += try expand(path, parameters: parameters, chain: chain)
            case "scripts":
                out += try scripts(directive.words, text, open.lowerBound, place, chain: chain)
            case "svg":
                let path = try checkedPath(directive.path, text, open.lowerBound, place)
                guard directive.rest.allSatisfy(\.isWhitespace) else {
                    throw place.error(text, open.lowerBound, "{{svg PATH}} takes a path only")
                }
                out += try svg(path)
            default:
                throw place.error(text, open.lowerBound,
                                  "unknown {{\(directive.keyword)…}}: only {{include PATH …}}, {{scripts PATH.js …}}, {{svg PATH}} and an include's {{parameter}} are expanded")
            }
            rest = close.upperBound
        }
        return out + text[rest...]
    }

    /// `{{scripts …}}`: one `<script>` element a file, in the order given.
    private func scripts(_ paths: [Substring], _ text: String, _ at: String.Index, _ place: Where, chain: [String]) throws -> String {
        guard !paths.isEmpty else { throw place.error(text, at, "{{scripts}} without a path: write {{scripts PATH.js …}}") }
        return try paths.map { path in
            guard path.hasSuffix(".js") else { throw place.error(text, at, "{{scripts …}} takes .js files, not \(path)") }
            let script = try expand(try checkedPath(path, text, at, place), parameters: [:], chain: chain)
            return "<script>\n" + script + "\n</script>"
        }.joined(separator: "\n")
    }

    /// A path inside the pages folder: every file a page is made of is there, so the plugin's
    /// list of inputs (the folder's files) is complete and an edit of any of them rebuilds.
    private func checkedPath(_ path: Substring, _ text: String, _ at: String.Index, _ place: Where) throws -> String {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.split(separator: "/").contains("..") else {
            throw place.error(text, at, "the path \"\(path)\" must name a file inside the pages folder")
        }
        guard FileManager.default.fileExists(atPath: root.appendingPathComponent(String(path)).path) else {
            throw place.error(text, at, "no file \(path) in the pages folder")
        }
        return String(path)
    }

    private func svg(_ path: String) throws -> String {
        let url = root.appendingPathComponent(path)
        let (body, _) = Header.strip(try TextFile.read(url), extension: "svg")
        let joined = body.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined()
        var out = ""
        for character in joined {
            switch character {
            case "%": out += "%25"
            case "<": out += "%3C"
            case ">": out += "%3E"
            case "#": out += "%23"
            case "\"": out += "%22"
            default: out.append(character)
            }
        }
        return out
    }
}

/// The inside of one `{{…}}`: a keyword, a path, and `name="value"` pairs.
private struct Directive {
    let keyword: Substring
    let path: Substring
    let rest: Substring

    init(_ body: Substring) {
        let words = body.drop { $0.isWhitespace }
        keyword = words.prefix { !$0.isWhitespace }
        let afterKeyword = words[keyword.endIndex...].drop { $0.isWhitespace }
        path = afterKeyword.prefix { !$0.isWhitespace }
        rest = afterKeyword[path.endIndex...]
    }

    /// The path and every word after it (`{{scripts}}`'s files).
    var words: [Substring] {
        ([path] + rest.split(whereSeparator: \.isWhitespace)).filter { !$0.isEmpty }
    }

    /// `name="value"` pairs, separated by white space (line ends too); a value holds no `"` and
    /// no line end.
    func parameters() throws -> [String: String] {
        var result: [String: String] = [:]
        var text = rest.drop { $0.isWhitespace }
        while !text.isEmpty {
            let name = text.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
            let afterName = text[name.endIndex...]
            guard !name.isEmpty, afterName.hasPrefix("=\"") else {
                throw Problem(message: "expected name=\"value\" in the include, found \(text.prefix(30))…")
            }
            let valueStart = afterName.index(afterName.startIndex, offsetBy: 2)
            guard let end = afterName[valueStart...].firstIndex(of: "\"") else {
                throw Problem(message: "the value of \(name) has no closing \"")
            }
            let value = afterName[valueStart..<end]
            guard !value.contains("\n") else { throw Problem(message: "the value of \(name) spans lines: keep it on one") }
            guard result.updateValue(String(value), forKey: String(name)) == nil else {
                throw Problem(message: "\(name) is given twice")
            }
            text = afterName[afterName.index(after: end)...].drop { $0.isWhitespace }
        }
        return result
    }
}

/// What is wrong with a directive (the caller adds where).
private struct Problem: Error {
    let message: String
}

/// A file's opening comment, which documents it and is not embedded.
enum Header {
    /// The text without its header comment (and one empty line after it), and how many lines
    /// were left out.
    static func strip(_ text: String, extension ext: String) -> (String, Int) {
        var rest = Substring(text)
        switch ext {
        case "html", "svg": rest = block(rest, open: "<!--", close: "-->")
        case "css": rest = block(rest, open: "/*", close: "*/")
        case "js":
            while rest.hasPrefix("//") {
                guard let end = rest.firstIndex(of: "\n") else { rest = ""; break }
                rest = rest[rest.index(after: end)...]
            }
        default: break
        }
        if rest.startIndex != text.startIndex, rest.hasPrefix("\n") { rest = rest.dropFirst() }
        let lines = text[..<rest.startIndex].lazy.filter { $0 == "\n" }.count
        return (String(rest), lines)
    }

    /// The text after a leading comment and the end of the line it closes on.
    private static func block(_ text: Substring, open: String, close: String) -> Substring {
        guard text.hasPrefix(open), let end = text.range(of: close) else { return text }
        let after = text[end.upperBound...]
        guard let lineEnd = after.firstIndex(of: "\n") else { return "" }
        return after[after.index(after: lineEnd)...]
    }
}
