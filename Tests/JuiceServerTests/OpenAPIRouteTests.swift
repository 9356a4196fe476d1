import Foundation
import Testing
import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP
@testable import JuiceServer
import JuiceTestSupport

/// The server's routes and docs/openapi.json agree route by route, both ways (issue 27): the
/// route tables in code (`HTTPRoutes.readPaths`, `HTTPWrites.paths`) are exactly the document's
/// paths and methods, and every documented operation, sent to the built executable, is answered
/// with a status and content type the document gives it, and needs the token where it says so.
@Suite(.onOwnThreads) struct OpenAPIRouteTests {
    static let token = "openapi-route-token"

    /// No route the document lacks, and no documented route the server does not have.
    @Test func theRouteTablesAreTheDocumentsPaths() throws {
        var served: [String: Set<String>] = [:]
        for path in HTTPRoutes.readPaths { served[path] = ["get", "head"] }
        for path in HTTPWrites.paths { served[path] = ["post"] }
        for path in TillRoutes.posts { served[path] = ["post"] }
        let documented = try OpenAPIFile().methodsByPath
        for path in Set(served.keys).union(documented.keys).sorted() {
            #expect(served[path] == documented[path],
                    "\(path): the server answers \(served[path]?.sorted() ?? []), the document has \(documented[path]?.sorted() ?? [])")
        }
    }

    /// Each route's query parameters are the document's (issue 34): the server refuses any other
    /// with 400, so one it takes but the document lacks would never be sent by a client that
    /// reads the contract, and one documented but not taken would be refused. A write takes none.
    @Test func theQueryParametersAreTheDocumentsParameters() throws {
        let file = try OpenAPIFile()
        for operation in file.operations {
            let taken = ReadRoute(rawValue: operation.path).map { Set($0.parameters) } ?? []
            #expect(file.queryParameters(operation) == taken,
                    "\(operation): the server takes \(taken.sorted()), the document has \(file.queryParameters(operation).sorted())")
        }
    }

    /// Every documented operation answers on a fresh server: with the token, 200 with its
    /// documented content type (a write sends its documented example); without it, 401 exactly
    /// where the document asks for the token.
    @Test func everyDocumentedOperationAnswersAsDocumented() throws {
        let file = try OpenAPIFile()
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": Self.token])
        let port = server.httpPort
        #expect(file.operations.count >= 30, "read \(file.operations.count) operations")
        for operation in file.operations {
            let withToken = try send(operation, file: file, port: port, headers: ["Authorization: Bearer \(Self.token)"])
            #expect(withToken.status == 200, "\(operation) with the token: \(withToken.status)")
            try expectDocumented(withToken, operation, file)

            let without = try send(operation, file: file, port: port, headers: [])
            #expect((without.status == 401) == file.needsToken(operation),
                    "\(operation) without a token: \(without.status), yet the document says it \(file.needsToken(operation) ? "needs" : "needs no") token")
            try expectDocumented(without, operation, file)
        }
        // And the check can tell: a path outside the document is 404.
        #expect(try HTTPClient.get(port: port, "/openapi.yaml").status == 404)
    }

    /// A method the document does not list for a path is 405, and `Allow` names exactly the
    /// methods it does list (upper-cased; `/till` and `/stock` were once 404 here: they were
    /// missing from the read table).
    @Test func anotherMethodIs405WithTheDocumentedAllow() throws {
        let file = try OpenAPIFile()
        let server = try ExecutableServer(["--in-memory"])
        for (path, methods) in file.methodsByPath.sorted(by: { $0.key < $1.key }) {
            let other = methods.contains("post") ? "GET" : "DELETE"
            let reply = try HTTPClient.request(other, port: server.httpPort, path)
            #expect(reply.status == 405, "\(other) \(path): \(reply.status)")
            let allowed = Set((reply.header("Allow") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
            #expect(allowed == methods, "\(path): Allow \(reply.header("Allow") ?? "none"), documented \(methods.sorted())")
        }
    }

    /// `GET /events` is one long response: its head is read, then the connection is dropped.
    @Test func theEventStreamIsTheDocumentedMediaType() throws {
        let file = try OpenAPIFile()
        let events = try #require(file.operations.first { $0.path == "/events" && $0.method == "get" })
        let server = try ExecutableServer(["--in-memory"])
        let stream = try EventStreamClient(port: server.httpPort)
        defer { stream.connection.close() }
        #expect(stream.status == 200)
        #expect(file.contentTypes(events, status: 200) == [try #require(stream.header("Content-Type"))])
        #expect(try stream.event().data != nil, "the first message, the full state")
    }

    private struct Reply {
        let status: Int
        let contentType: String?
        let hasBody: Bool
    }

    private func send(_ operation: OpenAPIFile.Operation, file: OpenAPIFile, port: Int, headers: [String]) throws -> Reply {
        let reply: HTTPReply
        switch operation.method {
        case "post":
            var body = try #require(try file.exampleBody(operation), "\(operation) documents no JSON example")
            // The tills' examples name a code and a till that exist nowhere: a fresh one each.
            switch operation.path {
            case "/tills/pair": body = "{\"code\":\"\(try Self.pairingCode(port: port))\"}"
            case "/tills/rename": body = "{\"till\":\(try Self.pairedTill(port: port)),\"name\":\"Back till\"}"
            case "/tills/revoke": body = "{\"till\":\(try Self.pairedTill(port: port))}"
            default: break
            }
            reply = try HTTPClient.post(port: port, operation.path, json: body, headers: headers)
        case "get" where operation.path == "/events":
            // A stream never ends: its head says enough (HEAD /events gets the same head).
            reply = try HTTPClient.request("HEAD", port: port, operation.path, headers: headers)
            return Reply(status: reply.status, contentType: reply.header("Content-Type"), hasBody: true)
        default:
            reply = try HTTPClient.request(operation.method.uppercased(), port: port, operation.path, headers: headers)
        }
        return Reply(status: reply.status, contentType: reply.header("Content-Type"), hasBody: !reply.body.isEmpty)
    }

    /// A pairing code the manager made.
    private static func pairingCode(port: Int) throws -> String {
        let made = try HTTPClient.post(port: port, "/tills/codes", json: "{}", headers: ["Authorization: Bearer \(token)"])
        return try #require(try made.json()["code"] as? String)
    }

    /// A till paired just now: its number.
    private static func pairedTill(port: Int) throws -> Int {
        let paired = try HTTPClient.post(port: port, "/tills/pair", json: "{\"code\":\"\(try pairingCode(port: port))\"}")
        return try #require((try paired.json()["till"] as? [String: Any])?["till"] as? Int)
    }

    /// The status is documented for the operation, and so is the body's content type (a HEAD's
    /// answer: documented without a body, its type the GET's).
    private func expectDocumented(_ reply: Reply, _ operation: OpenAPIFile.Operation, _ file: OpenAPIFile) throws {
        guard let types = file.contentTypes(operation, status: reply.status) else {
            Issue.record("\(operation) answered \(reply.status), which the document does not list")
            return
        }
        guard operation.method == "head" else {
            #expect(reply.contentType.map(types.contains) == true, "\(operation) \(reply.status): \(reply.contentType ?? "no type") not in \(types.sorted())")
            return
        }
        #expect(types.isEmpty && !reply.hasBody, "\(operation) \(reply.status): a HEAD answer has no body")
        let get = try #require(file.operations.first { $0.path == operation.path && $0.method == "get" })
        let getTypes = try #require(file.contentTypes(get, status: reply.status))
        #expect(reply.contentType.map(getTypes.contains) == true, "\(operation): \(reply.contentType ?? "no type") not GET's \(getTypes.sorted())")
    }
}
