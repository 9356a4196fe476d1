import JuiceClient
import JuicePlatform
import JuiceTill

/// Not a terminal: one order a line on stdin (`mango-kiwi 2`), one result a line on stdout, in
/// the same order. Each order is answered before the next is read, so a script can tell which
/// result is whose; a dropped connection or a server restart only makes the answer wait.
/// Exit status 1 if any line was an error, so a script that checks `$?` sees it.
struct PipedTill {
    let sales: Sales

    func run() -> Int32 {
        var failed = false
        while let line = readLine(strippingNewline: true) {
            if line.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { continue }
            let reply: String
            if let (juice, count) = TillLines.order(line) {
                let sales = sales
                switch waitFor({ () async throws -> (OrderResult, Currency?) in
                    let result = try await sales.order(juice, count: count)
                    guard case .made(_, _, .some) = result else { return (result, nil) }
                    return (result, await sales.currency())
                }) {
                case .success(let (result, currency)): reply = TillLines.result(result, juice: juice, count: count, currency: currency)
                case .failure(let error): reply = "error \(error)"
                }
            } else {
                reply = "error not an order: expected <juice> [count]"
            }
            if reply.hasPrefix("error ") { failed = true }
            guard Platform.writeAll(STDOUT_FILENO, reply + "\n") else { return 1 }
        }
        return failed ? 1 : 0
    }
}
