/// Every `ERR <CODE>` the server can send. PROTOCOL.md lists the same set, with examples.
package enum ErrorCode: String, Sendable, CaseIterable {
    case unknownCommand = "UNKNOWN_COMMAND"
    case unknownJuice = "UNKNOWN_JUICE"
    case unknownFruit = "UNKNOWN_FRUIT"
    case badArgument = "BAD_ARGUMENT"
    case outOfStock = "OUT_OF_STOCK"
    case overLimit = "OVER_LIMIT"
    case badRequest = "BAD_REQUEST"
    case lineTooLong = "LINE_TOO_LONG"
    case keyReused = "KEY_REUSED"
    case forbidden = "FORBIDDEN"
    case authFailed = "AUTH_FAILED"
    case busy = "BUSY"
    case readOnly = "READ_ONLY"
    /// The till was revoked by the manager: it must be paired again.
    case revoked = "REVOKED"
    /// HTTP only: a write while the server drains (503; the line protocol sends `EVENT BYE`).
    case shuttingDown = "SHUTTING_DOWN"
    /// VOID: no sale of today's business day has that seq.
    case noSuchSale = "NO_SUCH_SALE"
    /// VOID: the sale was voided already.
    case alreadyVoided = "ALREADY_VOIDED"
}

/// A refusal: the code for programs, the message for people. Refusals change nothing.
package struct ProtocolError: Error, Sendable, Equatable {
    package let code: ErrorCode
    package let message: String

    package init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `ERR <CODE> <message>` + CRLF (the form is `Wire`'s).
    package func append(to out: inout [UInt8]) {
        Wire.appendError(self, to: &out)
    }

    /// `ERR <CODE> <message>`, without CRLF.
    package var line: String { Wire.errorLine(self) }
}
