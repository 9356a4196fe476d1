import Foundation
import Testing
import JuiceTestSupport

/// `GET /openapi.json` (issue 27) on the built executable: docs/openapi.json served as it is,
/// public like the board, and a valid OpenAPI document by the ecosystem's own validator.
@Suite(.onOwnThreads) struct OpenAPIDocumentTests {
    static let token = "openapi-test-token"

    /// The server embeds the document at build time (the EmbedFiles plugin, from this very file):
    /// the served copy is the file, byte for byte, with no step to forget after an edit.
    @Test func theDocumentIsServedByteForByteWithoutAToken() throws {
        let file = try OpenAPIFile()
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": Self.token])
        let reply = try HTTPClient.get(port: server.httpPort, "/openapi.json")
        #expect(reply.status == 200, "public, like the board: no token")
        #expect(reply.header("Content-Type") == "application/json; charset=utf-8")
        // A Bool, so that a failure prints the message rather than 80 kB of bytes.
        let same = reply.body == file.bytes
        #expect(same, "GET /openapi.json differs from docs/openapi.json (\(reply.body.count) vs \(file.bytes.count) bytes)")
        let head = try HTTPClient.request("HEAD", port: server.httpPort, "/openapi.json")
        #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == String(file.bytes.count))
    }

    @Test(.requires(.shellcheck)) func theRunScriptPassesShellcheck() throws {
        try OutsideTool.shellcheck.require()
        let root = URL(fileURLWithPath: OpenAPIFile.path).deletingLastPathComponent().deletingLastPathComponent()
        let script = root.appendingPathComponent("Tests/openapi/run").path
        let result = try Executables.run(try #require(OutsideTool.onPath("shellcheck")), [script])
        #expect(result.status == 0, "\(script):\n\(result.output)")
    }

    /// The served copy passes openapi-spec-validator; a copy with a dangling `$ref` does not (so
    /// this check can fail).
    @Test(.requires(.openapiSpecValidator)) func openapiSpecValidatorAcceptsTheServedDocument() throws {
        try OutsideTool.openapiSpecValidator.require()
        let server = try ExecutableServer(["--in-memory"])
        let served = try HTTPClient.get(port: server.httpPort, "/openapi.json")
        let directory = temporaryDirectory("juice-openapi")
        defer { removeTemporary(directory) }
        let good = directory + "/openapi.json", broken = directory + "/broken.json"
        try Data(served.body).write(to: URL(fileURLWithPath: good))
        let dangling = served.text.replacingOccurrences(of: "\"#/components/schemas/State\"", with: "\"#/components/schemas/Nowhere\"")
        #expect(dangling.count == served.text.count + 2, "no $ref to State to break")
        try Data(dangling.utf8).write(to: URL(fileURLWithPath: broken))

        let python3 = try #require(OutsideTool.onPath("python3"))
        let accepted = try Executables.run(python3, ["-m", "openapi_spec_validator", good])
        #expect(accepted.status == 0, "openapi-spec-validator refused GET /openapi.json:\n\(accepted.output)")
        let refused = try Executables.run(python3, ["-m", "openapi_spec_validator", broken])
        #expect(refused.status != 0, "a dangling $ref passed:\n\(refused.output)")
    }
}
