import Testing
import JuicePlatform
import JuiceTestSupport

/// The one command-line dialect every juice program reads (see CommandLineScanner): the
/// programs' own suites check their flags; this one checks the shapes a flag may take.
@Suite(.onOwnThreads) struct CommandLineScannerTests {
    /// Every item of `arguments`, each flag followed by its value when `takesValue` says so.
    static func scan(_ arguments: [String], takesValue: Set<String> = ["--port", "--host"]) throws(CommandLineError) -> [String] {
        var scanner = CommandLineScanner(arguments)
        var seen: [String] = []
        while let item = try scanner.next() {
            switch item {
            case .positional(let argument): seen.append("positional \(argument)")
            case .flag(let flag): seen.append(takesValue.contains(flag) ? "\(flag) \(try scanner.value())" : flag)
            }
        }
        return seen
    }

    @Test func aValueFollowsTheFlagOrItsEqualsSign() throws {
        #expect(try Self.scan(["--port", "80", "--host=::1", "--json", "stray", "-"])
                == ["--port 80", "--host ::1", "--json", "positional stray", "positional -"])
        // The next argument is the value whatever it looks like: a bad port, not a missing one.
        #expect(try Self.scan(["--port", "-1"]) == ["--port -1"])
        #expect(try Self.scan(["--host="]) == ["--host "])
        #expect(try Self.scan(["--host=a=b"]) == ["--host a=b"])
    }

    @Test func aFlagWithoutAValueRefusesOneAndAMissingValueIsNamed() {
        #expect(throws: CommandLineError.unexpectedValue(flag: "--json", value: "yes")) { try Self.scan(["--json=yes"]) }
        #expect(throws: CommandLineError.needsValue(flag: "--port")) { try Self.scan(["--json", "--port"]) }
        #expect(CommandLineError.unexpectedValue(flag: "--json", value: "yes").description == "--json takes no value, not 'yes'")
        #expect(CommandLineError.needsValue(flag: "--port").description == "--port needs a value")
        #expect(CommandLineError.unknownFlag("--fast").description == "unknown option --fast")
        var scanner = CommandLineScanner(["stray"])
        #expect(throws: CommandLineError.unexpectedArgument("stray")) { _ = try scanner.nextFlag() }
    }

    @Test func helpAnywhereIsAskedFor() {
        #expect(CommandLineScanner(["--port", "x", "--help"]).asksForHelp)
        #expect(CommandLineScanner(["-h"]).asksForHelp)
        #expect(!CommandLineScanner(["--helpful", "--port", "80"]).asksForHelp)
    }

    /// Decimal digits in range, nothing else: no sign, no exponent, no overflow read as a wrap.
    @Test(arguments: [("0", 0), ("65535", 65535), ("007", 7), ("65536", nil), ("-1", nil), ("+5", nil), ("1e3", nil),
                      ("", nil), (" 5", nil), ("٣", nil), ("99999999999999999999", nil)] as [(String, Int?)])
    func numbersAreDigitsInRange(text: String, number: Int?) {
        var scanner = CommandLineScanner(["--port", text])
        #expect(throws: Never.self) { _ = try scanner.nextFlag() }
        do {
            #expect(try scanner.number(in: 0...65535) == number, "\(text)")
        } catch {
            #expect(number == nil, "\(text): \(error)")
            #expect(error == .badNumber(flag: "--port", text: text, range: 0...65535, unit: ""))
        }
        #expect(CommandLineError.badNumber(flag: "--idle-timeout", text: "x", range: 1...9, unit: "seconds").description
                == "--idle-timeout must be 1 to 9 seconds, not 'x'")
    }
}
