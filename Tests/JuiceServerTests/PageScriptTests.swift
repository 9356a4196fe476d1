import Foundation
import Testing
import JuiceTestSupport

/// The pages' scripts (issue 32): each is a .js file under Sources/JuiceHTTP/Pages (README,
/// "Pages are files"), and `node --check` parses every one, so a syntax error in a page's script
/// fails here and in CI (which requires node) rather than as a dead page in a shop. `.ci/run` runs
/// the same check on its own too.
@Suite(.onOwnThreads) struct PageScriptTests {
    static let pages = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/JuiceHTTP/Pages")

    /// The files under Pages/ whose names end in `.ext`, as paths from there, sorted.
    static func files(_ ext: String) -> [String] {
        let walk = FileManager.default.enumerator(atPath: pages.path)
        return ((walk?.allObjects as? [String]) ?? []).filter { $0.hasSuffix("." + ext) }.sorted()
    }

    /// No script is written into an .html file: a page names its scripts with `{{scripts …}}`
    /// (embed-files takes .js files only there), and each `<script>` element it writes itself
    /// holds only includes of .js files, so `node --check` below sees every line of script a page
    /// runs. Every page's scripts start with shared/base.js, which the others build on.
    @Test func everyScriptOfAPageIsAJavaScriptFile() throws {
        let pages = Self.files("html")
        #expect(pages.count >= 7, "the pages' HTML is not where this test looks: \(Self.pages.path)")
        for page in pages {
            let text = try String(contentsOf: Self.pages.appendingPathComponent(page), encoding: .utf8)
            if !page.contains("/") {
                #expect(text.contains("{{scripts shared/base.js "), "\(page): its scripts do not start with shared/base.js")
            }
            #expect(!text.contains("<script "), "\(page): a <script> with attributes; include a .js file in a plain one")
            var rest = text[...]
            while let open = rest.range(of: "<script>") {
                guard let close = rest.range(of: "</script>", range: open.upperBound..<rest.endIndex) else {
                    Issue.record("\(page): a <script> is never closed")
                    break
                }
                let lines = rest[open.upperBound..<close.lowerBound].split(separator: "\n")
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("{{include ") && $0.hasSuffix(".js}}") },
                        "\(page): a script written inline (\(lines.first ?? "empty")): put it in a .js file and include it")
                rest = rest[close.upperBound...]
            }
        }
    }

    @Test(.requires(.node)) func nodeParsesEveryPageScript() throws {
        try OutsideTool.node.require()
        let node = try #require(OutsideTool.onPath("node"))
        let scripts = Self.files("js")
        #expect(scripts.count >= 15, "the pages' scripts are not where this test looks: \(Self.pages.path)")
        for script in scripts {
            let result = try Executables.run(node, ["--check", Self.pages.appendingPathComponent(script).path])
            #expect(result.status == 0, "node --check \(script):\n\(result.output)")
        }
    }

    /// The check can fail: the till's script with one stray closing brace (an edit's usual slip)
    /// is refused, while the same file copied as it is passes from the same place.
    @Test(.requires(.node)) func nodeRefusesAScriptWithASyntaxError() throws {
        try OutsideTool.node.require()
        let node = try #require(OutsideTool.onPath("node"))
        let directory = temporaryDirectory("juice-page-script")
        defer { removeTemporary(directory) }
        let script = try String(contentsOf: Self.pages.appendingPathComponent("till/till.js"), encoding: .utf8)
        let good = directory + "/till.js", broken = directory + "/broken.js"
        try Data(script.utf8).write(to: URL(fileURLWithPath: good))
        try Data((script + "}\n").utf8).write(to: URL(fileURLWithPath: broken))

        let accepted = try Executables.run(node, ["--check", good])
        #expect(accepted.status == 0, "the copy as it is was refused:\n\(accepted.output)")
        let refused = try Executables.run(node, ["--check", broken])
        #expect(refused.status != 0, "a stray } passed node --check")
        #expect(refused.output.contains("SyntaxError"), "\(refused.output)")
    }
}
