import Synchronization

/// The ids a listener tags its requests' loggers with (`hb.request.id`), in the form of
/// Hummingbird's `RequestID`: a random prefix, then a counter from a random start, in hexadecimal
/// (32 digits here, both halves padded). Made as strings at once, because the request line
/// writes every id, where `RequestID` built its text from two intermediate strings each time.
public final class RequestIDs: Sendable {
    /// The logger metadata key of a request's id, Hummingbird's.
    public static let metadataKey = "hb.request.id"

    private static let digits = Array("0123456789abcdef".utf8)
    private let prefix: UInt64
    private let counter: Atomic<UInt64>

    init() {
        prefix = UInt64.random(in: .min ... .max)
        counter = Atomic(UInt64.random(in: .min ... .max))
    }

    func next() -> String {
        let number = counter.wrappingAdd(1, ordering: .relaxed).oldValue
        return String(unsafeUninitializedCapacity: 32) { text in
            for (offset, value) in [(0, prefix), (16, number)] {
                var value = value
                for index in (offset..<offset + 16).reversed() {
                    text[index] = Self.digits[Int(value & 0xf)]
                    value >>= 4
                }
            }
            return 32
        }
    }
}
