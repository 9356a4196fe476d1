import Foundation
import JuiceTestSupport
import Testing

/// The layers are the README's table ("How the code is laid out", between `<!-- layers -->`
/// marks): which target may import which. These tests hold the code and Package.swift to it, so
/// a change that crosses a layer fails here even where SwiftPM would let an undeclared import
/// through (a module built for another target can be found by accident).
@Suite(.onOwnThreads) struct ArchitectureTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Target name -> the targets it may import.
    static func drawing() throws -> [String: Set<String>] {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = readme.range(of: "<!-- layers -->"), let end = readme.range(of: "<!-- /layers -->") else {
            throw TestFailure("README.md has no <!-- layers --> table")
        }
        var table: [String: Set<String>] = [:]
        for line in readme[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let parts = line.split(separator: "->", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            let target = parts[0].trimmingCharacters(in: .whitespaces)
            table[target] = Set(parts[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
        return table
    }

    /// The layer targets: every folder of Sources/ but the C shim.
    static var targets: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path)) ?? []
        return names.filter { $0 != "CEpoll" && !$0.hasPrefix(".") }.sorted()
    }

    /// Where a target's files are: Sources/<name>, or Tests/<name> for the JSON-lines proof.
    static func directory(of target: String) -> URL {
        target == "JSONLinesProtocol" ? root.appendingPathComponent("Tests/" + target) : root.appendingPathComponent("Sources/" + target)
    }

    /// The package's own modules a target's files import (`import X`, `@testable import X`).
    static func imports(of target: String, known: Set<String>) -> [(file: String, module: String)] {
        let dir = directory(of: target)
        var found: [(String, String)] = []
        let files = FileManager.default.enumerator(atPath: dir.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = (try? String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let i = words.firstIndex(of: "import"), i + 1 < words.count, i == 0 || words[0] == "@testable" else { continue }
                let module = String(words[i + 1]).replacingOccurrences(of: "-", with: "_")
                if let name = known.first(where: { $0.replacingOccurrences(of: "-", with: "_") == module }) { found.append((file, name)) }
            }
        }
        return found
    }

    @Test func everyTargetIsInTheDrawing() throws {
        let table = try Self.drawing()
        #expect(!table.isEmpty)
        for target in Self.targets { #expect(table[target] != nil, "Sources/\(target) is not in README.md's layers table") }
    }

    @Test func noFileImportsATargetItsLayerMayNotUse() throws {
        let table = try Self.drawing()
        let known = Set(table.keys)
        for target in Self.targets + ["JSONLinesProtocol"] {
            let allowed = table[target] ?? []
            for (file, module) in Self.imports(of: target, known: known) where module != target {
                #expect(allowed.contains(module), "\(target)/\(file) imports \(module), which the README's table does not allow \(target)")
            }
        }
    }

    /// The third protocol builds against the seam alone: nothing `@testable`, nothing of the
    /// loop's internals (a session reaches its connection through `SessionLink`).
    @Test func theJSONLinesProtocolNeedsNoTestableImportAndNoLoopInternals() throws {
        let dir = Self.directory(of: "JSONLinesProtocol")
        let files = (try FileManager.default.contentsOfDirectory(atPath: dir.path)).filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("@testable import"), "\(file) uses @testable")
            for part in ["OutputPath", "FanOut", "FlushPasses", "CatchUpPump", "ConnectionHost", "DurabilityGate", ".outbox", "assumeIsolated"] {
                #expect(!text.contains(part), "\(file) reaches past the seam: \(part)")
            }
        }
    }

    /// Package.swift declares no dependency the table forbids (a declared one is importable).
    @Test func packageDependenciesFollowTheDrawing() throws {
        let table = try Self.drawing()
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declaration = try Regex(#"\.(?:executableTarget|target)\(name: "([^"]+)", dependencies: \[([^\]]*)\]"#)
        var seen = 0
        for match in manifest.matches(of: declaration) {
            guard let name = match.output[1].substring.map(String.init), let list = match.output[2].substring else { continue }
            guard let allowed = table[name] else { continue }
            seen += 1
            let names = list.matches(of: try Regex(#""([^"]+)""#)).compactMap { $0.output[1].substring.map(String.init) }
            for dependency in names where table[dependency] != nil {
                #expect(allowed.contains(dependency), "Package.swift: \(name) depends on \(dependency), which the README's table does not allow")
            }
        }
        #expect(seen >= 10, "found only \(seen) target declarations in Package.swift")
    }

    @Test func theLayersHaveNoCycle() throws {
        let table = try Self.drawing()
        var state: [String: Int] = [:]  // 1: on the path, 2: done
        func visit(_ node: String, _ path: [String]) {
            if state[node] == 2 { return }
            if state[node] == 1 { Issue.record("a cycle: \((path + [node]).joined(separator: " -> "))"); return }
            state[node] = 1
            for next in table[node] ?? [] { visit(next, path + [node]) }
            state[node] = 2
        }
        for node in table.keys.sorted() { visit(node, []) }
    }

    /// The client library's closure holds nothing server-only: not the ledger, the key memory,
    /// the journal's records or the metrics (each found where it is declared).
    @Test func theClientCompilesNothingServerOnly() throws {
        let table = try Self.drawing()
        var closure: Set<String> = []
        var queue = ["JuiceClient"]
        while let next = queue.popLast() {
            if closure.insert(next).inserted { queue.append(contentsOf: table[next] ?? []) }
        }
        for declaration in ["struct StockLedger", "struct KeyMemory", "enum JournalRecord", "actor FruitStore", "enum Metrics", "struct SalesHistory"] {
            let home = Self.targets.first { target in
                let dir = Self.root.appendingPathComponent("Sources/" + target)
                let files = FileManager.default.enumerator(atPath: dir.path)?.compactMap { $0 as? String } ?? []
                return files.contains { file in
                    file.hasSuffix(".swift") && ((try? String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)) ?? "").contains(declaration)
                }
            }
            #expect(home != nil, "no target declares \(declaration)")
            if let home { #expect(!closure.contains(home), "\(declaration) is in \(home), which JuiceClient's build compiles") }
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
