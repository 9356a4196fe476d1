import Foundation
import Testing
import JuiceTestSupport

/// embed-files, the tool the EmbedFiles plugin runs to put the pages into the server
/// (Sources/embed-files/Template.swift has the rules), run on made-up pages folders. That the
/// real pages come out as they should is the page tests' business (served byte for byte, in a
/// browser); here, each rule and each mistake it must stop the build for.
@Suite(.onOwnThreads) struct EmbedFilesTests {
    /// Runs the tool on a folder made of `files` (path → text), embedding `raw` too: its exit
    /// status and output, and the Swift it wrote (nil when none).
    func embed(_ files: [String: String], raw: [String: String] = [:]) throws -> (status: Int32, output: String, swift: String?) {
        let directory = temporaryDirectory("juice-embed-files")
        defer { removeTemporary(directory) }
        let pages = directory + "/Pages"
        for (path, text) in files.merging(raw.mapKeys { "../" + $0 }, uniquingKeysWith: { $1 }) {
            let url = URL(fileURLWithPath: pages + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let output = directory + "/EmbeddedFiles.swift"
        let run = try Executables.run(Executables.path("embed-files"), [output, pages] + raw.keys.sorted().map { directory + "/" + $0 })
        return (run.status, run.output, try? String(contentsOfFile: output, encoding: .utf8))
    }

    @Test func aPageIsItsFilesWithIncludesParametersAndIconsPutIn() throws {
        let made = try embed([
            "page.html": """
                <!--
                For whoever edits the page: not served.
                -->

                {{include parts/head.html title="Juice" icon="icons/dot.svg"}}
                <p>menu</p><script>
                {{include parts/a.js}}
                </script>

                """,
            "parts/head.html": "<title>{{title}}</title><link rel=\"icon\" href=\"data:image/svg+xml,{{svg {{icon}}}}\">\n",
            "icons/dot.svg": "<!-- a red dot -->\n<svg xmlns='http://www.w3.org/2000/svg'>\n  <circle r='4' fill='#f00'/>\n</svg>\n",
            // """# in the text: the literal's delimiter needs a second #.
            "parts/a.js": "// What a.js does: not served.\n// Second line.\n\n\"use strict\";\nconst q = '\"\"\"#';\n",
            "parts/unused.js": "\"use strict\";\n",
        ], raw: ["doc.json": "{\"a\": 1}\n"])
        #expect(made.status == 0, "\(made.output)")
        let swift = try #require(made.swift)
        let page = """
            <title>Juice</title><link rel="icon" href="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'%3E%3Ccircle r='4' fill='%23f00'/%3E%3C/svg%3E">
            <p>menu</p><script>
            "use strict";
            const q = '\"\"\"#';
            </script>
            """
        #expect(swift.contains("    static let pageHTML = ##\"\"\"\n" + page + "\n\"\"\"##\n"), "\(swift)")
        // A raw file byte for byte, its last line end included; the pieces in folders are no members.
        #expect(swift.contains("    static let docJSON = #\"\"\"\n{\"a\": 1}\n\n\"\"\"#\n"), "\(swift)")
        #expect(!swift.contains("aJS") && !swift.contains("unusedJS") && swift.contains("enum EmbeddedFiles {"))
    }

    /// `{{scripts …}}`: each file in a `<script>` element of its own, in the order given, made as
    /// an include makes it (its header comment left out); the list may go on over lines.
    @Test func scriptsPutsEachFileInAScriptElementOfItsOwn() throws {
        let made = try embed([
            "page.html": "<p>menu</p>\n{{scripts parts/a.js\n          parts/b.js}}\n</body>\n",
            "parts/a.js": "// What a.js does: not served.\n\n\"use strict\";\nconst a = 1;\n",
            "parts/b.js": "\"use strict\";\nconst b = 2;\n",
        ])
        #expect(made.status == 0, "\(made.output)")
        let page = "<p>menu</p>\n<script>\n\"use strict\";\nconst a = 1;\n</script>\n<script>\n\"use strict\";\nconst b = 2;\n</script>\n</body>"
        #expect(try #require(made.swift).contains("    static let pageHTML = #\"\"\"\n" + page + "\n\"\"\"#\n"), "\(made.swift ?? "")")
    }

    /// Each mistake stops the build with `file:line: error: …` and writes nothing. (Helpers sit
    /// in parts/: a file directly in the folder is a page of its own.)
    @Test(arguments: [
        (["page.html": "<p>\n{{include nowhere.html}}\n"], "page.html:2: error: no file nowhere.html"),
        (["page.html": "{{includ x.html}}\n"], "page.html:1: error: unknown {{includ…}}"),
        (["page.html": "{{include parts/p.html}}\n", "parts/p.html": "{{name}}\n"], "parts/p.html:1: error: {{name}} is not given"),
        (["page.html": "{{include parts/p.html name=\"x\" other=\"y\"}}\n", "parts/p.html": "{{name}}\n"],
         "parts/p.html:1: error: is included with other="),
        (["page.html": "{{include ../secret.html}}\n"], "must name a file inside the pages folder"),
        (["page.html": "{{include parts/p.html}}\n", "parts/p.html": "{{include page.html}}\n"],
         "includes itself: page.html → parts/p.html → page.html"),
        (["page.html": "{{svg}}\n"], "{{svg}} without a path"),
        (["page.html": "{{scripts}}\n"], "{{scripts}} without a path"),
        (["page.html": "<p>\n{{scripts parts/a.js parts/b.css}}\n", "parts/a.js": "a;\n", "parts/b.css": "p {}\n"],
         "page.html:2: error: {{scripts …}} takes .js files, not parts/b.css"),
        (["page.html": "{{scripts parts/a.js nowhere.js}}\n", "parts/a.js": "a;\n"], "page.html:1: error: no file nowhere.js"),
        (["page.html": "<p>\r\n"], "page.html:1: error: holds a carriage return"),
        (["page.js": "const a = {{ b: 1 }};\n"], "page.js:1: error: unknown {{b:…}}"),
    ])
    func aMistakeStopsTheBuildSayingWhere(_ files: [String: String], _ message: String) throws {
        let made = try embed(files)
        #expect(made.status != 0 && made.swift == nil, "no error for \(files)")
        #expect(made.output.contains(message), "expected \(message):\n\(made.output)")
    }
}

private extension Dictionary {
    func mapKeys<T: Hashable>(_ transform: (Key) -> T) -> [T: Value] {
        Dictionary<T, Value>(uniqueKeysWithValues: map { (transform($0.key), $0.value) })
    }
}
