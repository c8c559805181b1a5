#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes `JSONWriter` writes, appended through a pointer.
///
/// An expanded page is thousands of appends of a few bytes each. Through
/// `Array.append(contentsOf:)` each one paid its uniqueness check and generic set-up, many times
/// the cost of the copy itself (docs/benchmarks.md, "Figures behind design choices"); here an
/// append is a capacity check and a copy. Not copyable, so the one allocation has one owner and is
/// freed exactly once.
///
/// With a `limit`, the buffer never grows past it: an append that would is dropped and
/// `exceeded` set, and the writer stops at the next element. What was written is then of no use.
/// A `grant` that refuses a growth stops it the same way.
struct JSONOutputBuffer: ~Copyable {
    private var start: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private let limit: Int
    /// Asked for the bytes each growth adds; nil for no one to ask.
    private let grant: ((Int) -> Bool)?
    /// How many bytes are written.
    private(set) var count = 0
    /// Whether an append was dropped because it would have passed `limit`.
    private(set) var exceeded = false

    init(capacity: Int, limit: Int = .max, grant: ((Int) -> Bool)? = nil) {
        self.limit = limit
        self.grant = grant
        self.capacity = min(max(capacity, 16), max(limit, 16))
        start = Self.reallocate(nil, capacity: self.capacity)
    }

    deinit {
        free(start)
    }

    mutating func append(_ byte: UInt8) {
        if count == capacity, !grow(toHold: count + 1) { return }
        start[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if capacity - count < bytes.count, !grow(toHold: count + bytes.count) { return }
        (start + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { append($0) }
    }

    /// Appends a copy of bytes written before (`range` within `0..<count`).
    mutating func appendCopy(of range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "copying bytes not written yet")
        if capacity - count < range.count, !grow(toHold: count + range.count) { return }
        // Read after growing, which moves the bytes; the two ranges never overlap.
        (start + count).initialize(from: start + range.lowerBound, count: range.count)
        count += range.count
    }

    /// The bytes written so far, lent to `body`.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: start, count: count))
    }

    // Kept out of line: the appends above inline into the writer, this rarely runs.
    /// False, with `exceeded` set, when `needed` is past the limit or `grant` refuses it.
    @inline(never)
    private mutating func grow(toHold needed: Int) -> Bool {
        guard needed <= limit else {
            exceeded = true
            return false
        }
        var grown = capacity * 2
        while grown < needed { grown *= 2 }
        grown = min(grown, limit)
        if let grant, !grant(grown - capacity) {
            exceeded = true
            return false
        }
        start = Self.reallocate(start, capacity: grown)
        capacity = grown
        return true
    }

    /// `realloc`, which mostly extends the block where it is, where a new block took a copy of all
    /// written so far at each doubling (docs/benchmarks.md, "Figures behind design choices").
    private static func reallocate(_ memory: UnsafeMutablePointer<UInt8>?, capacity: Int) -> UnsafeMutablePointer<UInt8> {
        guard let grown = realloc(memory, capacity) else { fatalError("out of memory for \(capacity) bytes of JSON") }
        return grown.bindMemory(to: UInt8.self, capacity: capacity)
    }
}
