import Foundation
import JuiceTestSupport

/// docs/openapi.json as the tests read it: its operations, and what each documents it answers.
/// A reader of just what the tests compare (paths, methods, security, statuses, content types),
/// following `$ref`s into `components`.
struct OpenAPIFile {
    /// The file in this checkout (the tests compare the served copy against it byte for byte).
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/openapi.json").path

    static let methods = ["get", "head", "post", "put", "delete", "patch", "options", "trace"]

    let bytes: [UInt8]
    private let root: [String: Any]

    init() throws {
        bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: OpenAPIFile.path)))
        guard let root = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw TestError("\(OpenAPIFile.path) is not a JSON object")
        }
        self.root = root
    }

    struct Operation: CustomStringConvertible {
        let path: String
        let method: String
        let object: [String: Any]
        var description: String { "\(method.uppercased()) \(path)" }
    }

    /// Every operation, by path and method.
    var operations: [Operation] {
        let paths = root["paths"] as? [String: Any] ?? [:]
        return paths.keys.sorted().flatMap { path -> [Operation] in
            let item = paths[path] as? [String: Any] ?? [:]
            return OpenAPIFile.methods.compactMap { method in
                (item[method] as? [String: Any]).map { Operation(path: path, method: method, object: $0) }
            }
        }
    }

    /// Path -> the methods documented for it.
    var methodsByPath: [String: Set<String>] {
        Dictionary(grouping: operations, by: \.path).mapValues { Set($0.map(\.method)) }
    }

    /// Whether the operation needs the manager token: its own `security`, else the document's.
    func needsToken(_ operation: Operation) -> Bool {
        let security = operation.object["security"] as? [[String: Any]] ?? root["security"] as? [[String: Any]] ?? []
        return !security.isEmpty && !security.contains { $0.isEmpty }
    }

    /// The content types documented for `status` (empty: documented without a body); nil when
    /// the status is not documented at all.
    func contentTypes(_ operation: Operation, status: Int) -> Set<String>? {
        guard let responses = operation.object["responses"] as? [String: Any],
              let response = resolve(responses[String(status)] ?? responses["default"]) else { return nil }
        return Set((response["content"] as? [String: Any] ?? [:]).keys)
    }

    /// The request body's `example` for `application/json`, as text.
    func exampleBody(_ operation: Operation) throws -> String? {
        guard let body = resolve(operation.object["requestBody"]),
              let json = (body["content"] as? [String: Any])?["application/json"] as? [String: Any],
              let example = json["example"] else { return nil }
        return String(decoding: try JSONSerialization.data(withJSONObject: example), as: UTF8.self)
    }

    /// The names of the query parameters documented for the operation (its own and its path's).
    func queryParameters(_ operation: Operation) -> Set<String> {
        let item = (root["paths"] as? [String: Any])?[operation.path] as? [String: Any] ?? [:]
        let all = (item["parameters"] as? [Any] ?? []) + (operation.object["parameters"] as? [Any] ?? [])
        return Set(all.compactMap { resolve($0) }.filter { $0["in"] as? String == "query" }.compactMap { $0["name"] as? String })
    }

    /// An object, or the one a local `$ref` names.
    private func resolve(_ value: Any?) -> [String: Any]? {
        guard let object = value as? [String: Any] else { return nil }
        guard let ref = object["$ref"] as? String else { return object }
        guard ref.hasPrefix("#/") else { return nil }
        var node: Any? = root
        for part in ref.dropFirst(2).split(separator: "/") { node = (node as? [String: Any])?[String(part)] }
        return resolve(node)
    }
}
