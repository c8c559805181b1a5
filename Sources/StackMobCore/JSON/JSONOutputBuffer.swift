/// The bytes `JSONWriter` writes, appended through a pointer.
///
/// An expanded page of 20 is 240 objects and about 2,200 appends of a few bytes each. Through
/// `Array.append(contentsOf:)` each one paid its uniqueness check and generic set-up, about 100
/// instructions for a memcpy of ten bytes (issue 19); here an append is a capacity check and a
/// copy. Not copyable, so the one allocation has one owner and is freed exactly once.
struct JSONOutputBuffer: ~Copyable {
    private var start: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// How many bytes are written.
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        start = .allocate(capacity: self.capacity)
    }

    deinit {
        start.deallocate()
    }

    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: count + 1) }
        start[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if capacity - count < bytes.count { grow(toHold: count + bytes.count) }
        (start + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { append($0) }
    }

    /// Appends a copy of bytes written before (`range` within `0..<count`).
    mutating func appendCopy(of range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "copying bytes not written yet")
        if capacity - count < range.count { grow(toHold: count + range.count) }
        // Read after growing, which moves the bytes; the two ranges never overlap.
        (start + count).initialize(from: start + range.lowerBound, count: range.count)
        count += range.count
    }

    /// The bytes written so far, lent to `body`.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: start, count: count))
    }

    // Kept out of line: the appends above inline into the writer, this rarely runs.
    @inline(never)
    private mutating func grow(toHold needed: Int) {
        var grown = capacity * 2
        while grown < needed { grown *= 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        bigger.initialize(from: start, count: count)
        start.deallocate()
        start = bigger
        capacity = grown
    }
}
