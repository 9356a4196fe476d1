import Foundation
import PackagePlugin

/// Embeds the pages and the OpenAPI document into JuiceHTTP at build time: one build command
/// that runs our `embed-files` tool, which writes `EmbeddedFiles.swift` (a string literal per
/// served file) into the plugin's work directory, compiled with the target's own sources.
///
/// The server ships as one binary, so nothing is read at run time: no resource bundle, no
/// Foundation `Bundle`. The inputs are every file under `Sources/JuiceHTTP/Pages` (excluded
/// from the target's sources in Package.swift) and `docs/openapi.json`: an edit of any of them
/// runs the tool again and recompiles the server, and nothing else does. The tool only reads
/// files inside the pages folder, so that list is complete.
@main
struct EmbedFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        // The target's folder by SwiftPM's convention (tools version 6.0 has no URL for it but
        // `directoryURL`, which needs 6.1, and a deprecated `Path`).
        let pages = context.package.directoryURL.appending(path: "Sources/\(target.name)/Pages")
        let openAPI = context.package.directoryURL.appending(path: "docs/openapi.json")
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedFiles.swift")
        return [
            .buildCommand(
                // No "/" in it: SwiftPM shortens a description with one as if it were a path.
                displayName: "Embedding the pages and the OpenAPI document into \(target.name)",
                executable: try context.tool(named: "embed-files").url,
                arguments: [output.path, pages.path, openAPI.path],
                inputFiles: try files(under: pages) + [openAPI],
                outputFiles: [output])
        ]
    }

    /// Every regular file under `folder`, sorted (the build's inputs). Hidden ones are left out:
    /// an editor's swap file is no page, and should not rebuild the server.
    private func files(under folder: URL) throws -> [URL] {
        let keys: [URLResourceKey] = [.isRegularFileKey]
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: keys, options: [.skipsHiddenFiles]) else {
            throw EmbedFilesError("cannot list \(folder.path)")
        }
        var found: [URL] = []
        for case let url as URL in walk where try url.resourceValues(forKeys: Set(keys)).isRegularFile == true {
            found.append(url)
        }
        return found.sorted { $0.path < $1.path }
    }
}

struct EmbedFilesError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
