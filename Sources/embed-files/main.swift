// embed-files: the tool the EmbedFiles build plugin runs (Plugins/EmbedFiles). It writes one
// Swift file, `enum EmbeddedFiles`, holding a string literal per embedded file, so the server
// ships as one binary: no resource bundle, no files read at run time.
//
//     embed-files OUTPUT.swift PAGES-DIRECTORY [RAW-FILE...]
//
// PAGES-DIRECTORY: each file directly in it whose name ends in .html, .js or .webmanifest is a
// served document, embedded expanded by `Template` (its includes in, its header comment out; see
// Template.swift); each one ending in .png (the till's app icons) is embedded byte for byte, as
// bytes. The files in its folders are the pieces the documents include. RAW-FILE: embedded byte
// for byte (docs/openapi.json). A member is named after its file: board.html is `boardHTML`.
//
// Any mistake (a missing include, an unknown parameter, a byte a literal cannot hold) stops the
// build with `file:line: error: …`, which SwiftPM shows like a compiler's error.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: embed-files OUTPUT.swift PAGES-DIRECTORY [RAW-FILE...]\n".utf8))
    exit(2)
}
let output = URL(fileURLWithPath: arguments[0])
let pages = URL(fileURLWithPath: arguments[1], isDirectory: true)
let raws = arguments.dropFirst(2).map { URL(fileURLWithPath: $0) }

do {
    let template = Template(root: pages)
    var members: [(name: String, source: String, text: String)] = []
    // Sorted, so the generated file is the same on every machine.
    let names = try FileManager.default.contentsOfDirectory(atPath: pages.path).sorted()
    for document in names where [".html", ".js", ".webmanifest"].contains(where: document.hasSuffix) {
        members.append((EmbeddedName.of(document), "Pages/\(document), expanded", try template.document(document)))
    }
    var images: [(name: String, source: String, bytes: [UInt8])] = []
    for image in names where image.hasSuffix(".png") {
        guard let data = FileManager.default.contents(atPath: pages.appendingPathComponent(image).path) else {
            throw EmbedError(file: pages.appendingPathComponent(image).path, line: nil, "cannot read the file")
        }
        images.append((EmbeddedName.of(image), "Pages/\(image), byte for byte", [UInt8](data)))
    }
    for raw in raws {
        let text = try TextFile.read(raw)
        members.append((EmbeddedName.of(raw.lastPathComponent), "\(raw.lastPathComponent), byte for byte", text))
    }
    try SwiftSource.write(members, images: images, to: output)
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
