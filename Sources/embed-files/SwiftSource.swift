import Foundation

/// The generated file: `enum EmbeddedFiles` with one raw multi-line string literal per file.
///
/// A raw string literal rather than a `[UInt8]` array literal: swiftc compiles docs/openapi.json
/// (118 kB) as a raw string in 0.2 s and as an array literal in 12 s (measured). A raw literal
/// holds its text as it is, except for its closing delimiter and escapes, so the delimiter gets
/// as many `#` as it takes to appear nowhere in the text.
enum SwiftSource {
    static func write(_ members: [(name: String, source: String, text: String)],
                      images: [(name: String, source: String, bytes: [UInt8])] = [], to output: URL) throws {
        var swift = "// Generated at build time by embed-files (the EmbedFiles plugin): do not edit.\n\n"
        swift += "/// The files the server embeds: the pages of Sources/JuiceHTTP/Pages, expanded, and docs/openapi.json.\n"
        swift += "enum EmbeddedFiles {\n"
        var names = Set<String>()
        for member in members {
            guard names.insert(member.name).inserted else {
                throw EmbedError(file: member.source, line: nil, "two files embed as `\(member.name)`: rename one")
            }
            let hashes = String(repeating: "#", count: delimiterLength(member.text))
            swift += "    /// \(member.source).\n"
            swift += "    static let \(member.name) = \(hashes)\"\"\"\n\(member.text)\n\"\"\"\(hashes)\n"
        }
        // A binary file (an icon) as a hex string, made bytes once when first used: a string
        // literal compiles fast where an array literal of as many numbers compiles slowly.
        for image in images {
            guard names.insert(image.name).inserted else {
                throw EmbedError(file: image.source, line: nil, "two files embed as `\(image.name)`: rename one")
            }
            let digits = Array("0123456789abcdef")
            let hex = String(image.bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
            swift += "    /// \(image.source).\n"
            swift += "    static let \(image.name): [UInt8] = bytes(hex: \"\(hex)\")\n"
        }
        if !images.isEmpty {
            swift += """
                /// The bytes a string of hex digits spells, two digits a byte.
                private static func bytes(hex: String) -> [UInt8] {
                    func value(_ digit: UInt8) -> UInt8 { digit <= UInt8(ascii: "9") ? digit - UInt8(ascii: "0") : digit - UInt8(ascii: "a") + 10 }
                    let digits = Array(hex.utf8)
                    return stride(from: 0, to: digits.count, by: 2).map { value(digits[$0]) << 4 | value(digits[$0 + 1]) }
                }

            """
        }
        swift += "}\n"
        // Written only when it changed, so a comment-only edit of a page does not recompile the server.
        if (try? String(contentsOf: output, encoding: .utf8)) == swift { return }
        try swift.write(to: output, atomically: true, encoding: .utf8)
    }

    /// The fewest `#` for which neither the closing delimiter `"""#…` nor an escape `\#…`
    /// appears in the text.
    static func delimiterLength(_ text: String) -> Int {
        var count = 1
        while text.contains("\"\"\"" + String(repeating: "#", count: count))
                || text.contains("\\" + String(repeating: "#", count: count)) {
            count += 1
        }
        return count
    }
}

/// The member name for a file: its name in lowerCamelCase with its extension in capitals,
/// `board.html` → `boardHTML`, `till-sw.js` → `tillSwJS`.
enum EmbeddedName {
    static func of(_ fileName: String) -> String {
        let parts = fileName.split(separator: ".", omittingEmptySubsequences: true)
        let base = parts.count > 1 ? parts.dropLast().joined(separator: ".") : fileName
        let ext = parts.count > 1 ? String(parts.last!).uppercased() : ""
        let words = base.split { !($0.isLetter || $0.isNumber) }.map(String.init)
        var name = words.enumerated().map { $0.offset == 0 ? $0.element.lowercased() : $0.element.prefix(1).uppercased() + $0.element.dropFirst() }
            .joined() + ext
        if name.first?.isNumber ?? true { name = "file" + name }
        return name
    }
}

/// A build-stopping mistake, printed the way SwiftPM shows a compiler's (`file:line: error: …`).
struct EmbedError: Error, CustomStringConvertible {
    let file: String
    let line: Int?
    let message: String
    init(file: String, line: Int?, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }
    var description: String { "\(file):\(line.map(String.init) ?? "1"): error: \(message)" }
}

/// A text file's contents: UTF-8, and nothing a literal cannot hold as it is.
enum TextFile {
    static func read(_ url: URL) throws -> String {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw EmbedError(file: url.path, line: nil, "cannot read the file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw EmbedError(file: url.path, line: nil, "is not UTF-8")
        }
        try checkCharacters(text, source: url.path)
        return text
    }

    /// A Swift source file cannot hold a carriage return as itself in a multi-line literal (it
    /// becomes a line feed) nor most control characters: refused, with where.
    static func checkCharacters(_ text: String, source: String) throws {
        var line = 1
        for scalar in text.unicodeScalars {
            if scalar == "\n" { line += 1; continue }
            if scalar == "\t" { continue }
            if scalar.value < 0x20 || scalar.value == 0x7F {
                let what = scalar == "\r" ? "a carriage return (save the file with LF line ends)"
                    : "the control character U+\(String(scalar.value, radix: 16, uppercase: true))"
                throw EmbedError(file: source, line: line, "holds \(what), which a Swift literal cannot keep as it is")
            }
        }
    }
}
