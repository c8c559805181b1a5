/// Server-generated primary keys: 32 lower-case hex characters (PROTOCOL §4.1, D30), never
/// containing a comma, from the system's cryptographic random source.
public enum ObjectID {
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
