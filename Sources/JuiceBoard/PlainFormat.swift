import JuiceCore
import JuiceScreen

// Plain output, for pipes and logs: one line per change, every fruit in menu order.

public enum PlainFormat {
    /// `seq=42 strawberry=0 banana=9 ...`
    public static func line(_ snapshot: StockUpdate) -> String {
        (["seq=\(snapshot.seq)"] + snapshot.values.map { "\($0.fruit.sanitizedForTerminal)=\($0.count)" })
            .joined(separator: " ")
    }
}
